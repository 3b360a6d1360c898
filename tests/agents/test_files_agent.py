"""The grep agent (`files`): sessions as files of dated lines, its tools, its budget, and whole suites
on the scripted model."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from pytest_memorybench.agents.agent_build import build_mechanism
from pytest_memorybench.agents.mechanisms.files import Files
from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.core.records import Message
from tests.support.llm_server import LLMServer
from tests.support.memory_model import MemoryModelScript, scripted_memory_server
from tests.support.paths import REFERENCE
from tests.support.runs import QUIET, run_benchmark

LOCOMO = REFERENCE / "locomo" / "locomo10.json"


@pytest.fixture
def model() -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    with scripted_memory_server() as served:
        yield served


def files_agent(server: LLMServer, settings: str = "") -> Files:
    spec = parse_agent_spec(f"files{settings}:openai:fake-model@{server.openai_url}")
    agent = build_mechanism(spec, AgentOptions())
    assert isinstance(agent, Files)
    return agent


@pytest.mark.asyncio
async def test_sessions_are_files_of_dated_lines_the_tools_list_grep_and_read(model: Any) -> None:
    agent = files_agent(model[0])
    await agent.observe(
        [
            Message("My cat is called Mochi.", datetime(2023, 5, 1, 10, 0), "user", 0, "session_1"),
            Message("We moved to Porto.", datetime(2023, 5, 1, 10, 5), "user", 1, "session_1"),
            Message("Mochi hates the rain.", datetime(2023, 6, 2, 9, 0), "user", 2, "session_2"),
        ]
    )
    assert agent._run("list_sessions", {}) == (
        "session_1: 2 lines, 2023-05-01 to 2023-05-01\nsession_2: 1 lines, 2023-06-02 to 2023-06-02"
    )
    assert agent._run("grep", {"pattern": "MOCHI"}).splitlines() == [
        "session_1:1: [2023-05-01 10:00] user: My cat is called Mochi.",
        "session_2:1: [2023-06-02 09:00] user: Mochi hates the rain.",
    ]
    assert agent._run("grep", {"pattern": "mochi", "session": "session_2"}).count("\n") == 0
    assert (
        agent._run("read", {"session": "session_1", "start": 2})
        == "2: [2023-05-01 10:05] user: We moved to Porto."
    )
    assert agent._run("grep", {"pattern": "("}).startswith("error: not a regular expression")
    assert agent._run("read", {"session": "session_9"}).startswith("error: read needs")
    assert agent._run("rm", {}).startswith("error: no tool 'rm'")
    reply = await agent.reply(Message("What is my cat called?", datetime(2023, 7, 1)))
    assert reply == "My cat is called Mochi."
    assert "session_1:1: [2023-05-01 10:00] user: My cat is called Mochi." in await agent.context()
    assert agent.phase_usage["read"].calls == 2 and agent.phase_usage["write"].calls == 0
    await agent.aclose()


@pytest.mark.asyncio
async def test_out_of_calls_the_agent_must_answer_from_what_it_found(model: Any) -> None:
    server, script = model
    agent = files_agent(server, "(calls=1)")
    await agent.observe([Message("My cat is called Mochi.", datetime(2023, 5, 1), "user", 0, "s1")])
    reply = await agent.reply(Message("What is my cat called?", datetime(2023, 7, 1)))
    assert reply == "My cat is called Mochi."  # one grep, then the answer it was told to give now
    assert agent.phase_usage["read"].calls == 2 and script.asked["files"] == 2
    await agent.aclose()


@pytest.mark.parametrize(
    "suite",
    [
        "locomo",
        "ltm",
        # LoCoMo's published file, 200 questions of it: a whole run (the e2e group), where it is here
        pytest.param(
            "published locomo",
            marks=[
                pytest.mark.e2e,
                pytest.mark.skipif(not LOCOMO.exists(), reason="../shared/reference/locomo is not here"),
            ],
        ),
    ],
)
def test_the_grep_agent_runs_a_whole_suite_on_the_scripted_model_with_no_item_error(
    pytester: pytest.Pytester, model: Any, suite: str
) -> None:
    data = (f"--mb-data=locomo={LOCOMO}", "--mb-sample=200") if suite == "published locomo" else ()
    suite = suite.removeprefix("published ")
    results = run_benchmark(
        pytester,
        f"--agent=files:openai:fake-model@{model[0].openai_url}",
        f"--mb-suite={suite}",
        "--mb-profile=official",
        *QUIET,
        *data,
    ).results
    totals = results["totals"]
    assert not totals["errors"] and totals["max"] > 0 and totals["mean"] > 0
    assert totals["memory"]["read"]["calls"] > totals["max"]  # a grep, then the answer
    assert sum(totals["losses"]["counts"].values()) == totals["max"]
