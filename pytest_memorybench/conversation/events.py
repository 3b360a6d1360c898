"""The append-only event log of a run (`events.jsonl`): one JSON object per line, flushed per event.

Everything the harness says, hears or decides goes here first, so an interrupted run loses nothing
that happened before the interruption; each writer (a session, an xdist worker, a resume) begins
its part with the schema its records follow (`event_schema`).  It is also the run's event stream:
whoever follows the run (the terminal's progress) subscribes and is handed each event once it is
written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_memorybench.conversation.event_schema import EVENTS_SCHEMA
from pytest_memorybench.core.errors import RunFolderUnwritable


class EventLog:
    """The run's append-only JSONL log, flushed per event, that a resume or a replay reads back."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("a", encoding="utf-8")
        except OSError as exc:
            raise _unwritable(path, exc) from None
        self._sequence = 0
        self._listeners: list[Callable[[dict[str, Any]], None]] = []
        self.emit("log_begin", schema=EVENTS_SCHEMA)  # each writer's part says what it follows

    def subscribe(self, listener: Callable[[dict[str, Any]], None]) -> None:
        """Hand `listener` every event from now on, as logged (`seq`, `kind`, `group`, ...)."""
        self._listeners.append(listener)

    def emit(self, kind: str, **data: Any) -> None:
        """Log one event.  If it cannot be written (a full disk), the run stops here: going on would
        pay for replies nobody could resume from."""
        self._sequence += 1
        record = {"seq": self._sequence, "kind": kind, **data}
        try:
            self._file.write(_ENCODER.encode(record) + "\n")
            self._file.flush()
        except OSError as exc:
            raise _unwritable(self.path, exc) from None
        self._tell(record)

    def retell(self, kind: str, **data: Any) -> None:
        """Hand the listeners an event the log already holds (a resumed conversation replaying its
        log), without writing it again."""
        self._tell({"seq": None, "kind": kind, **data})

    def _tell(self, record: dict[str, Any]) -> None:
        for listener in self._listeners:
            listener(record)

    def close(self) -> None:
        try:
            self._file.close()
        except OSError:
            pass  # the flush of a line that already failed to be written


def _unwritable(path: Path, exc: OSError) -> RunFolderUnwritable:
    return RunFolderUnwritable(
        f"cannot write {path} ({exc.strerror or exc}); make room or fix its permissions"
    )


def _plain(value: object) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)


_ENCODER = json.JSONEncoder(
    ensure_ascii=False, default=_plain
)  # one encoder: building it per event costs more
