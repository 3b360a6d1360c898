"""LongMemEval's records and loader (`longmemeval_s*.json`, `_m*.json`, `_oracle.json`).

Each file is a JSON list of questions: `question_id` (ending in `_abs` for an abstention
question), `question_type` (single-session-user, single-session-assistant,
single-session-preference, temporal-reasoning, knowledge-update, multi-session), `question`,
`answer`, `question_date`, and the question's own history: `haystack_session_ids`,
`haystack_dates` and `haystack_sessions` (lists of `{role, content}` turns, evidence turns flagged
`has_answer`), with `answer_session_ids` naming the evidence sessions.  Dates are written
"2023/05/20 (Sat) 02:21".  A malformed file fails with one line naming the record.

The M file is 2.7 GB (500 questions of ~500 sessions), too much to hold: a file is read one
question at a time (`core.jsonstream`), each checked and indexed (its facts, its evidence turns,
where it starts in the file), and its history read again from there when it is delivered.  So a
run holds one history at a time, whatever the file's size.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from pytest_memorybench.core.jsonstream import JsonStream
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.readers import Malformed

# The published question types and the short names items carry (markers, summary rows).
TYPES = {
    "single-session-user": "single_user",
    "single-session-assistant": "single_assistant",
    "single-session-preference": "single_preference",
    "temporal-reasoning": "temporal_reasoning",
    "knowledge-update": "knowledge_update",
    "multi-session": "multi_session",
}
ABSTENTION = "abstention"
NOT_A_LIST = "expected a non-empty JSON list of questions, as in longmemeval_s.json"
_DATE = re.compile(r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\([A-Za-z]{3}\))?\s*(\d{1,2}):(\d{2})\s*$")


@dataclass(frozen=True)
class HistoryTurn:
    """One turn of a LongMemEval history, flagged when it holds the answer."""

    role: str
    content: str
    has_answer: bool = False


@dataclass(frozen=True)
class HistorySession:
    """One dated session of a LongMemEval history."""

    id: str
    when: datetime
    turns: tuple[HistoryTurn, ...]


@dataclass(frozen=True)
class Entry:
    """One LongMemEval question with its history, read one at a time from the file."""

    question_id: str
    question_type: str  # as published, e.g. "temporal-reasoning"
    question: str
    answer: str
    question_date: datetime
    answer_session_ids: tuple[str, ...]
    evidence: tuple[tuple[int, int], ...]  # (session number, turn position) of each has_answer turn
    history: Callable[[], tuple[HistorySession, ...]] = field(repr=False, compare=False)

    def sessions(self) -> tuple[HistorySession, ...]:
        """The question's history (from a file: read again each time, so it is not held)."""
        return self.history()

    @property
    def abstention(self) -> bool:
        return is_abstention(self.question_id)

    @property
    def category(self) -> str:
        """The summary row: the question type, or `abstention` for the unanswerable ones."""
        return ABSTENTION if self.abstention else TYPES[self.question_type]


def is_abstention(question_id: str) -> bool:
    """An unanswerable question: its id ends in `_abs`."""
    return question_id.endswith("_abs")


def parse_date(text: str) -> datetime:
    """A LongMemEval date ('2023/05/20 (Sat) 02:21') as a datetime."""
    match = _DATE.match(str(text))
    if match is None:
        raise Malformed(f"date {text!r} is not like '2023/05/20 (Sat) 02:21'")
    year, month, day, hour, minute = map(int, match.groups())
    try:
        return datetime(year, month, day, hour, minute)
    except ValueError:
        raise Malformed(f"date {text!r} is not a real date") from None


def format_date(when: datetime) -> str:
    """A datetime as LongMemEval writes dates."""
    return f"{when:%Y/%m/%d} ({when:%a}) {when:%H:%M}"


def load_entries(path: str | Path, tally: LoadTally | None = None) -> list[Entry]:
    """The file's questions, each checked; their histories stay in the file until delivered.
    `tally` counts the questions and sessions, and the evidence labels recall cannot use."""
    path, entries = Path(path), []
    with JsonStream(path) as stream:
        if stream.peek() != "[":
            raise Malformed(NOT_A_LIST)
        for number, _ in enumerate(stream.items()):
            start = stream.position()
            entry = _entry(number, stream.value(), tally)
            entries.append(replace(entry, history=partial(_read_history, path, start, number)))
    if not entries:
        raise Malformed(NOT_A_LIST)
    return entries


def entries_from(data: Any) -> list[Entry]:
    """Questions already in memory (our generator's)."""
    if not isinstance(data, list) or not data:
        raise Malformed(NOT_A_LIST)
    return [_entry(number, raw) for number, raw in enumerate(data)]


def _read_history(path: Path, start: int, number: int) -> tuple[HistorySession, ...]:
    with JsonStream(path, start=start) as stream:
        return _entry(number, stream.value()).sessions()


def _entry(number: int, raw: Any, tally: LoadTally | None = None) -> Entry:
    if not isinstance(raw, dict):
        raise Malformed(f"question {number}: expected an object")
    question_id = raw.get("question_id")
    where = f"question {number} ({question_id})"
    for name in ("question_id", "question_type", "question", "question_date"):
        if not isinstance(raw.get(name), str):
            raise Malformed(f"{where}: needs a {name!r} string")
    if raw["question_type"] not in TYPES:
        raise Malformed(f"{where}: question_type {raw['question_type']!r} is not one of {', '.join(TYPES)}")
    if raw.get("answer") is None:
        raise Malformed(f"{where}: needs an 'answer'")
    ids, dates, sessions = (
        raw.get("haystack_session_ids"),
        raw.get("haystack_dates"),
        raw.get("haystack_sessions"),
    )
    if not (isinstance(ids, list) and isinstance(dates, list) and isinstance(sessions, list)) or not len(
        ids
    ) == len(dates) == len(sessions):
        raise Malformed(
            f"{where}: haystack_session_ids, haystack_dates and haystack_sessions must be lists of one length"
        )
    try:
        history = tuple(
            HistorySession(str(session_id), parse_date(date), tuple(_turn(turn) for turn in turns))
            for session_id, date, turns in zip(ids, dates, sessions, strict=True)
        )
        asked = parse_date(raw["question_date"])
    except Malformed as exc:
        raise Malformed(f"{where}: {exc}") from None
    evidence = tuple(
        (session_number, position)
        for session_number, session in enumerate(history)
        for position, turn in enumerate(session.turns)
        if turn.has_answer
    )
    if tally is not None:
        _count(raw, history, evidence, tally)
    return Entry(
        raw["question_id"], raw["question_type"], raw["question"], str(raw["answer"]), asked,
        tuple(str(item) for item in raw.get("answer_session_ids") or ()), evidence, lambda: history,
    )  # fmt: skip


def _count(
    raw: dict[str, Any],
    history: tuple[HistorySession, ...],
    evidence: tuple[tuple[int, int], ...],
    tally: LoadTally,
) -> None:
    """A question and its history in the loader's report, with the evidence labels recall cannot use."""
    tally.held("questions")
    tally.held("history sessions", len(history))
    named = [str(item) for item in raw.get("answer_session_ids") or ()]
    present = {session.id for session in history}
    for session_id in named:
        if session_id not in present:
            tally.note(
                "answer_session_ids naming no session of the question's history",
                f"{raw['question_id']}: {session_id}",
            )
    if named and not evidence:
        tally.note(
            "questions naming answer sessions but marking no turn has_answer (recall not measured)",
            raw["question_id"],
        )


def _turn(raw: Any) -> HistoryTurn:
    if (
        not isinstance(raw, dict)
        or raw.get("role") not in ("user", "assistant")
        or not isinstance(raw.get("content"), str)
    ):
        raise Malformed("a turn needs 'role' (user or assistant) and 'content'")
    return HistoryTurn(raw["role"], raw["content"], bool(raw.get("has_answer")))


__all__ = [
    "ABSTENTION",
    "TYPES",
    "Entry",
    "HistorySession",
    "HistoryTurn",
    "entries_from",
    "format_date",
    "is_abstention",
    "load_entries",
    "parse_date",
]
