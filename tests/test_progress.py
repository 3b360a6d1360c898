"""Progress lines during a long conversation: throttled, written with capture suspended."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

import pytest_memorybench.agents.recall  # noqa: F401  (numpy must load outside pytester's inner runs)
from pytest_memorybench.reports import progress as progress_module
from pytest_memorybench.reports.progress import TerminalProgress


class Reporter:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.currentfspath = None

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
    progress = TerminalProgress(config_with(reporter, capture), total_tests=lambda: 3, interval=0)  # type: ignore[arg-type]
    progress({"event": "test_begin", "test": "ltm::colours[rep1]", "tokens": 10})
    progress({"event": "test_begin", "test": "ltm::jokes[rep1]", "tokens": 1200})
    progress({"event": "test_end", "test": "ltm::colours[rep1]", "tokens": 25100})
    assert reporter.lines[-1] == "[memorybench] 1/3 tests done · 25,100 tokens · open: jokes[rep1]"
    assert capture.suspended == 3


def test_concurrent_conversations_add_up_and_show_how_many_are_in_flight() -> None:
    reporter = Reporter()
    progress = TerminalProgress(config_with(reporter, Capture()), total_tests=lambda: 4, interval=0, in_flight=lambda: 3)  # type: ignore[arg-type]
    progress({"event": "test_begin", "test": "ltm::colours[rep1]", "group": "ltm::colours[rep1]", "tokens": 40})
    progress({"event": "test_begin", "test": "ltm::jokes[rep1]", "group": "ltm::jokes[rep1]", "tokens": 60})
    progress({"event": "test_end", "test": "ltm::colours[rep1]", "group": "ltm::colours[rep1]", "tokens": 140})
    assert reporter.lines[-1] == "[memorybench] 1/4 tests done · 3 conversations in flight · 200 tokens · open: jokes[rep1]"
    progress({"event": "note", "text": "conversations take turns"})
    assert reporter.lines[-1] == "memorybench: conversations take turns"


def test_lines_are_throttled() -> None:
    reporter = Reporter()
    progress = TerminalProgress(config_with(reporter, Capture()), total_tests=lambda: 2, interval=3600)  # type: ignore[arg-type]
    progress({"event": "test_begin", "test": "ltm::colours[rep1]", "tokens": 0})
    progress({"event": "test_end", "test": "ltm::colours[rep1]", "tokens": 100})
    assert reporter.lines == []


def test_lines_never_leave_a_result_letter_without_its_row(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module, "INTERVAL_SECONDS", 0.0)  # a line at every test
    result = pytester.runpytest("--memorybench", "--agent=recall", "--span=2k", "-k", "colours or name_list", "-p", "no:randomly")
    lines = result.stdout.lines
    rows = [line for line in lines if re.fullmatch(r"\S*\s*[.FEsx]+\s*(\[\s*\d+%\])?", line.strip())]
    assert rows and all(row.startswith("ltm ") for row in rows), "\n".join(lines)
    progress = [line for line in lines if line.startswith("[memorybench] ")]
    assert progress[-1].startswith("[memorybench] 6/6 tests done"), "counted against the selected tests"
