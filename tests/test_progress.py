"""Progress lines during a long conversation: throttled, written with capture suspended."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import SimpleNamespace

from pytest_memorybench.reports.progress import TerminalProgress


class Reporter:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def ensure_newline(self) -> None:
        pass

    def write_line(self, line: str) -> None:
        self.lines.append(line)


class Capture:
    def __init__(self) -> None:
        self.suspended = 0

    @contextlib.contextmanager
    def global_and_fixture_disabled(self) -> Iterator[None]:
        self.suspended += 1
        yield


def config_with(reporter: Reporter, capture: Capture) -> SimpleNamespace:
    plugins = {"terminalreporter": reporter, "capturemanager": capture}
    return SimpleNamespace(pluginmanager=SimpleNamespace(getplugin=plugins.get))


def test_lines_report_tests_done_tokens_and_open_tests() -> None:
    reporter, capture = Reporter(), Capture()
    progress = TerminalProgress(config_with(reporter, capture), total_tests=3, interval=0)  # type: ignore[arg-type]
    progress({"event": "test_begin", "test": "ltm::colours[rep1]", "tokens": 10})
    progress({"event": "test_begin", "test": "ltm::jokes[rep1]", "tokens": 1200})
    progress({"event": "test_end", "test": "ltm::colours[rep1]", "tokens": 25100})
    assert reporter.lines[-1] == "[memorybench] 1/3 tests done · 25,100 tokens · open: jokes[rep1]"
    assert capture.suspended == 3


def test_lines_are_throttled() -> None:
    reporter = Reporter()
    progress = TerminalProgress(config_with(reporter, Capture()), total_tests=2, interval=3600)  # type: ignore[arg-type]
    progress({"event": "test_begin", "test": "ltm::colours[rep1]", "tokens": 0})
    progress({"event": "test_end", "test": "ltm::colours[rep1]", "tokens": 100})
    assert reporter.lines == []
