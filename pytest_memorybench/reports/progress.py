"""Progress of a long conversation on the terminal, without disturbing pytest's capture.

A 500k-token conversation runs inside one pytest item for a long time; the progress says it is
alive (tests done, conversations in flight, tokens so far, tests open), written with capture
suspended for the moment.  Two forms:

- on a terminal, a status at the end of pytest's current row of results, rewritten in place every
  second while an item waits on its conversation and erased before pytest writes the next result,
  so the row reads as pytest wrote it;
- elsewhere (a CI log, a pipe), a full line every ten seconds, after which the row of results it
  interrupted is taken up again with its file prefix, so a `.` or `F` never stands alone.

xdist workers have no terminal: there the per-item reports are the progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

INTERVAL_SECONDS = 10.0  # between full lines in a log
STATUS_SECONDS = 1.0  # between rewrites of the status on a terminal
_ROOM_FOR_PERCENTAGE = 8  # what pytest writes at the end of a row: " [100%]"


class TerminalProgress:
    """The controller's progress line: tests done, conversations in flight, spending."""

    def __init__(
        self,
        config: pytest.Config,
        total_tests: Callable[[], int],
        interval: float | None = None,
        in_flight: Callable[[], int] = lambda: 1,
        levels: Callable[[], list[int]] = list,
    ) -> None:
        self.config = config
        self.total = total_tests  # asked at each line: pytest selects after the run is planned
        self.in_flight = in_flight  # conversations being driven right now
        self.levels = levels  # each measured provider's level (--mb-concurrency auto)
        self.tokens: dict[str, int] = {}  # the latest token count of each conversation
        self.interval = interval  # None: the form's own interval
        self.done = 0
        self.open: list[str] = []
        self._last = time.monotonic()
        self._shown = 0  # columns of status now at the end of the row (terminal form)

    def __call__(self, event: dict[str, Any]) -> None:
        """One event of the run's log (or a note of the run's): the ones that move the progress."""
        kind = event["kind"]
        if kind == "note":  # a line the user must see now, not at the next interval
            self._write_line(f"memorybench: {event['text']}")
            return
        if kind == "test_begin":
            self.open.append(event["test"].split("::")[-1])
        elif kind == "test_end":
            test = event["test"].split("::")[-1]
            self.done += 1
            if test in self.open:
                self.open.remove(test)
        elif kind != "context_delivered":  # a probe context being delivered: only the tokens move
            return
        if "tokens" in event:
            self.tokens[event.get("group", "")] = event["tokens"]
        if self._terminal() is not None:
            return  # `keep_fresh` shows the counts while pytest waits
        now = time.monotonic()
        if now - self._last >= (INTERVAL_SECONDS if self.interval is None else self.interval):
            self._last = now
            self._write_line(self._line())

    async def keep_fresh(self) -> None:
        """While an item waits on its conversation: on a terminal, the status, redrawn every second."""
        if self._terminal() is None:
            return
        while True:
            self._show(self._line())
            await asyncio.sleep(STATUS_SECONDS if self.interval is None else self.interval)

    def _line(self) -> str:
        running = ", ".join(self.open[:4]) + (" …" if len(self.open) > 4 else "")
        flying = self.in_flight()
        conversations = f" · {flying} conversations in flight" if flying > 1 else ""
        levels = self.levels()  # --mb-concurrency auto: the level in use
        measured = f" · requests at once: {'/'.join(map(str, levels))} (auto)" if levels else ""
        tokens = sum(self.tokens.values())
        return (
            f"[memorybench] {self.done}/{self.total()} tests done · {tokens:,}"
            f" tokens{conversations}{measured} · open: {running or '-'}"
        )

    def _terminal(self) -> Any:
        """pytest's terminal writer when the output is a terminal that can be rewritten, else None."""
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        writer = getattr(reporter, "_tw", None)
        if (
            writer is None
            or not bool(getattr(reporter, "isatty", False))
            or getattr(writer, "fullwidth", 0) < 40
        ):
            return None
        return writer

    def _show(self, status: str) -> None:
        """The status at the end of the current row, in place of the last one.  Written past pytest's
        writer, whose record of the row (its width, the next result's place) stays as pytest left it."""
        writer, capture = self._terminal(), self.config.pluginmanager.getplugin("capturemanager")
        room = writer.fullwidth - writer.width_of_current_line - _ROOM_FOR_PERCENTAGE
        text = f"  {status}"[: max(room, 0)]
        with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
            self.clear()
            writer._file.write(text)
            writer._file.flush()
        self._shown = len(text)

    def clear(self) -> None:
        """Erase the status, if one is shown: pytest is about to write on its row."""
        if self._shown:
            writer = self._terminal()
            if writer is not None:
                writer._file.write(f"\x1b[{self._shown}D\x1b[K")
                writer._file.flush()
            self._shown = 0

    def _write_line(self, line: str) -> None:
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if reporter is None or capture is None:
            return
        row = reporter.currentfspath  # the file whose results the current row shows, in pytest's short form
        with capture.global_and_fixture_disabled():
            self.clear()
            reporter.ensure_newline()
            reporter.write_line(line)
            if isinstance(row, Path):
                reporter.write(os.path.relpath(row, reporter.startpath) + " ", flush=True)
                reporter.currentfspath = row
