"""Progress of a long conversation on the terminal, without disturbing pytest's capture.

A 500k-token conversation runs inside one pytest item for a long time; a line every few seconds
says it is alive (tests done, conversations in flight, tokens so far, tests open).  Lines are written the way pytest's live
logging writes, with capture suspended for the moment, and the row of results they interrupt is
taken up again with its file prefix, so a `.` or `F` never stands alone on a line.  xdist workers
have no terminal: there the per-item reports are the progress.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

INTERVAL_SECONDS = 10.0


class TerminalProgress:
    def __init__(
        self,
        config: pytest.Config,
        total_tests: Callable[[], int],
        interval: float | None = None,
        in_flight: Callable[[], int] = lambda: 1,
    ) -> None:
        self.config = config
        self.total = total_tests  # asked at each line: pytest selects after the run is planned
        self.in_flight = in_flight  # conversations being driven right now
        self.tokens: dict[str, int] = {}  # the latest token count of each conversation
        self.interval = INTERVAL_SECONDS if interval is None else interval
        self.done = 0
        self.open: list[str] = []
        self._last = time.monotonic()

    def __call__(self, event: dict[str, Any]) -> None:
        if event["event"] == "note":  # a line the user must see now, not at the next interval
            self._write_line(f"memorybench: {event['text']}")
            return
        if event["event"] == "context":  # a probe context being delivered: only the tokens move
            pass
        elif event["event"] == "test_begin":
            self.open.append(event["test"].split("::")[-1])
        else:
            test = event["test"].split("::")[-1]
            self.done += 1
            if test in self.open:
                self.open.remove(test)
        self.tokens[event.get("group", "")] = event["tokens"]
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._write(sum(self.tokens.values()))

    def _write(self, tokens: int) -> None:
        running = ", ".join(self.open[:4]) + (" …" if len(self.open) > 4 else "")
        flying = self.in_flight()
        conversations = f" · {flying} conversations in flight" if flying > 1 else ""
        self._write_line(f"[memorybench] {self.done}/{self.total()} tests done{conversations} · {tokens:,} tokens · open: {running or '-'}")

    def _write_line(self, line: str) -> None:
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if reporter is None or capture is None:
            return
        row = reporter.currentfspath  # the file whose results the current row shows, in pytest's short form
        with capture.global_and_fixture_disabled():
            reporter.ensure_newline()
            reporter.write_line(line)
            if isinstance(row, Path):
                reporter.write(os.path.relpath(row, reporter.startpath) + " ", flush=True)
                reporter.currentfspath = row
