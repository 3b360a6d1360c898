"""The result files GoodAI's runner stored for each agent, read as typed records.

`data/tests/<benchmark>/results/<agent>/<Dataset>/<example>_<n>.json` holds one test's replies
(`actual_responses`), what the scorer compared them with (`expected_responses`), its verdict
(`score` of `max_score`, with `reasoning`) and the conversation (`task_log`: this test's lines;
`full_log`: everything from its first line on).  Where GoodAI's maintainers corrected a verdict by
hand, the file keeps the automatic one as `auto_score` / `auto_reasoning` (once spelled
`auto reasoning`); a re-scorer is compared with the automatic verdict, since it is one too.

Scores are normalised to [0, 1]: Benchmarks 1 and 2 stored raw points (`max_score` 3, 5, 10 …).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_LOG_LINE = re.compile(r"^(?P<who>Test|Agent|SYSTEM|System)\s*\((?P<time>[^)]*)\):\s?", re.DOTALL)


class ResultFileError(ValueError):
    """A result file that cannot be used, with the reason in one line."""


@dataclass(frozen=True)
class LogLine:
    """One line of a stored log: who spoke (`Test`, `Agent` or `SYSTEM`), when, and the text."""

    speaker: str
    time: str
    text: str


@dataclass(frozen=True)
class StoredResult:
    """One stored test result of one agent."""

    path: Path
    agent: str  # the agent's folder name, e.g. "LLMChatSession - gpt-4o - 128000"
    dataset: str  # the dataset's folder name, e.g. "Colours"
    example_id: str  # the definition file's stem: "0" for 0.def.json
    responses: tuple[str, ...]  # the replies to the question lines
    expected: Any  # `expected_responses` as stored
    score: float  # the automatic verdict, normalised to [0, 1]
    reasons: tuple[str, ...]  # the automatic verdict's reasoning
    human_score: float | None  # the maintainers' corrected verdict, when there is one
    task_log: tuple[LogLine, ...]
    full_log: tuple[LogLine, ...]
    tokens: int | None  # the test's measured memory span

    @property
    def log(self) -> tuple[LogLine, ...]:
        """The fullest log the file keeps (published copies may have emptied `full_log`)."""
        return self.full_log or self.task_log

    def exchanges(self) -> list[tuple[str, str | None]]:
        """(what the test said, what the agent replied) for this test's own lines, in order."""
        pairs: list[tuple[str, str | None]] = []
        for line in self.task_log:
            if line.speaker == "Test":
                pairs.append((line.text, None))
            elif line.speaker == "Agent" and pairs and pairs[-1][1] is None:
                pairs[-1] = (pairs[-1][0], line.text)
        return pairs

    def replies_from(self, message: str) -> list[str]:
        """Every agent reply in the log from the reply to `message` on (whatever test it answers).

        `message` is matched on its start, because GoodAI's definition files and the runner's
        wording can differ in punctuation at the end.  [] when the message is not in the log.
        """
        prefix = _prefix(message)
        lines = list(self.log)
        start = next(
            (i for i, line in enumerate(lines) if line.speaker == "Test" and _prefix(line.text) == prefix),
            None,
        )
        if start is None:
            return []
        return [line.text for line in lines[start + 1 :] if line.speaker == "Agent"]

    def quotes(self, value: Any) -> bool:
        """Whether the verdict's reasoning quotes `value`, a keyword list (as Spy Meeting's does)."""
        return (
            isinstance(value, list) and bool(value) and any(repr(value) in reason for reason in self.reasons)
        )

    def verdict_json(self) -> dict[str, Any]:
        """The published verdict as results.json records it beside ours."""
        record: dict[str, Any] = {
            "score": round(self.score, 6),
            "reasons": list(self.reasons),
            "file": str(self.path),
        }
        if self.human_score is not None:
            record["human_score"] = round(self.human_score, 6)
        return record


def read_result(path: Path, agent: str, dataset: str) -> StoredResult:
    """One result file; ResultFileError (one line) when it is not a GoodAI result."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ResultFileError(f"{path}: not a text file") from None
    except OSError as exc:
        raise ResultFileError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ResultFileError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(raw, dict) or "actual_responses" not in raw or "score" not in raw:
        raise ResultFileError(f"{path}: not a GoodAI result file (no actual_responses and score)")
    try:
        maximum = float(raw.get("max_score") or 1)
        automatic = float(raw["auto_score"] if "auto_score" in raw else raw["score"])
        human = float(raw["score"]) if "auto_score" in raw else None
        reasons = (
            raw.get("auto_reasoning", raw.get("auto reasoning", raw.get("reasoning")))
            if human is not None
            else raw.get("reasoning")
        )
        stem = path.stem
        example_id = stem.rsplit("_", 1)[0] if "_" in stem else stem
        return StoredResult(
            path=path,
            agent=agent,
            dataset=dataset,
            example_id=example_id,
            responses=tuple(_text(reply) for reply in raw["actual_responses"] or ()),
            expected=raw.get("expected_responses"),
            score=_unit(automatic / maximum),
            reasons=tuple(str(reason) for reason in _as_list(reasons)),
            human_score=_unit(human / maximum) if human is not None else None,
            task_log=parse_log(raw.get("task_log")),
            full_log=parse_log(raw.get("full_log")),
            tokens=int(raw["tokens"]) if isinstance(raw.get("tokens"), (int, float)) else None,
        )
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        raise ResultFileError(f"{path}: a field has the wrong type ({exc})") from None


def parse_log(entries: Any) -> tuple[LogLine, ...]:
    """`["Test (2024-05-22 12:15:56.12): text", "Agent (…): text", …]` as LogLines.

    Benchmark 1 stored the full log without speakers or times: the messages and replies
    alternate, the test's message first.
    """
    texts = [str(entry) for entry in _as_list(entries)]
    if texts and not any(_LOG_LINE.match(text) for text in texts):
        return tuple(
            LogLine("Test" if index % 2 == 0 else "Agent", "", text) for index, text in enumerate(texts)
        )
    lines: list[LogLine] = []
    for entry in texts:
        text = str(entry)
        match = _LOG_LINE.match(text)
        if match is None:
            if lines:  # a continuation the runner wrote as a line of its own
                last = lines[-1]
                lines[-1] = LogLine(last.speaker, last.time, f"{last.text}\n{text}")
            continue
        speaker = "SYSTEM" if match.group("who") in ("SYSTEM", "System") else match.group("who")
        lines.append(LogLine(speaker, match.group("time"), text[match.end() :]))
    return tuple(lines)


def _prefix(text: str) -> str:
    return " ".join(text.split())[:60].rstrip(".,;:!? ")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _unit(value: float) -> float:
    return min(1.0, max(0.0, value))
