"""Hostile agents and servers: each becomes a per-item error or a retried call, and a run goes on."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

import pytest_memorybench.agents.reference.extractive  # noqa: F401  (inner runs import it)
from pytest_memorybench.agents.agent_protocol import (
    MAX_REPLY_CHARS,
    AgentAdapter,
    bounded_reply,
)
from pytest_memorybench.core.errors import AgentError, UsageError
from pytest_memorybench.core.records import Message
from pytest_memorybench.models.openai import OpenAIChatAgent
from pytest_memorybench.runner.folder import claim
from tests.support.llm_server import LLMServer
from tests.support.runs import QUIET, results_in

pytest_plugins = ["pytester"]
FAST = {"min_wait": 0.01, "max_wait": 0.05, "timeout": 5.0, "max_attempts": 2}


def said(text: str) -> Message:
    return Message(text, datetime(2024, 1, 1, 12, 0))


# -- what an agent returns ------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("returned", "kind"), [(None, "NoneType"), (b"bytes", "bytes"), ({"text": "hi"}, "dict"), (42, "int")]
)
async def test_a_reply_that_is_not_text_is_one_line(returned: Any, kind: str) -> None:
    adapter = AgentAdapter(lambda text: returned, "odd")
    with pytest.raises(AgentError, match=f"^agent odd returned {kind}, expected str$"):
        await adapter.reply(said("hi"))


def test_a_runaway_reply_is_cut_and_says_how_long_it_was() -> None:
    text, cut = bounded_reply("x" * 10_000_000)
    assert len(text) == MAX_REPLY_CHARS and cut == 10_000_000
    assert bounded_reply("short") == ("short", None)


def test_unwritable_characters_become_replacement_characters_and_control_characters_stay() -> None:
    broken = b"caf\xe9 \x00\x07 ok".decode("utf-8", "surrogateescape")
    text, _ = bounded_reply(broken)
    assert text == "caf\ufffd \x00\x07 ok"
    text.encode("utf-8")  # writable


@pytest.mark.asyncio
async def test_a_sync_agent_that_hangs_is_given_up_at_the_timeout_and_its_late_answer_ignored() -> None:
    release, answered = threading.Event(), threading.Event()

    def hangs(text: str) -> str:
        release.wait(60)  # until the test lets it go
        answered.set()
        return "too late"

    adapter = AgentAdapter(hangs, "slow", timeout=0.2)
    with pytest.raises(AgentError, match="gave no reply within 0.2 s"):
        await adapter.reply(said("hi"))
    assert not answered.is_set(), "given up at the timeout, while the agent still hung"
    release.set()
    assert await asyncio.to_thread(answered.wait, 60)
    await asyncio.sleep(0.05)  # the late answer arrives and is dropped, no error


def _hostile_run(pytester: pytest.Pytester, agent: str, span: str, select: str, *extra: str) -> Any:
    """One run of `agent`, its folder `out`."""
    return pytester.runpytest(
        *QUIET,
        "--memorybench",
        f"--agent={agent}",
        f"--span={span}",
        "-k",
        select,
        "--mb-output=out",
        *extra,
    )


@pytest.mark.e2e  # a whole run in a process of its own, which must end
def test_a_hung_sync_agent_does_not_keep_python_from_exiting(pytester: pytest.Pytester) -> None:
    """After an interruption the agent's thread is abandoned: the process ends anyway."""
    pytester.makepyfile(hung="import time\n\ndef make():\n    return lambda text: time.sleep(3600)\n")
    result = pytester.runpytest_subprocess(  # a process of its own: that it ends is the test
        *QUIET,
        "--memorybench",
        "--agent=hung:make",
        "--span=isolated",
        "-k",
        "colours[rep1]",
        "--mb-output=out",
        "--mb-timeout=0.5",
        timeout=120,
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*agent hung:make gave no reply within 0.5 s*"])


def test_a_runaway_agent_writes_a_bounded_run_folder(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(runaway="def make():\n    return lambda text: 'x' * 10_000_000\n")
    result = _hostile_run(pytester, "runaway:make", "isolated", "colours")
    result.assert_outcomes(failed=3)
    out = pytester.path / "out"
    sizes = {name: (out / name).stat().st_size for name in ("events.jsonl", "results.json", "report.html")}
    assert all(size < 3_000_000 for size in sizes.values()), sizes
    replies = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert {event.get("cut_from") for event in replies if event["kind"] == "reply"} == {10_000_000}
    assert "more characters in events.jsonl" in (out / "report.html").read_text()


def test_a_runaway_agent_that_takes_filler_in_saving_mode_runs_to_the_end(pytester: pytest.Pytester) -> None:
    """Cut replies and observed filler in one conversation (the cut is the reply's, not the filler's)."""
    pytester.makepyfile(
        observer="class Agent:\n    def reply(self, message):\n        return 'x' * 200_000\n\n"
        "    def observe(self, messages):\n        pass\n\n\ndef make():\n    return Agent()\n"
    )
    result = _hostile_run(pytester, "observer:make", "200k", "colours and rep1")
    result.assert_outcomes(failed=1)
    events = [json.loads(line) for line in (pytester.path / "out" / "events.jsonl").read_text().splitlines()]
    assert any(event["kind"] == "observed" for event in events)
    assert {event.get("cut_from") for event in events if event["kind"] == "reply"} == {200_000}
    results = results_in(pytester.path / "out")
    assert [item["error"] for item in results["items"]] == [None]  # a score below threshold, not a crash


# -- what a server answers --------------------------------------------------------------------------


@pytest_asyncio.fixture
async def agent(llm_server: LLMServer) -> AsyncIterator[OpenAIChatAgent]:
    chat = OpenAIChatAgent("fake-model", base_url=llm_server.openai_url, api_key="sk-test-0123456789", **FAST)
    yield chat
    await chat.aclose()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("script", "message"),
    [
        (
            {"body": "{not json", "times": 2},
            "gave up after 2 attempts: the server's answer is not a chat completion: '{not json'",
        ),
        (
            {
                "body": '{"choices": [{"message": {"content": "cut',
                "headers": {"Content-Type": "application/json"},
                "times": 2,
            },
            (
                "gave up after 2 attempts: a reply that is not JSON (Unterminated string starting at,"
                " character 37)"
            ),
        ),
        (
            {"body": "<html>Bad gateway</html>", "times": 2},
            (
                "gave up after 2 attempts: the server's answer is not a chat completion: '<html>Bad"
                " gateway</html>'"
            ),
        ),
        (
            {
                "body": {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []},
                "times": 2,
            },
            "gave up after 2 attempts: the server returned no choices",
        ),
        (
            {
                "body": {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "m",
                    "choices": [{"index": 0, "message": {"role": "assistant"}}],
                },
                "times": 2,
            },
            "gave up after 2 attempts: the server's answer has no content",
        ),
        ({"status": 503, "body": "<html>busy</html>", "times": 2}, "gave up after 2 attempts: HTTP 503 *"),
        ({"status": 409, "times": 2}, "gave up after 2 attempts: HTTP 409 *"),
        ({"status": 425, "times": 2}, "gave up after 2 attempts: HTTP 425 *"),
        (
            {"drop": True, "times": 2},
            "gave up after 2 attempts: the connection to * broke (RemoteProtocolError: *",
        ),
        (
            {"truncate": 10, "times": 2},
            "gave up after 2 attempts: the connection to * broke (RemoteProtocolError: *",
        ),
        ({"status": 500, "times": 2}, "gave up after 2 attempts: HTTP 500 *"),
        ({"status": 429, "times": 2}, "gave up after 2 attempts: HTTP 429 *"),
    ],
)
async def test_a_broken_answer_is_one_line(
    agent: OpenAIChatAgent, llm_server: LLMServer, script: dict[str, Any], message: str
) -> None:
    llm_server.queue(**script)
    with pytest.raises(AgentError) as error:
        await agent.reply(said("hi"))
    line = str(error.value)
    assert "\n" not in line
    from fnmatch import fnmatch

    assert fnmatch(line, f"openai:fake-model@*: {message}"), line


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "script",
    [
        {"drop": True},
        {"truncate": 10},
        {"status": 429, "headers": {"retry-after": "0"}},
        {"status": 429},
        {"status": 503, "body": "<html>busy</html>"},
        {"body": "<html>no</html>"},
        {"body": '{"choices": [{"mess', "headers": {"Content-Type": "application/json"}},
    ],
)
async def test_a_passing_failure_is_retried(
    agent: OpenAIChatAgent, llm_server: LLMServer, script: dict[str, Any]
) -> None:
    llm_server.queue(**script)
    assert await agent.reply(said("hi")) == "echo: hi"
    assert len(llm_server.requests) == 2


# -- one folder, one run ------------------------------------------------------------------------------


def test_a_second_claim_on_a_run_folder_is_refused(tmp_path: Path) -> None:
    held = claim(tmp_path / "run", "--mb-output")
    try:
        with pytest.raises(UsageError, match="another pytest-memorybench run is using this folder"):
            claim(tmp_path / "run", "--mb-output")
    finally:
        held.release()
    claim(tmp_path / "run", "--mb-output").release()  # free again once the first run ended


def test_a_run_on_a_folder_another_run_holds_stops_before_writing(pytester: pytest.Pytester) -> None:
    quick = ("-p", "no:randomly", "--memorybench", "--agent=recall", "--span=isolated", "-k", "colours")
    pytester.runpytest(*quick, "--mb-output=shared").assert_outcomes(passed=3)
    events = (pytester.path / "shared" / "events.jsonl").read_bytes()
    held = claim(pytester.path / "shared", "--mb-output")
    try:
        for flag in ("--mb-output=shared", "--mb-resume=shared"):
            result = pytester.runpytest(*quick, flag)
            assert result.ret == pytest.ExitCode.USAGE_ERROR
            assert (
                "another pytest-memorybench run is using this folder; wait for it to end"
                in result.stderr.str()
            )
            assert (pytester.path / "shared" / "events.jsonl").read_bytes() == events
    finally:
        held.release()
