"""Interruptions end a run cleanly, and a killed run resumes to the results of an uninterrupted one.

The agent stops its own run at a chosen reply (a signal to its own process), so every stop point is
exact and the tests are deterministic: Ctrl-C (SIGINT), SIGTERM (how CI cancels a job), and
SIGKILL at several points of the conversation.
"""

from __future__ import annotations

import json
import signal as signal_module
from pathlib import Path

import pytest

import pytest_memorybench.agents.reference.extractive  # noqa: F401  (the stopping agent builds on it)
from tests.support.runs import QUIET, results_in

pytestmark = pytest.mark.e2e

pytest_plugins = ["pytester"]

STOPPING_AGENT = '''
import asyncio, os, signal
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent

class Stopping(ExtractiveAgent):
    """The recall baseline, counting its replies in a file, that signals its own process at reply N
    and, when told to, takes its time over each reply."""

    def __init__(self):
        super().__init__()
        self.replies = 0

    async def reply(self, message):
        self.replies += 1
        with open(os.environ["MB_REPLIES"], "a") as log:
            log.write("reply\\n")
        if self.replies == int(os.environ.get("MB_STOP_AT", "0")):
            os.kill(os.getpid(), getattr(signal, os.environ["MB_SIGNAL"]))
        await asyncio.sleep(float(os.environ["MB_DELAY"]))
        return await super().reply(message)

def make():
    return Stopping()
'''
RUN = (
    *QUIET,
    "--memorybench",
    "--agent=stopping:make",
    "--span=2k",
    "-k",
    "colours or name_list",
)
ASYNCIO_NOISE = (
    "Task was destroyed",
    "Event loop is closed",
    "Task exception was never retrieved",
    "Traceback",
)


@pytest.fixture
def stopping(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(stopping=STOPPING_AGENT)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=":")
    return pytester


def run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    folder: str,
    *args: str,
    stop_at: int = 0,
    signal: str = "SIGINT",
    delay: float = 0.0,
) -> tuple[pytest.RunResult, int]:
    """One run; returns it and how many replies the agent gave (asked) in it."""
    replies = pytester.path / f"{folder}-replies-{len(list(pytester.path.glob(f'{folder}-replies-*')))}.txt"
    replies.write_text("")
    monkeypatch.setenv("MB_REPLIES", str(replies))
    monkeypatch.setenv("MB_STOP_AT", str(stop_at))
    monkeypatch.setenv("MB_SIGNAL", signal)
    monkeypatch.setenv("MB_DELAY", str(delay))
    result = pytester.runpytest_subprocess(*RUN, *args)
    return result, len(replies.read_text().splitlines())


def scores(folder: Path) -> dict[str, float]:
    results = results_in(folder)
    return {item["nodeid"]: item["score"] for item in results["items"]}


_REFERENCE: list[tuple[dict[str, float], int]] = []


@pytest.fixture
def reference(stopping: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, float], int]:
    """The uninterrupted run (made once): its scores, and the replies it asked for."""
    if not _REFERENCE:
        result, replies = run(stopping, monkeypatch, "reference", "--mb-output=reference")
        assert result.ret == 1  # the recall baseline fails some items: a normal run
        _REFERENCE.append((scores(stopping.path / "reference"), replies))
    return _REFERENCE[0]


@pytest.mark.parametrize(
    ("signal", "reason"), [("SIGINT", "interrupted by Ctrl-C"), ("SIGTERM", "terminated by SIGTERM")]
)
def test_a_signal_ends_the_run_cleanly_with_partial_results_and_a_resume_line(
    stopping: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    reference: tuple[dict[str, float], int],
    signal: str,
    reason: str,
) -> None:
    expected, total = reference
    result, asked = run(stopping, monkeypatch, "cut", "--mb-output=cut", stop_at=total // 2, signal=signal)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    output = result.stdout.str() + result.stderr.str()
    assert not [noise for noise in ASYNCIO_NOISE if noise in output], output
    result.stdout.fnmatch_lines(
        [
            "interrupted: resume with pytest --memorybench --mb-resume=cut (* of 6 tests have results;"
            f" {reason})"
        ]
    )
    partial = results_in(stopping.path / "cut")["run"]["partial"]
    assert partial["reason"] == reason and 0 < partial["tests_with_results"] < 6
    assert "partial run" in (stopping.path / "cut" / "report.html").read_text()
    assert (
        scores(stopping.path / "cut").items() <= expected.items()
    )  # what finished, scored as in a whole run

    resumed, asked_again = run(stopping, monkeypatch, "cut", "--mb-resume=cut")
    assert resumed.ret == 1
    assert scores(stopping.path / "cut") == expected
    assert asked + asked_again == total + 1  # only the reply in flight is asked twice


def test_ctrl_c_stops_a_run_started_with_sigint_ignored(
    stopping: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run a shell script started in the background (`pytest … &`, as CI runners start jobs)
    inherits SIGINT ignored; Ctrl-C or `kill -INT` still stops it with its results and resume line."""
    previous = signal_module.signal(signal_module.SIGINT, signal_module.SIG_IGN)  # what the child inherits
    try:
        result, _ = run(stopping, monkeypatch, "ignored", "--mb-output=ignored", stop_at=5)
    finally:
        signal_module.signal(signal_module.SIGINT, previous)
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()[-2000:]
    result.stdout.fnmatch_lines(
        [
            "interrupted: resume with pytest --memorybench --mb-resume=ignored (* of 6 tests have results;"
            " interrupted by Ctrl-C)"
        ]
    )


@pytest.mark.parametrize("stop_at", [1, 7, 18, 29])
def test_kill_9_loses_at_most_the_exchange_in_flight(
    stopping: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    reference: tuple[dict[str, float], int],
    stop_at: int,
) -> None:
    expected, total = reference
    assert stop_at < total
    killed, asked = run(
        stopping, monkeypatch, "killed", "--mb-output=killed", stop_at=stop_at, signal="SIGKILL"
    )
    assert killed.ret == -9 and asked == stop_at
    resumed, asked_again = run(stopping, monkeypatch, "killed", "--mb-resume=killed")
    assert resumed.ret == 1
    assert scores(stopping.path / "killed") == expected
    assert asked_again == total - stop_at + 1  # the reply the kill cut off is asked again, nothing before it


def test_maxfail_writes_what_finished_and_says_how_to_go_on(
    stopping: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Isolated, each test is its own conversation: `-x` leaves some never driven.

    The agent takes 0.2 s a reply, so the last conversations are still being driven when the first
    failure stops pytest (an instant agent can finish all six first: then nothing stopped early).
    """
    result, _ = run(stopping, monkeypatch, "x", "--mb-output=x", "--span=isolated", "-x", delay=0.2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "stopped early: resume with pytest --memorybench --mb-resume=x (? of 6 tests have results;"
            " stopping after 1 failures)"
        ]
    )
    partial = results_in(stopping.path / "x")["run"]["partial"]
    assert partial["tests_selected"] == 6 and partial["tests_with_results"] < 6


RECORDING_AGENT = '''
import json, os, signal
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent

class Recording(ExtractiveAgent):
    """The recall baseline, noting how it is told things: replies (with their times) and, after a
    resume, what it observes and what it catches up on; it signals its own process at reply N."""

    def __init__(self):
        super().__init__()
        self.replies = 0

    def note(self, kind, messages):
        with open(os.environ["MB_TOLD"], "a") as log:
            said = [[m.role, m.text, m.timestamp.isoformat()] for m in messages]
            log.write(json.dumps([kind, said]) + "\\n")

    async def reply(self, message):
        self.replies += 1
        self.note("reply", [message])
        if self.replies == int(os.environ.get("MB_STOP_AT", "0")):
            os.kill(os.getpid(), signal.SIGKILL)
        return await super().reply(message)

    async def observe(self, messages):
        self.note("observe", messages)
        return await super().observe(messages)

    async def catch_up(self, messages):
        self.note("catch_up", messages)
        return await super().observe(messages)

def make():
    return Recording()
'''


def test_a_resumed_agent_catches_up_on_its_replies_and_observes_what_it_observed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(recording=RECORDING_AGENT)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=":")
    told = pytester.path / "told.jsonl"
    monkeypatch.setenv("MB_TOLD", str(told))
    args = (
        *QUIET,
        "--memorybench",
        "--agent=recording:make",
        "--span=4k",
        "-k",
        "colours and rep1",
    )
    monkeypatch.setenv("MB_STOP_AT", "3")
    killed = pytester.runpytest_subprocess(*args, "--mb-output=run")
    assert killed.ret == -9
    first = [json.loads(line) for line in told.read_text().splitlines()]
    told.write_text("")
    monkeypatch.setenv("MB_STOP_AT", "0")
    pytester.runpytest_subprocess(*args, "--mb-resume=run")
    again = [json.loads(line) for line in told.read_text().splitlines()]
    replied = [message for kind, messages in first if kind == "reply" for message in messages][
        :2
    ]  # the third was cut
    caught_up = [
        message
        for kind, messages in again
        if kind == "catch_up"
        for message in messages
        if message[0] == "user"
    ]
    assert caught_up == replied, "each earlier reply's message, with the time it was sent"
    observed = [message for kind, messages in first if kind == "observe" for message in messages]
    assert (
        observed
        and [m for kind, messages in again if kind == "observe" for m in messages][: len(observed)]
        == observed
    )
