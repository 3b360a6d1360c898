"""The LoCoMo audit's corrections of gold answers (dial481/locomo-audit, `errors.json`).

Each finding is `{question_id: "locomo_<sample>_qa<index>", question, golden_answer, category,
error_type, cited_evidence, correct_evidence, reasoning, correct_answer}`.  A `WRONG_CITATION`
keeps the answer and moves the evidence (score-neutral); every other type changes the gold
answer; a correction that says the answer "cannot be determined" from the transcript makes the
question unanswerable, and the `audited` profile leaves it out.  The file is the user's
(`--mb-data locomo_audit=PATH`): it is licensed for non-commercial use and never ships with us.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.readers import Malformed

CITATION_ONLY = "WRONG_CITATION"
AUDIT_URL = "github.com/dial481/locomo-audit"
_QUESTION_ID = re.compile(r"^locomo_(\d+)_qa(\d+)$")
_UNANSWERABLE = re.compile(r"^\s*cannot (?:be )?(?:reliably )?(?:be )?determined", re.IGNORECASE)
_CITED = re.compile(r"\s*\((?:D\d+:\d+(?:-\d+)?[,;\s]*)+[^)]*\)")  # "(D4:8, D8:34)" after a claim


class Finding(TypedDict):
    """One finding of `errors.json`, as our generator writes it (`corrections_from` checks what it reads)."""

    question_id: str  # locomo_<sample index>_qa<question index>
    question: str
    golden_answer: str | None
    category: int
    error_type: str  # WRONG_CITATION, or the kind of wrong answer (TEMPORAL_ERROR, HALLUCINATION …)
    cited_evidence: list[str]
    correct_evidence: list[str]
    reasoning: str
    correct_answer: str


@dataclass(frozen=True)
class Correction:
    """What the audit says of one question."""

    error_type: str
    answer: str  # the corrected gold answer (the original one for a citation-only finding)
    evidence: tuple[str, ...]
    unanswerable: bool
    reasoning: str = ""

    @property
    def changes_answer(self) -> bool:
        return self.error_type != CITATION_ONLY and not self.unanswerable

    def to_json(self) -> JsonObject:
        data: JsonObject = asdict(self)
        data["evidence"] = list(self.evidence)
        return data


def corrected_answer(text: str) -> str:
    """The audit's answer without the dialogue ids it cites as its sources."""
    return " ".join(_CITED.sub("", text).split())


def load_audit(path: str | Path) -> dict[tuple[int, int], tuple[str, Correction]]:
    """(sample index, question index) → (the question as the audit quotes it, its correction)."""
    with open(path, encoding="utf-8") as handle:
        return corrections_from(json.load(handle))


def corrections_from(data: Any) -> dict[tuple[int, int], tuple[str, Correction]]:
    """The corrections of parsed `errors.json` data."""
    if not isinstance(data, list):
        raise Malformed("expected a JSON list of findings, as in the audit's errors.json")
    found: dict[tuple[int, int], tuple[str, Correction]] = {}
    for number, raw in enumerate(data):
        where = f"finding {number}"
        if not isinstance(raw, dict):
            raise Malformed(f"{where}: expected an object")
        match = _QUESTION_ID.match(str(raw.get("question_id", "")))
        if match is None:
            raise Malformed(f"{where}: question_id {raw.get('question_id')!r} is not like locomo_0_qa12")
        error_type, answer = raw.get("error_type"), raw.get("correct_answer")
        if not isinstance(error_type, str) or not isinstance(answer, str):
            raise Malformed(f"{where} ({match[0]}): needs 'error_type' and 'correct_answer' strings")
        evidence = raw.get("correct_evidence") or raw.get("cited_evidence") or []
        correction = Correction(
            error_type,
            corrected_answer(answer),
            tuple(str(item) for item in evidence) if isinstance(evidence, list) else (),
            bool(_UNANSWERABLE.match(answer)),
            str(raw.get("reasoning") or ""),
        )
        found[(int(match[1]), int(match[2]))] = (str(raw.get("question") or ""), correction)
    return found


__all__ = ["AUDIT_URL", "CITATION_ONLY", "Correction", "corrected_answer", "corrections_from", "load_audit"]
