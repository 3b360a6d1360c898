"""A run stopped by Ctrl-C resumes with the command it prints, run as printed, and counts everything.

A priced model on the loopback server answers; the server sends the run SIGINT as it receives
its Nth request (and answers that one late, so it is in flight).  The interrupted run's summary
counts what it asked and what it scored; the printed `pytest --memorybench --mb-resume=DIR`,
given nothing else, finishes it with the uninterrupted run's scores, calls, tokens and cost: the
answers it takes from the log bring what they cost.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.scenarios.locomo.generator import write_locomo
from tests.support.llm_server import LLMServer, RecordedRequest, Scripted
from tests.support.runs import QUIET, results_in

pytestmark = pytest.mark.e2e

CHAT = "/v1/chat/completions"
PRICE = "--mb-price=fake-model=2,8"  # USD per million tokens in, out: every call costs something
SUITES = {
    "locomo": ("--mb-suite=locomo", "--mb-data=locomo={data}", "--mb-sample=30"),
    "ltm": ("--span=2k", "-k", "colours or name_list or shopping"),
}
SPENT = ("agent_calls", "agent_tokens_in", "agent_tokens_out", "cost_usd")
RESUME = re.compile(r"^interrupted: resume with (.+) \((\d+) of (\d+) tests have results; (.+)\)$", re.M)


def pytest_run(folder: Path, words: list[str], server: LLMServer, stop_at: int = 0) -> tuple[int, str]:
    """`pytest WORDS…` in `folder`, in a process of its own; at the server's `stop_at`-th request the
    process gets SIGINT (and that request its answer a second later)."""
    env = {
        **os.environ,
        "OPENAI_API_KEY": "sk-test",
        "PYTEST_ADDOPTS": " ".join(QUIET),  # for the printed command too: nothing added to it
    }
    assert words[0] == "pytest"
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", *words[1:]],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    asked = 0

    def interrupt(request: RecordedRequest) -> Scripted | None:
        nonlocal asked
        asked += request.path == CHAT
        if request.path == CHAT and asked == stop_at:
            os.kill(process.pid, signal.SIGINT)
            return Scripted(delay=1.0)
        return None

    server.faults = interrupt if stop_at else None
    output, _ = process.communicate(timeout=600)
    server.faults = None
    return process.returncode, output


def spent(results: dict[str, Any]) -> dict[str, Any]:
    return {name: results["totals"][name] for name in SPENT}


def scores(results: dict[str, Any]) -> dict[str, float | None]:
    return {item["nodeid"]: item["score"] for item in results["items"]}


def logged(folder: Path, kind: str) -> list[dict[str, Any]]:
    return [
        event
        for path in sorted(folder.glob("events*.jsonl"))
        for event in map(json.loads, path.read_text().splitlines())
        if event["kind"] == kind
    ]


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_ctrl_c_then_the_printed_resume_command_counts_what_the_uninterrupted_run_does(
    tmp_path: Path, llm_server: LLMServer, suite: str
) -> None:
    data, _ = write_locomo(tmp_path / "data", conversations=4)
    run = [
        "pytest",
        "--memorybench",
        f"--agent=openai:fake-model@{llm_server.openai_url}",
        PRICE,
        *(word.format(data=data) for word in SUITES[suite]),
    ]
    code, output = pytest_run(tmp_path, [*run, "--mb-output=whole"], llm_server)
    assert code == 1, output[-3000:]
    whole = results_in(tmp_path / "whole")
    requests = len(llm_server.requests_to(CHAT))
    assert whole["totals"]["agent_calls"] == requests and whole["totals"]["cost_usd"] > 0

    code, output = pytest_run(tmp_path, [*run, "--mb-output=cut"], llm_server, stop_at=requests // 2)
    assert code == pytest.ExitCode.INTERRUPTED, output[-3000:]
    stopped = RESUME.search(output)
    assert stopped is not None, output[-3000:]
    command, done, _, reason = stopped.groups()
    assert command == "pytest --memorybench --mb-resume=cut" and reason == "interrupted by Ctrl-C"
    cut = results_in(tmp_path / "cut")
    scored = {event["test"] for event in logged(tmp_path / "cut", "score")}
    assert {key for key, score in scores(cut).items() if score is not None} == scored
    assert int(done) == len(cut["items"]) == cut["run"]["partial"]["tests_with_results"]
    answered = logged(tmp_path / "cut", "probe_answer" if suite == "locomo" else "reply")
    assert 0 < len(answered) <= cut["totals"]["agent_calls"] < requests, "the summary counts what was asked"
    assert f"{cut['totals']['agent_calls']} calls" in output

    code, output = pytest_run(tmp_path, shlex.split(command), llm_server)
    assert code == 1, output[-3000:]
    resumed = results_in(tmp_path / "cut")
    assert scores(resumed) == scores(whole)
    assert spent(resumed) == pytest.approx(spent(whole)), "what the log held brings what it cost"
    asked = len(llm_server.requests_to(CHAT)) - requests  # by the interrupted run and its resume
    assert requests <= asked < 2 * requests, "only the replies in flight are asked twice"
