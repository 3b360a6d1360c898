"""EverMemOS through its client against a loopback server of its endpoints (support/evermemos_server.py):
a group per conversation, one dated message a call with its speaker, each session flushed, its
requests waited on until done however long that takes within --mb-timeout, search of the group (not
of an empty user) dated by each memory's time, and its vendor profile as EverMind's own harness runs
it.  Skipped where the client is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client, store_terms
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from tests.support.evermemos_server import SEARCH, EverMemOSServer, evermemos_server
from tests.support.memory_model import scripted_memory_server
from tests.support.runs import usage_error_line
from tests.support.store_runs import (
    failed_work_errs_each_wait,
    product_server,
    two_scenarios,
    waits_until_done_within_the_timeout,
)

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)
NO_MODEL = "http://127.0.0.1:9/v1"
KEY = "EVERMEMOS_API_KEY"


@pytest.fixture
def evermemos(monkeypatch: pytest.MonkeyPatch) -> Iterator[EverMemOSServer]:
    with product_server(evermemos_server, "evermemos", KEY, monkeypatch) as server:
        yield server


def _spec(server: EverMemOSServer, settings: str = "", model_url: str = NO_MODEL) -> str:
    return f"evermemos(url={server.base_url},poll=0.01{settings}):openai:fake-model@{model_url}"


def _session(day: int, *texts: str) -> list[Message]:
    speakers = ("Ann", "Bob")
    return [
        Message(
            text, WHEN.replace(day=day, minute=n), ("user", "assistant")[n % 2], n, f"s{day}", speakers[n % 2]
        )
        for n, text in enumerate(texts)
    ]


@pytest.mark.asyncio
async def test_evermemos_takes_a_session_a_dated_message_at_a_time_flushes_it_and_waits_for_its_requests(
    evermemos: EverMemOSServer,
) -> None:
    evermemos.process_polls = 3
    client = store_client(parse_agent_spec(_spec(evermemos)), AgentOptions())
    await client.clear("conv-a")
    await client.add(_session(1, "My locker code is 4512.", "I biked to the lake."), "conv-a")
    assert await client.search("locker code", "conv-a", 5) == [], "nothing found before its request is done"
    await client.wait("conv-a")
    assert all(pending.polls == 3 for pending in evermemos.pending.values()), "polled until success"
    adds = [r.body for r in evermemos.requests if evermemos.adds(r)]
    assert [(a["sender"], a["role"], a["create_time"], a["flush"]) for a in adds] == [
        ("Ann", "user", "2024-05-01T09:00:00+00:00", False),
        ("Bob", "assistant", "2024-05-01T09:01:00+00:00", True),
    ], "one message a call, its speaker and zoned time; the session's last flushed"
    assert {a["group_id"] for a in adds} == {"conv-a"} and len({a["message_id"] for a in adds}) == 2
    found = await client.search("locker code", "conv-a", 5)
    assert [hit.line for hit in found] == [
        "[2024-05-01 09:00] Ann: My locker code is 4512.\nBob: I biked to the lake."
    ]
    search = [r.query for r in evermemos.requests if r.path == SEARCH][-1]
    assert search == {
        "query": "locker code",
        "group_id": "conv-a",
        "memory_types": "episodic_memory",
        "top_k": "5",
    }
    assert await client.stored("conv-a") == ["Ann: My locker code is 4512.\nBob: I biked to the lake."]
    await client.clear("conv-a")
    assert "conv-a" not in evermemos.memories
    await client.close()


@pytest.mark.asyncio
async def test_a_retried_add_sends_no_message_twice(evermemos: EverMemOSServer) -> None:
    evermemos.faults = [500]  # the second message's first try fails
    client = store_client(parse_agent_spec(_spec(evermemos)), AgentOptions())
    client.attempts = 2
    await client.add(_session(1, "My locker code is 4512.", "I biked to the lake."), "conv-a")
    assert len(evermemos.message_ids) == 2 and len(set(evermemos.message_ids)) == 2
    await client.close()


@pytest.mark.asyncio
async def test_messages_without_ids_or_sessions_added_the_same_day_in_two_adds_all_arrive(
    evermemos: EverMemOSServer,
) -> None:
    client = store_client(parse_agent_spec(_spec(evermemos)), AgentOptions())
    await client.add([Message("The shed is blue.", WHEN)], "conv-a")
    await client.add([Message("The gate is red.", WHEN.replace(hour=10))], "conv-a")
    assert len(set(evermemos.message_ids)) == 2, "the second add is not taken for the first again"
    await client.close()


@pytest.mark.asyncio
async def test_a_failed_request_is_a_store_error_every_time_it_is_waited_for(
    evermemos: EverMemOSServer,
) -> None:
    said = "could not memorize into group conv-a .*extraction failed"
    await failed_work_errs_each_wait(
        evermemos, _spec(evermemos), _session(1, "My locker code is 4512."), said
    )


@pytest.mark.asyncio
async def test_the_wait_lasts_as_long_as_processing_takes_up_to_the_timeout(
    evermemos: EverMemOSServer,
) -> None:
    sessions = (_session(1, "My locker code is 4512."), _session(2, "The shed is blue."))

    def polls() -> list[int]:
        return [pending.polls for pending in evermemos.pending.values()][:1]

    await waits_until_done_within_the_timeout(evermemos, _spec(evermemos), sessions, polls)


@pytest.mark.asyncio
async def test_memories_grouped_by_group_as_the_open_source_server_answers_are_read_too(
    evermemos: EverMemOSServer,
) -> None:
    evermemos.grouped = True
    client = store_client(parse_agent_spec(_spec(evermemos, ",memory_types=event_log")), AgentOptions())
    await client.add(_session(1, "My locker code is 4512.", "I biked to the lake."), "conv-a")
    await client.wait("conv-a")
    found = await client.search("locker", "conv-a", 5)
    assert [hit.line for hit in found] == ["[2024-05-01 09:00] Ann: My locker code is 4512."]
    await client.close()


@pytest.mark.asyncio
async def test_as_its_vendor_runs_it_search_is_agentic_of_the_groups_episodes_top_10(
    evermemos: EverMemOSServer,
) -> None:
    spec = parse_agent_spec(
        f"evermemos(profile=vendor,url={evermemos.base_url},poll=0.01):openai:m@{NO_MODEL}"
    )
    terms = store_terms(spec, AgentOptions())
    assert (terms.k, terms.profile) == (10, "vendor")
    client = store_client(spec, AgentOptions())
    await client.add(_session(1, "My locker code is 4512."), "conv-a")
    await client.wait("conv-a")
    await client.search("locker", "conv-a", terms.k)
    search = [r.query for r in evermemos.requests if r.path == SEARCH][-1]
    assert (search["retrieve_method"], search["memory_types"], search["top_k"]) == (
        "agentic",
        "episodic_memory",
        "10",
    )
    assert search["group_id"] == "conv-a" and "user_id" not in search, "the group searched, no user filter"
    await client.close()


def test_settings_are_checked_in_one_line() -> None:
    for bad, said in (
        ("retrieve_method=fuzzy", "retrieve_method"),
        ("memory_types=profile", "memory_types takes episodic_memory, event_log, foresight"),
    ):
        with pytest.raises(UsageError, match=said):
            parse_agent_spec(f"evermemos({bad},url=http://127.0.0.1:9):openai:m@{NO_MODEL}")


def test_the_cloud_without_a_key_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("evermemos")
    monkeypatch.delenv(KEY, raising=False)
    with pytest.raises(UsageError, match=f"set {KEY} to your EverMemOS API key"):
        store_client(parse_agent_spec(f"evermemos:openai:m@{NO_MODEL}"), AgentOptions())


def test_a_refused_key_stops_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester, evermemos: EverMemOSServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY, "revoked")
    with scripted_memory_server() as (model, _):
        agent = _spec(evermemos, model_url=model.openai_url)
        result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", f"--agent={agent}")
    assert f"refused the key (HTTP 401): set {KEY} to a valid key" in usage_error_line(result)


@pytest.mark.e2e
def test_evermemos_runs_the_ltm_suite_a_group_per_conversation(
    pytester: pytest.Pytester, evermemos: EverMemOSServer
) -> None:
    with scripted_memory_server() as (model, _):
        results = two_scenarios(pytester, _spec(evermemos, model_url=model.openai_url))
    assert results["totals"]["evidence_recall"]["mean"] > 0.5
    groups = {group for r in evermemos.requests if (group := evermemos.namespace(r))}
    assert len(groups) >= len(results["conversations"]) + 1, "one for each conversation, and the check's"
    assert len(set(evermemos.message_ids)) == len(evermemos.message_ids), "no message sent twice"
    assert results["run"]["provenance"]["products"]["evermemos"] == "0.3.13"
