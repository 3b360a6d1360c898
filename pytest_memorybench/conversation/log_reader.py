"""Reading a run's event logs back: the exchanges of each conversation, for resume and replay.

Logs may be split over several files (one per xdist worker, and a resumed run appends to its own)
and the last line of an interrupted run may be cut short; exchanges are numbered within their
conversation, so they reassemble in order and a torn tail is simply where the log ends.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_memorybench.conversation.channel import LoggedExchange
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Usage


@dataclass
class ConversationLog:
    """What an earlier run logged of one conversation: its exchanges, whether it saved filler, its planned
    tests."""

    exchanges: list[LoggedExchange] = field(default_factory=list)
    saving_mode: bool | None = None
    tests: tuple[str, ...] | None = None  # the tests the conversation was planned with, when logged
    written: tuple[JsonObject, JsonObject] | None = None  # what its memory held at the end (`written`)


def iter_events(folder: Path) -> Iterator[dict[str, Any]]:
    """Every usable event of a run folder, file by file."""
    for path in sorted(folder.glob("events*.jsonl")):
        try:
            data = path.read_bytes()
        except OSError:
            continue  # unreadable: its conversations are asked again
        for line in data.splitlines():
            event = parse_event(line)
            if event is not None:
                yield event


# The fields readers take from each kind of event, with their types (a `None` among them: the
# field may be missing or null).  A line that does not match (torn by an interruption, edited, or
# written by something else) is not an event: skipping it costs at most asking the agent again,
# where trusting it would fail the run.
_NONE = type(None)
_EXCHANGE: dict[str, tuple[type, ...]] = {
    "group": (str,),
    "i": (int,),
    "text": (str, _NONE),
    "filler": (list, _NONE),
    "test": (str, _NONE),
    "tokens": (int, _NONE),
}
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "message": _EXCHANGE,
    "reply": _EXCHANGE,
    "observed": _EXCHANGE,
    "conversation_begin": {"group": (str,), "tests": (list, _NONE)},
    "probe_answer": {
        "test": (str,),
        "ask": (int,),
        "text": (str,),
        "at": (int,),
        "tokens": (int,),
        "retrieved": (list, _NONE),
        "seconds": (int, float, _NONE),
        "retrieve_seconds": (int, float, _NONE),
        "reply_seconds": (int, float, _NONE),
    },
}


def parse_event(line: bytes | str) -> dict[str, Any] | None:
    """One line of an event log as an event, or None when it is not one we can use."""
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
        return None
    for name, kinds in _FIELDS.get(event["kind"], {}).items():
        value = event.get(name)
        if not isinstance(value, kinds) or isinstance(value, bool) or (isinstance(value, int) and value < 0):
            return None
    return event


def logged_seconds(event: dict[str, Any]) -> float | None:
    """How long a logged reply took (its `usage`'s seconds), or None when the log does not say."""
    usage = Usage.from_logged(event.get("usage"))
    return usage.seconds if usage is not None and usage.calls else None


def read_conversations(folder: Path, *, spending: bool = True) -> dict[str, ConversationLog]:
    """Every conversation an earlier run logged in `folder`, by group, with its contiguous exchanges.

    `spending`: each exchange keeps what it cost (a resume counts it as spent by the run it
    continues); a replay, which re-scores without the agent, leaves it out."""
    messages: dict[tuple[str, int], dict[str, Any]] = {}
    replies: dict[str, dict[int, LoggedExchange]] = {}
    saving: dict[str, bool] = {}
    planned: dict[str, tuple[str, ...]] = {}
    written: dict[str, tuple[JsonObject, JsonObject]] = {}
    for event in iter_events(folder):
        group, kind = event.get("group"), event.get("kind")
        if group is None:
            continue
        if kind == "conversation_begin":
            saving.setdefault(group, bool(event.get("saving_mode")))
            if isinstance(event.get("tests"), list):
                planned.setdefault(group, tuple(map(str, event["tests"])))
        elif kind == "message":
            messages[(group, event["i"])] = event
        elif (
            kind == "written"
            and isinstance(event.get("stored"), dict)
            and isinstance(event.get("figures"), dict)
        ):
            written[group] = (event["stored"], event["figures"])
        elif kind in ("reply", "observed"):
            # Saved filler is one `observed` event (older logs: a message, then `observed`).
            message = messages.get((group, event["i"])) or (event if kind == "observed" else None)
            if message is None:
                continue
            filler = message.get("filler")
            replies.setdefault(group, {})[event["i"]] = LoggedExchange(
                message.get("text"),
                event.get("text"),
                saved=kind == "observed",
                filler=tuple(filler) if filler else None,
                evidence=event.get("evidence") if isinstance(event.get("evidence"), dict) else None,
                usage=Usage.from_logged(event.get("usage")) if spending else None,
                seconds=logged_seconds(event),
            )
    logs: dict[str, ConversationLog] = {}
    for group in {*replies, *planned}:
        numbered = replies.get(group, {})
        contiguous: list[LoggedExchange] = []
        while len(contiguous) in numbered:
            contiguous.append(numbered[len(contiguous)])
        logs[group] = ConversationLog(contiguous, saving.get(group), planned.get(group), written.get(group))
    return logs
