"""Progress lines during a long conversation: throttled, written with capture suspended."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import pty
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.reports import progress as progress_module
from pytest_memorybench.reports.progress import TerminalProgress
from tests.support.paths import REPO
from tests.support.runs import QUIET

ROOT = REPO


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
    progress({"kind": "test_begin", "test": "ltm::colours[rep1]", "tokens": 10})
    progress({"kind": "test_begin", "test": "ltm::jokes[rep1]", "tokens": 1200})
    progress({"kind": "test_end", "test": "ltm::colours[rep1]", "tokens": 25100})
    assert reporter.lines[-1] == "[memorybench] 1/3 tests done · 25,100 tokens · open: jokes[rep1]"
    assert capture.suspended == 3


def test_concurrent_conversations_add_up_and_show_how_many_are_in_flight() -> None:
    reporter = Reporter()
    progress = TerminalProgress(
        config_with(reporter, Capture()), total_tests=lambda: 4, interval=0, in_flight=lambda: 3
    )  # type: ignore[arg-type]
    progress(
        {"kind": "test_begin", "test": "ltm::colours[rep1]", "group": "ltm::colours[rep1]", "tokens": 40}
    )
    progress({"kind": "test_begin", "test": "ltm::jokes[rep1]", "group": "ltm::jokes[rep1]", "tokens": 60})
    progress({"kind": "test_end", "test": "ltm::colours[rep1]", "group": "ltm::colours[rep1]", "tokens": 140})
    assert (
        reporter.lines[-1]
        == "[memorybench] 1/4 tests done · 200 tokens · 3 conversations in flight · open: jokes[rep1]"
    )
    progress({"kind": "note", "text": "conversations take turns"})
    assert reporter.lines[-1] == "memorybench: conversations take turns"


def test_lines_are_throttled() -> None:
    reporter = Reporter()
    progress = TerminalProgress(config_with(reporter, Capture()), total_tests=lambda: 2, interval=3600)  # type: ignore[arg-type]
    progress({"kind": "test_begin", "test": "ltm::colours[rep1]", "tokens": 0})
    progress({"kind": "test_end", "test": "ltm::colours[rep1]", "tokens": 100})
    assert reporter.lines == []


def test_lines_never_leave_a_result_letter_without_its_row(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress_module, "INTERVAL_SECONDS", 0.0)  # a line at every test
    result = pytester.runpytest(
        "--memorybench", "--agent=recall", "--span=2k", "-k", "colours or name_list", "-p", "no:randomly"
    )
    lines = result.stdout.lines
    rows = [line for line in lines if re.fullmatch(r"\S*\s*[.FEsx]+\s*(\[\s*\d+%\])?", line.strip())]
    assert rows and all(row.startswith("ltm ") for row in rows), "\n".join(lines)
    progress = [line for line in lines if line.startswith("[memorybench] ")]
    assert progress[-1].startswith("[memorybench] 6/6 tests done"), "counted against the selected tests"


class Writer:
    """pytest's terminal writer as the status uses it: its width, the row so far, the file."""

    def __init__(self) -> None:
        self._file = io.StringIO()
        self.fullwidth = 60
        self.width_of_current_line = 10


class TerminalReporter(Reporter):
    isatty = True

    def __init__(self) -> None:
        super().__init__()
        self._tw = Writer()


def test_on_a_terminal_the_status_is_rewritten_in_place_and_erased_for_pytest() -> None:
    reporter = TerminalReporter()
    progress = TerminalProgress(config_with(reporter, Capture()), total_tests=lambda: 2, interval=0.01)  # type: ignore[arg-type]
    progress({"kind": "test_begin", "test": "ltm::colours[rep1]", "tokens": 40})

    async def wait_a_little() -> None:
        fresh = asyncio.get_running_loop().create_task(progress.keep_fresh())
        await asyncio.sleep(0.05)
        fresh.cancel()

    asyncio.run(wait_a_little())
    progress.clear()  # pytest is about to write the item's result
    written = reporter._tw._file.getvalue()
    status = "  [memorybench] 0/2 tests done · 40 tokens · open: colours[rep1]"[: 60 - 10 - 8]
    drawn = written.split("\x1b[K")
    assert len(drawn) > 2 and drawn[-1] == ""  # drawn again and again, and erased at the end
    assert all(piece.endswith(f"\x1b[{len(status)}D") for piece in drawn[:-1])
    assert status in written and reporter.lines == []  # no full lines on a terminal


@pytest.mark.e2e  # a whole run in a process of its own, on a pseudo-terminal
def test_on_a_real_terminal_the_rows_read_as_pytest_wrote_them(tmp_path: Path) -> None:
    """Under a pseudo-terminal: the status shows while the agent thinks, and once every status is
    taken back by its erasing sequence, what is left is pytest's own row."""
    primary, secondary = pty.openpty()
    env = {**os.environ, "SLOW_AGENT_SECONDS": "0.4", "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--memorybench",
        "--agent=tests.bench.slow_agent:make_agent",
        "--span=isolated",
        "-k",
        "colours or sallyanne",
        *QUIET,
        f"--mb-output={tmp_path / 'run'}",
    ]
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary
    )
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(primary)
    raw = b"".join(chunks).decode()
    assert "  [memorybench] " in raw, raw
    shown = re.sub(r"  \[memorybench\][^\x1b\r\n]*\x1b\[\d+D\x1b\[K", "", raw)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", shown)
    assert "[memorybench]" not in plain and "\x1b[" not in plain
    rows = [
        line.strip() for line in plain.splitlines() if re.fullmatch(r"ltm [.F]+\s+\[\s*\d+%\]", line.strip())
    ]
    assert len(rows) == 1 and rows[0].startswith("ltm ...FFF "), plain


def test_an_estimate_counts_each_test_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--mb-estimate` plays the tests again for other context windows: the count stays at the tests."""
    monkeypatch.setattr(progress_module, "INTERVAL_SECONDS", 0.0)
    result = pytester.runpytest(
        "--memorybench", "--mb-estimate", "--agent=openai:gpt-4o-mini", "--span=isolated", "-p", "no:randomly"
    )
    progress = [line for line in result.stdout.lines if line.startswith("[memorybench] ")]
    counts = [re.match(r"\[memorybench\] (\d+)/(\d+) tests done", line) for line in progress]
    assert counts and all(match and int(match[1]) <= int(match[2]) == 30 for match in counts), progress
    assert progress[-1].startswith("[memorybench] 30/30 tests done"), progress


def test_the_progress_follows_the_log_and_counts_what_a_resume_retells(tmp_path: Path) -> None:
    """The terminal is a subscriber of the run's event log: what a resumed conversation replays is
    retold to it (counted again, since this session's total counts it) but not written twice."""
    reporter = Reporter()
    progress = TerminalProgress(config_with(reporter, Capture()), total_tests=lambda: 2, interval=0)  # type: ignore[arg-type]
    log = EventLog(tmp_path / "events.jsonl")
    log.subscribe(progress)
    log.retell("test_begin", group="c1", test="ltm::colours[rep1]", tokens=10)
    log.retell("test_end", group="c1", test="ltm::colours[rep1]", tokens=50)
    log.emit("test_begin", group="c1", test="ltm::jokes[rep1]", tokens=60)
    log.emit("message", group="c1", text="What is my favourite colour?")
    log.close()
    assert reporter.lines[-1] == "[memorybench] 1/2 tests done · 60 tokens · open: jokes[rep1]"
    written = [json.loads(line)["kind"] for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert written == ["log_begin", "test_begin", "message"]
