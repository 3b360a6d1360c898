"""Reading a run's event logs back: the exchanges of each conversation, for resume and replay.

Logs may be split over several files (one per xdist worker, and a resumed run appends to its own)
and the last line of an interrupted run may be cut short; exchanges are numbered within their
conversation, so they reassemble in order and a torn tail is simply where the log ends.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_memorybench.conversation.channel import LoggedExchange


@dataclass
class ConversationLog:
    exchanges: list[LoggedExchange] = field(default_factory=list)
    saving_mode: bool | None = None
    tests: tuple[str, ...] | None = None  # the tests the conversation was planned with, when logged


def iter_events(folder: Path) -> Iterator[dict[str, Any]]:
    """Every readable event of a run folder, file by file."""
    for path in sorted(folder.glob("events*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                yield json.loads(line)
            except ValueError:
                continue  # a line torn by the interruption


def read_conversations(folder: Path) -> dict[str, ConversationLog]:
    messages: dict[tuple[str, int], dict[str, Any]] = {}
    replies: dict[str, dict[int, LoggedExchange]] = {}
    saving: dict[str, bool] = {}
    planned: dict[str, tuple[str, ...]] = {}
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
        elif kind in ("reply", "observed"):
            # Saved filler is one `observed` event (older logs: a message, then `observed`).
            message = messages.get((group, event["i"])) or (event if kind == "observed" else None)
            if message is None:
                continue
            filler = message.get("filler")
            replies.setdefault(group, {})[event["i"]] = LoggedExchange(
                message.get("text"), event.get("text"), saved=kind == "observed", filler=tuple(filler) if filler else None
            )
    logs: dict[str, ConversationLog] = {}
    for group in {*replies, *planned}:
        numbered = replies.get(group, {})
        contiguous = []
        while len(contiguous) in numbered:
            contiguous.append(numbered[len(contiguous)])
        logs[group] = ConversationLog(contiguous, saving.get(group), planned.get(group))
    return logs
