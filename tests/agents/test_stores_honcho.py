"""Honcho through its SDK against a loopback server of its endpoints (tests/support/honcho_server.py): a
workspace per conversation, a Honcho session per session of the benchmark, dated messages, the
queue waited on, and answers from Honcho's own chat.  Skipped where the SDK is not installed."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from pytest_memorybench.scenarios.locomo.generator import write_locomo
from tests.support.honcho_server import HonchoServer, honcho_server
from tests.support.memory_model import scripted_memory_server
from tests.support.runs import results_in, usage_error_line
from tests.support.store_runs import product_server, two_scenarios

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)
NO_MODEL = "http://127.0.0.1:9/v1"
KEY = "HONCHO_API_KEY"


@pytest.fixture
def honcho(monkeypatch: pytest.MonkeyPatch) -> Iterator[HonchoServer]:
    with product_server(honcho_server, "honcho", KEY, monkeypatch) as server:
        yield server


def _spec(server: HonchoServer, model_url: str = NO_MODEL) -> str:
    return f"honcho(url={server.base_url},poll=0.01):openai:fake-model@{model_url}"


@pytest.mark.asyncio
async def test_honcho_adds_each_session_dated_waits_for_its_queue_and_answers_itself(
    honcho: HonchoServer,
) -> None:
    honcho.process_polls = 3
    client = store_client(parse_agent_spec(_spec(honcho)), AgentOptions())
    assert client.answers, "Honcho answers the questions itself"
    await client.clear("conv-a")
    june = WHEN.replace(month=6)
    await client.add(
        [
            Message("My locker code is 4512.", WHEN, "user", 0, "s1"),
            Message("Noted.", WHEN, "assistant", 1, "s1"),
            Message("The bike shed is blue.", june, "user", 2, "s2"),
        ],
        "conv-a",
    )
    adds = [r for r in honcho.requests if honcho.adds(r)]
    assert [r.path for r in adds] == [
        "/v3/workspaces/conv-a/sessions/session-s1/messages",
        "/v3/workspaces/conv-a/sessions/session-s2/messages",
    ], "a Honcho session a session of the benchmark"
    assert adds[0].body["messages"][0] == {
        "content": "My locker code is 4512.",
        "peer_id": "user",
        "created_at": "2024-05-01T09:00:00Z",
    }
    assert adds[0].body["messages"][1]["peer_id"] == "assistant"
    assert await client.answer("What is my locker code?", "conv-a") == "I don't know.", "not yet derived"
    await client.wait("conv-a")
    assert honcho.paths("GET").count("/v3/workspaces/conv-a/queue/status") == 3, "polled until done"
    assert await client.answer("What is my locker code?", "conv-a") == "My locker code is 4512."
    told = "The current date is 2024-06-02 10:00. Answer with a short phrase."
    assert await client.answer("What is my locker code?", "conv-a", instructions=told)
    (*_, chat) = (r for r in honcho.requests if r.path.endswith("/chat"))
    assert chat.body["query"] == f"{told}\n\nWhat is my locker code?", "dated and instructed"
    found = await client.search("What colour is the bike shed?", "conv-a", 1)
    assert [hit.line for hit in found] == ["[2024-06-01 09:00] The bike shed is blue."], "at k, dated"
    await client.clear("conv-a")
    assert "conv-a" not in honcho.workspaces
    await client.close()


def test_honcho_has_no_vendor_profile_and_a_missing_sdk_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UsageError, match="honcho has no published harness"):
        parse_agent_spec(f"honcho(profile=vendor):openai:fake-model@{NO_MODEL}")
    monkeypatch.setitem(sys.modules, "honcho", None)
    with pytest.raises(UsageError, match=r"pip install 'pytest-memorybench\[honcho\]'"):
        store_client(parse_agent_spec(f"honcho:openai:fake-model@{NO_MODEL}"), AgentOptions())


def test_a_refused_key_stops_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester, honcho: HonchoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY, "revoked")
    with scripted_memory_server() as (model, _):
        agent = _spec(honcho, model.openai_url)
        result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", f"--agent={agent}")
    assert f"refused the key (HTTP 401): set {KEY} to a valid key" in usage_error_line(result)
    assert len(honcho.requests) == 1, "a refused key is not retried"


@pytest.mark.e2e
def test_honcho_answers_the_ltm_suite_itself_a_workspace_per_conversation(
    pytester: pytest.Pytester, honcho: HonchoServer
) -> None:
    with scripted_memory_server() as (model, script):
        results = two_scenarios(pytester, _spec(honcho, model.openai_url))
    store = results["totals"]["store"]
    assert store["native_answers"] > 0 and not script.answer_prompts, "Honcho answered, not the model"
    workspaces = {ws for r in honcho.requests if (ws := honcho.namespace(r))}
    assert len(workspaces) >= len(results["conversations"]) + 1, "one for each conversation, and the check's"


@pytest.mark.e2e
def test_honcho_runs_a_locomo_sample_without_an_error_and_never_adds_across_sessions(
    pytester: pytest.Pytester, honcho: HonchoServer
) -> None:
    data, _ = write_locomo(pytester.path / "data", seed=3, conversations=1, sessions=4)
    run = pytester.path / "run"
    with scripted_memory_server() as (model, _):
        result = pytester.runpytest(
            "--memorybench", "--mb-suite=locomo", f"--mb-data=locomo={data}", "-p", "no:cacheprovider",
            f"--agent={_spec(honcho, model.openai_url)}", f"--mb-output={run}",
        )  # fmt: skip
    totals: Any = results_in(run)["totals"]
    assert not totals["errors"] and totals["max"] >= 10, result.stdout.str()[-3000:]
    for add in (r for r in honcho.requests if honcho.adds(r)):
        days = {message["created_at"][:10] for message in add.body["messages"]}
        assert len(days) == 1, f"one add held the days {sorted(days)}"
