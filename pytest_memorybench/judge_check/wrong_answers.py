"""Wrong answers a judge must refuse: the false-acceptance half of `--mb-judge-check`.

Agreement on labelled cases says how often a judge sides with a human; it does not say how easily
a plausible wrong answer slips through, which is how a benchmark's scores drift upwards unnoticed
(an audit of one memory benchmark found its LLM judge accepting most of a set of deliberately
wrong answers).  The packaged set (`data/wrong_answers.jsonl`, written for this project) holds, per
kind of judged task, at least 20 answers that deserve no credit, one JSON object a line:

    {"id": "reference-wrong-01", "kind": "reference", "trap": "hedge", "payload": {...},
     "note": "why it is wrong"}

Traps: a hedge listing several candidates, the expected words negated or inside an abstention,
the question restated, the right answer to another question of the same conversation, a partial
answer, a verbose reply that buries a wrong answer, a near miss; and for the Restaurant scene a
reply in the waiter's voice, an order off the menu, thanks or a question that orders nothing.

What counts as accepting, per kind (the verdict is the task's output, validated):

  reference       GoodAI's rule gives the answer the point (`reference_correct`)
  sentence        "present"
  equivalence     "equivalent"
  interpretation  "valid"
  answer          "correct"
  nugget          any credit (score > 0)
  items           any ground-truth item credited
  order           any predicted item matched to a ground-truth item
  directions      the route read ends where the right route ends (`right_end`, stored per case)
  restaurant      a menu dish or drink ordered with nothing off the menu (the stage would pass)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judge_check.metaeval import load_jsonl
from pytest_memorybench.judges.base import TASK_KINDS
from pytest_memorybench.judges.prompts import check_payload
from pytest_memorybench.judges.verdict_meaning import reference_correct, route_end

WRONG_ANSWERS_FILE = Path(__file__).parent / "data" / "wrong_answers.jsonl"
TRAPS = (
    "hedge", "negated", "abstention", "restated", "other-question", "partial", "buried", "near-miss",
    "waiter", "off-menu", "thanks", "question",
)  # fmt: skip
_FIELDS = {"id", "kind", "trap", "payload", "note", "right_end"}


@dataclass(frozen=True)
class WrongAnswer:
    """An answer that deserves no credit, and the task that asks about it."""

    id: str
    kind: str
    trap: str
    payload: JsonObject
    note: str = ""
    right_end: tuple[int, int] | None = None  # directions: where the right route ends


def load_wrong_answers(path: str | Path | None = None) -> list[WrongAnswer]:
    """The wrong answers of a JSONL file (default: the packaged set); ValueError names the line."""
    return load_jsonl(Path(path) if path is not None else WRONG_ANSWERS_FILE, _wrong_answer)


def _wrong_answer(raw: Any) -> WrongAnswer:
    if not isinstance(raw, dict):
        raise ValueError("a wrong answer must be a JSON object")
    unknown = set(raw) - _FIELDS
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(sorted(unknown))}")
    answer_id, kind, trap, payload = raw.get("id"), raw.get("kind"), raw.get("trap"), raw.get("payload")
    if not isinstance(answer_id, str) or not answer_id:
        raise ValueError("'id' must be a non-empty string")
    if kind not in TASK_KINDS:
        raise ValueError(f"{answer_id}: unknown kind {kind!r}")
    if trap not in TRAPS:
        raise ValueError(f"{answer_id}: unknown trap {trap!r}; known: {', '.join(TRAPS)}")
    if not isinstance(payload, dict):
        raise ValueError(f"{answer_id}: 'payload' must be an object")
    extra = set(payload) - set(check_payload(kind, payload).fields)
    if extra:
        raise ValueError(
            f"{answer_id}: payload field(s) {', '.join(sorted(extra))} are not part of a {kind} task"
        )
    end = raw.get("right_end")
    if (kind == "directions") != (end is not None):
        raise ValueError(f"{answer_id}: 'right_end' belongs to directions answers, and each needs one")
    if end is not None and not (isinstance(end, list) and len(end) == 2 and all(type(v) is int for v in end)):
        raise ValueError(f"{answer_id}: 'right_end' must be [x, y] in whole km")
    return WrongAnswer(answer_id, kind, trap, payload, str(raw.get("note", "")), tuple(end) if end else None)


def accepts(answer: WrongAnswer, data: Mapping[str, Any]) -> bool:
    """Whether a validated verdict gives this wrong answer credit (the rules in the module docstring)."""
    kind = answer.kind
    if kind == "reference":
        return reference_correct(data)
    if kind in ("sentence", "equivalence", "interpretation", "answer"):
        return bool(
            data[
                {
                    "sentence": "present",
                    "equivalence": "equivalent",
                    "interpretation": "valid",
                    "answer": "correct",
                }[kind]
            ]
        )
    if kind == "nugget":
        return float(data["score"]) > 0
    if kind == "items":
        return any(float(credit) > 0 for credit in data["matching"])
    if kind == "order":
        return any(int(index) >= 0 for index in data["predicted_indexes"])
    if kind == "directions":
        return tuple(route_end(data["hops"])) == answer.right_end
    if kind == "restaurant":
        return bool(data["dishes"] or data["drinks"]) and not data.get("other")
    raise ValueError(
        f"unknown judge task {kind!r}"
    )  # pragma: no cover - TASK_KINDS and this function move together
