"""LoCoMo's data as records: samples, sessions, turns and questions, read from `locomo10.json`.

The published file (snap-research/locomo, `data/locomo10.json`) is a list of samples; each has a
`conversation` (`speaker_a`, `speaker_b`, then `session_N_date_time` and `session_N` turn lists of
`{speaker, dia_id, text}`, some turns with a shared photo's `blip_caption`) and `qa` (`question`,
`answer`, `evidence` dia ids, `category`; category 5 has an `adversarial_answer` instead of an
answer).  Our generator writes the same shape, so one loader serves both.

A malformed file fails with one line naming the file, the record and what is wrong.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeAlias

from typing_extensions import NotRequired, TypedDict

from pytest_memorybench.core.readers import Malformed

# The category numbers as the paper's code reads them (task_eval/evaluation.py: 1 is scored by
# sub-answer F1, "multi-hop"; 2, 3, 4 on the whole answer; 5 by its "not mentioned" rule).
CATEGORIES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}
ADVERSARIAL = 5


# The published file's records, as our generator writes them (the loader below checks what it reads).
class TurnRow(TypedDict):
    """A turn of a session: `dia_id` is "D<session>:<turn>"; a turn that shares a photo has its caption."""

    speaker: str
    dia_id: str
    text: str
    img_url: NotRequired[list[str]]
    blip_caption: NotRequired[str]
    query: NotRequired[str]


# `speaker_a`, `speaker_b`, `session_N_date_time` (texts) and `session_N` (a session's turns).
ConversationRow: TypeAlias = dict[str, str | list[TurnRow]]


class QuestionRow(TypedDict):
    """A question; category 5 (adversarial) has an `adversarial_answer` in place of an answer."""

    question: str
    evidence: list[str]  # the dia ids it rests on
    category: int
    answer: NotRequired[str | None]
    adversarial_answer: NotRequired[str | None]


class SampleRow(TypedDict):
    """One sample of `locomo10.json`: a conversation and its questions."""

    sample_id: str
    conversation: ConversationRow
    qa: list[QuestionRow]


NOT_MENTIONED = "Not mentioned in the conversation"
DOWNLOAD = (
    "LoCoMo's data is not given: download data/locomo10.json from github.com/snap-research/locomo and pass "
    "--mb-data locomo=PATH"
)

_DIA_ID = re.compile(r"^D(\d+):(\d+)$")
_SESSION = re.compile(r"^session_(\d+)$")
_DATE_TIME = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class Turn:
    """One turn of a LoCoMo session: speaker, id, text and any shared photo."""

    speaker: str
    dia_id: str
    text: str
    caption: str | None = None  # the shared photo, as its caption describes it

    @property
    def id(self) -> int:
        return turn_number(self.dia_id)


@dataclass(frozen=True)
class Session:
    """A dated LoCoMo session and its turns."""

    number: int
    date_time: str  # as written, e.g. "1:56 pm on 8 May, 2023"
    when: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    """One LoCoMo question: its category, gold answer and evidence turns."""

    index: int  # its position in the sample's qa list, from 0 (the audit's `qa<index>`)
    question: str
    answer: str | None  # None for category 5
    category: int
    evidence: tuple[str, ...]
    adversarial_answer: str | None = None

    @property
    def category_name(self) -> str:
        return CATEGORIES[self.category]


@dataclass(frozen=True)
class Sample:
    """One LoCoMo conversation: its speakers, sessions and questions."""

    index: int  # position in the file, from 0 (the audit's `locomo_<index>`)
    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]


def turn_number(dia_id: str) -> int:
    """ "D12:7" → 12007: a `Message.id` that evidence recall can name."""
    match = _DIA_ID.match(dia_id.strip())
    if match is None:
        raise Malformed(f"dia_id {dia_id!r} is not of the form D<session>:<turn>")
    return int(match[1]) * 1000 + int(match[2])


def parse_date_time(text: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" → 2023-05-08 13:56."""
    match = _DATE_TIME.match(text)
    if match is None:
        raise Malformed(f"session date {text!r} is not like '1:56 pm on 8 May, 2023'")
    hour, minute, half, day, month, year = match.groups()
    try:
        clock = datetime.strptime(f"{hour}:{minute} {half.upper()}", "%I:%M %p")
        date = datetime.strptime(f"{day} {month[:3].title()} {year}", "%d %b %Y")
    except ValueError:
        raise Malformed(f"session date {text!r} is not a real date") from None
    return date.replace(hour=clock.hour, minute=clock.minute)


def load_samples(path: str | Path) -> list[Sample]:
    """The samples of a `locomo10.json`-shaped file (Malformed naming the record on bad input)."""
    with open(path, encoding="utf-8") as handle:
        return samples_from(json.load(handle))


def samples_from(data: Any) -> list[Sample]:
    """The samples of parsed `locomo10.json` data."""
    if not isinstance(data, list) or not data:
        raise Malformed("expected a non-empty JSON list of samples, as in locomo10.json")
    return [_sample(index, raw) for index, raw in enumerate(data)]


def _sample(index: int, raw: Any) -> Sample:
    where = f"sample {index}"
    if not isinstance(raw, dict):
        raise Malformed(f"{where}: expected an object, got {type(raw).__name__}")
    sample_id = str(raw.get("sample_id") or f"sample-{index}")
    where = f"sample {index} ({sample_id})"
    conversation, qa = raw.get("conversation"), raw.get("qa")
    if not isinstance(conversation, dict):
        raise Malformed(f"{where}: no 'conversation' object")
    if not isinstance(qa, list):
        raise Malformed(f"{where}: no 'qa' list")
    speakers = (conversation.get("speaker_a"), conversation.get("speaker_b"))
    if not all(isinstance(name, str) and name for name in speakers):
        raise Malformed(f"{where}: 'speaker_a' and 'speaker_b' must name the two speakers")
    try:
        sessions = _sessions(conversation)
        questions = tuple(_question(number, item) for number, item in enumerate(qa))
    except Malformed as exc:
        raise Malformed(f"{where}: {exc}") from None
    return Sample(index, sample_id, speakers, sessions, questions)  # type: ignore[arg-type]


def _sessions(conversation: dict[str, Any]) -> tuple[Session, ...]:
    numbers = sorted(int(m[1]) for key in conversation if (m := _SESSION.match(key)))
    if not numbers:
        raise Malformed("the conversation has no session_N lists")
    sessions = []
    for number in numbers:
        turns = conversation[f"session_{number}"]
        date_time = conversation.get(f"session_{number}_date_time")
        if not isinstance(turns, list):
            raise Malformed(f"session_{number} must be a list of turns")
        if not isinstance(date_time, str):
            raise Malformed(f"session_{number} has no session_{number}_date_time")
        sessions.append(
            Session(number, date_time, parse_date_time(date_time), tuple(_turn(number, t) for t in turns))
        )
    return tuple(sessions)


def _turn(session: int, raw: Any) -> Turn:
    if not isinstance(raw, dict) or not all(
        isinstance(raw.get(key), str) for key in ("speaker", "dia_id", "text")
    ):
        raise Malformed(f"session_{session}: a turn needs 'speaker', 'dia_id' and 'text' strings")
    turn_number(raw["dia_id"])
    caption = raw.get("blip_caption")
    return Turn(
        raw["speaker"],
        raw["dia_id"].strip(),
        raw["text"],
        caption if isinstance(caption, str) and caption else None,
    )


def _question(index: int, raw: Any) -> Question:
    where = f"qa {index}"
    if not isinstance(raw, dict) or not isinstance(raw.get("question"), str):
        raise Malformed(f"{where}: needs a 'question' string")
    category = raw.get("category")
    if category not in CATEGORIES:
        raise Malformed(f"{where}: category {category!r} is not one of 1-5")
    answer = raw.get("answer")
    adversarial = raw.get("adversarial_answer")
    if category == ADVERSARIAL:
        if answer is None and adversarial is None:
            raise Malformed(f"{where}: a category-5 question needs an 'adversarial_answer'")
    elif answer is None or isinstance(answer, (list, dict)):
        raise Malformed(f"{where}: needs an 'answer'")
    evidence = raw.get("evidence") or []
    if not isinstance(evidence, list):
        raise Malformed(f"{where}: 'evidence' must be a list of dia ids")
    return Question(
        index,
        raw["question"],
        None if answer is None else str(answer),
        category,
        tuple(str(item) for item in evidence),
        None if adversarial is None else str(adversarial),
    )


__all__ = [
    "ADVERSARIAL",
    "CATEGORIES",
    "DOWNLOAD",
    "NOT_MENTIONED",
    "Question",
    "Sample",
    "Session",
    "Turn",
    "load_samples",
    "samples_from",
    "parse_date_time",
    "turn_number",
]
