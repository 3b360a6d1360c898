"""The append-only event log of a run (`events.jsonl`): one JSON object per line, flushed per event.

Everything the harness says, hears or decides goes here first, so an interrupted run loses nothing
that happened before the interruption.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any


class EventLog:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("a", encoding="utf-8")
        self._sequence = 0

    def emit(self, kind: str, **data: Any) -> None:
        self._sequence += 1
        record = {"seq": self._sequence, "kind": kind, **data}
        self._file.write(_ENCODER.encode(record) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _plain(value: object) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)


_ENCODER = json.JSONEncoder(ensure_ascii=False, default=_plain)  # one encoder: building it per event costs more
