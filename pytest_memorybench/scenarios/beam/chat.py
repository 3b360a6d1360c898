"""A BEAM chat as the agent receives it: batches of turns, dated by their time anchors.

Published shapes, all read by the same code:
  * repository `chat.json`: a list of batches `{batch_number, turns: [[message, …], …], time_anchor}`;
  * 10M `chat.json`: a list of `{"plan-k": [batch, …]}` (ids run on across plans);
  * Hugging Face export: `chat` is a list of batches, each a flat list of messages.
A message is `{role, id, content}`; user messages add `question_type` (main_question,
followup_question, answer_ai_question), main questions add `index` ("batch,bullet"), and the first
message of a batch carries the batch's `time_anchor` ("March-15-2024").

Plan markers.  The generator appended each main question's plan position (` ->-> 1,2`,
` ->-> 2,N/A`) to its text, and it also survives at the end of some assistant replies.  The official
pipeline leaves it in; it tells a retriever where a message sits in the plan, so it is stripped
from every message by default (`strip_markers`), and kept on request for `official` parity.

Time.  Each batch is dated by its anchor; its messages get that day from 09:00, 30 seconds apart,
so order and day are right in `Message.timestamp` (and in the dated transcript lines of agents
without `observe`).  A batch without a readable anchor is dated the day after the previous one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from pytest_memorybench.core.jsonstream import JsonStream
from pytest_memorybench.core.records import Message, Role

MARKER = re.compile(r"[ \t]*->->[ \t]*\d+[ \t]*,[ \t]*(?:\d+|N/?A)[ \t]*\Z")
ANY_MARKER = re.compile(r"->->\s*\d+\s*,")
FIRST_DAY = date(2024, 1, 1)  # for a chat whose first batch has no readable anchor
DAY_START = time(9, 0)
MESSAGE_GAP = timedelta(seconds=30)
_PLAN_KEY = re.compile(r"^plan[-_ ]?\d+$", re.IGNORECASE)
_ANCHOR_FORMATS = ("%B-%d-%Y", "%b-%d-%Y", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%Y-%m-%d", "%d %B %Y")


@dataclass(frozen=True)
class ChatMessage:
    """One message of a BEAM chat, with its id and, for a question, its type."""

    role: str
    content: str
    id: int | None = None
    question_type: str | None = None
    index: str | None = None  # "batch,bullet" of a main question
    time_anchor: str | None = None


@dataclass(frozen=True)
class Batch:
    """A batch of a BEAM chat: its turns and the time anchor that dates them."""

    number: int
    turns: tuple[tuple[ChatMessage, ...], ...]
    time_anchor: str | None = None

    @property
    def messages(self) -> Iterator[ChatMessage]:
        for turn in self.turns:
            yield from turn


def strip_marker(text: str) -> str:
    """`text` without a trailing plan marker (` ->-> 3,8`, ` ->-> 2,N/A`)."""
    return MARKER.sub("", text)


def parse_anchor(text: str | None) -> date | None:
    """ "March-15-2024" (and a few spellings of the same date) as a date; None if unreadable."""
    if not text:
        return None
    cleaned = " ".join(str(text).replace("_", "-").split())
    for pattern in _ANCHOR_FORMATS:
        try:
            return datetime.strptime(cleaned, pattern).date()
        except ValueError:
            continue
    return None


# -- raw units: whatever the file holds at the place of a batch ------------------------------------


def _kind(value: Mapping[str, Any]) -> str:
    if "role" in value and "content" in value:
        return "message"
    if len(value) >= 1 and all(_PLAN_KEY.match(str(key)) for key in value):
        return "plan"
    return "batch"


def iter_units(chat: Any) -> Iterator[Any]:
    """The batches of an already-decoded chat (any published shape), as raw objects."""
    if isinstance(chat, Mapping):
        kind = _kind(chat)
        if kind == "plan":
            for value in chat.values():
                yield from iter_units(value)
        elif kind == "batch":
            yield chat
        return
    if not isinstance(chat, list):
        return
    messages: list[Any] = []
    for element in chat:
        if isinstance(element, Mapping) and _kind(element) == "message":
            messages.append(element)
        else:
            yield from iter_units(element)
    if messages:
        yield messages


def stream_units(stream: JsonStream) -> Iterator[Any]:
    """The same, read from the value under a `JsonStream`'s cursor one batch at a time."""
    if stream.peek() == "{":
        yield from _stream_object(stream, [])
        return
    if stream.peek() != "[":
        stream.skip()
        return
    messages: list[Any] = []
    for _ in stream.items():
        char = stream.peek()
        if char == "{":
            yield from _stream_object(stream, messages)
        elif char == "[":
            yield from stream_units(stream)
        else:
            stream.skip()
    if messages:
        yield messages


def _stream_object(stream: JsonStream, messages: list[Any]) -> Iterator[Any]:
    """An object in a chat: a plan (descend into it), a batch (yield it) or a message (collect it)."""
    members = stream.members()
    first = next(members, None)
    if first is None:
        return
    if _PLAN_KEY.match(first):
        yield from stream_units(stream)
        for _key in members:
            yield from stream_units(stream)
        return
    value: dict[str, Any] = {first: stream.value()}
    for key in members:
        value[key] = stream.value()
    if _kind(value) == "message":
        messages.append(value)
    else:
        yield value


def read_chat_file(path: Path) -> Iterator[Any]:
    """The raw batches of a `chat.json`, streamed."""
    with JsonStream(path) as stream:
        yield from stream_units(stream)


# -- normalised batches --------------------------------------------------------------------------


def _message(raw: Any) -> ChatMessage | None:
    if not isinstance(raw, Mapping) or "content" not in raw:
        return None
    identifier = raw.get("id")
    return ChatMessage(
        role="assistant" if str(raw.get("role", "user")).lower() == "assistant" else "user",
        content=str(raw.get("content") or ""),
        id=identifier if isinstance(identifier, int) and not isinstance(identifier, bool) else None,
        question_type=raw.get("question_type"),
        index=raw.get("index"),
        time_anchor=raw.get("time_anchor"),
    )


def group_turns(messages: Iterable[ChatMessage]) -> list[tuple[ChatMessage, ...]]:
    """A flat message list as turns: a turn starts at each main question (or, where question
    types are missing, at each user message that follows an assistant reply)."""
    turns: list[list[ChatMessage]] = []
    previous: ChatMessage | None = None
    for message in messages:
        starts = message.role == "user" and (
            message.question_type == "main_question"
            or (message.question_type is None and (previous is None or previous.role == "assistant"))
        )
        if starts or not turns:
            turns.append([])
        turns[-1].append(message)
        previous = message
    return [tuple(turn) for turn in turns]


def to_batch(unit: Any, number: int) -> Batch:
    """A raw batch (repository dict or Hugging Face message list) as a `Batch`."""
    if isinstance(unit, Mapping):
        raw_turns = unit.get("turns", unit.get("messages", []))
        declared = unit.get("batch_number")
        number = declared if isinstance(declared, int) and not isinstance(declared, bool) else number
        anchor = unit.get("time_anchor")
    else:
        raw_turns, anchor = unit, None
    if raw_turns and all(isinstance(turn, list) for turn in raw_turns):
        turns = [tuple(m for m in map(_message, turn) if m is not None) for turn in raw_turns]
        turns = [turn for turn in turns if turn]
    else:
        turns = group_turns(m for m in map(_message, raw_turns or []) if m is not None)
    if not anchor:
        anchor = next((m.time_anchor for turn in turns for m in turn if m.time_anchor), None)
    return Batch(number, tuple(turns), anchor)


def batches(units: Iterable[Any]) -> Iterator[Batch]:
    """A chat's units, numbered, as batches."""
    for number, unit in enumerate(units, 1):
        yield to_batch(unit, number)


def deliver(chat: Iterable[Batch], *, strip_markers: bool = True) -> Iterator[Message]:
    """The chat as the agent's messages, dated by the batches' anchors, markers stripped."""
    day = None
    for batch in chat:
        anchored = parse_anchor(batch.time_anchor)
        day = anchored or (day + timedelta(days=1) if day else FIRST_DAY)
        start = datetime.combine(day, DAY_START)
        for position, message in enumerate(batch.messages):
            text = strip_marker(message.content) if strip_markers else message.content
            role: Role = "assistant" if message.role == "assistant" else "user"
            yield Message(text, start + position * MESSAGE_GAP, role, message.id, f"batch_{batch.number}")


__all__ = [
    "ANY_MARKER",
    "MARKER",
    "Batch",
    "ChatMessage",
    "batches",
    "deliver",
    "group_turns",
    "iter_units",
    "parse_anchor",
    "read_chat_file",
    "stream_units",
    "strip_marker",
    "to_batch",
]
