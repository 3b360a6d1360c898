"""Redis's Agent Memory Server through its client against a loopback server of its endpoints
(support/redis_ams_server.py): a namespace and user per conversation, a working-memory session per
session dated message by message, waited on until extracted and the memory count stands still,
memories dated by their session, and its vendor profile as Redis's own harness runs its memory.
Skipped where the client is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from types import SimpleNamespace

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client, store_terms
from pytest_memorybench.core.records import Message
from tests.support.memory_model import scripted_memory_server
from tests.support.redis_ams_server import RedisAmsServer, redis_ams_server
from tests.support.runs import usage_error_line
from tests.support.store_runs import product_server, two_scenarios, wait_ends_at_the_timeout

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)
NO_MODEL = "http://127.0.0.1:9/v1"
KEY = "REDIS_AMS_API_KEY"


@pytest.fixture
def ams(monkeypatch: pytest.MonkeyPatch) -> Iterator[RedisAmsServer]:
    with product_server(redis_ams_server, "agent_memory_client", KEY, monkeypatch) as server:
        yield server


def _spec(server: RedisAmsServer, settings: str = "", model_url: str = NO_MODEL) -> str:
    return f"redis-ams(url={server.base_url},poll=0.01,stable=0{settings}):openai:fake-model@{model_url}"


def _session(day: int, *texts: str) -> list[Message]:
    return [Message(text, WHEN.replace(day=day), "user", n, f"s{day}") for n, text in enumerate(texts)]


def _puts(server: RedisAmsServer) -> list[dict[str, object]]:
    return [r.body for r in server.requests if server.adds(r)]


@pytest.mark.asyncio
async def test_a_session_goes_in_dated_is_waited_on_until_extracted_and_comes_back_dated(
    ams: RedisAmsServer,
) -> None:
    ams.extract_reads = 3
    client = store_client(parse_agent_spec(_spec(ams)), AgentOptions())
    await client.clear("conv-a")
    await client.add(_session(3, "My locker code is 4512.", "Yesterday I biked to the lake."), "conv-a")
    assert await client.search("locker code", "conv-a", 5) == [], "nothing found before its extraction"
    await client.wait("conv-a")
    assert next(iter(ams.sessions.values())).reads == 3, "read until its messages were marked extracted"
    put = _puts(ams)[0]
    assert (put["namespace"], put["user_id"]) == ("conv-a", "conv-a")
    assert [(m["role"], m["content"], m["created_at"]) for m in put["messages"]] == [  # type: ignore[index, union-attr]
        ("system", "The date and time of this conversation: Friday, May 03, 2024 at 09:00 AM UTC.",
         "2024-05-03T09:00:00Z"),
        ("user", "user: My locker code is 4512.", "2024-05-03T09:00:00Z"),
        ("user", "user: Yesterday I biked to the lake.", "2024-05-03T09:00:00Z"),
    ]  # fmt: skip
    found = await client.search("locker code biked lake", "conv-a", 5)
    assert sorted(hit.line for hit in found) == [
        "[2024-05-03 09:00; about 2024-05-02] user: Yesterday I biked to the lake.",
        "[2024-05-03 09:00] user: My locker code is 4512.",
    ], "dated by the session, the event's day where it is another"
    search = [r.body for r in ams.requests if r.path.endswith("/search")][-1]
    assert search["namespace"] == {"eq": "conv-a"} and search["user_id"] == {"eq": "conv-a"}
    assert search["limit"] == 5
    assert sorted(await client.stored("conv-a") or []) == [
        "user: My locker code is 4512.",
        "user: Yesterday I biked to the lake.",
    ]
    await client.clear("conv-a")
    assert not ams.memories and not ams.sessions
    await client.close()


@pytest.mark.asyncio
async def test_a_session_dated_past_the_servers_clock_goes_in_at_now_and_still_reads_as_its_own_date(
    ams: RedisAmsServer,
) -> None:
    later = datetime(2999, 1, 2, 10, 30)  # the server refuses a created_at over 300 s ahead of it
    client = store_client(parse_agent_spec(_spec(ams)), AgentOptions())
    await client.add([Message("The shed is blue.", later, "user", 0, "s1")], "conv-a")
    await client.wait("conv-a")
    put = _puts(ams)[0]["messages"]
    assert (
        put[0]["content"]
        == "The date and time of this conversation: Wednesday, January 02, 2999 at 10:30 AM UTC."
    )  # type: ignore[index]
    assert all(m["created_at"] < "2999" for m in put), "sent as now"  # type: ignore[union-attr]
    assert [hit.line for hit in await client.search("shed", "conv-a", 5)] == [
        "[2999-01-02 10:30] user: The shed is blue."
    ]
    await client.close()


@pytest.mark.asyncio
async def test_another_conversation_finds_nothing_though_the_server_drops_the_namespace_on_no_match(
    ams: RedisAmsServer,
) -> None:
    client = store_client(parse_agent_spec(_spec(ams)), AgentOptions())
    await client.add(_session(1, "My locker code is 4512."), "conv-a")
    await client.wait("conv-a")
    await client.add(_session(2, "The shed is blue."), "conv-b")
    assert await client.search("locker code", "conv-b", 5) == [], "conv-b's memories are not extracted yet"
    await client.wait("conv-b")
    assert [hit.text for hit in await client.search("locker code", "conv-b", 5)] == [
        "user: The shed is blue."
    ]
    await client.close()


@pytest.mark.asyncio
async def test_the_wait_lasts_until_the_memory_count_has_stood_still_for_stable_seconds(
    ams: RedisAmsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    ams.index_reads = 2  # after the extraction, one memory more every second listing
    ticks = iter(range(10**6))  # a clock a second a reading, whatever the machine's speed
    monkeypatch.setattr(
        "pytest_memorybench.agents.stores.redis_ams.time", SimpleNamespace(monotonic=lambda: next(ticks))
    )
    client = store_client(parse_agent_spec(_spec(ams, ",stable=3")), AgentOptions())
    texts = ("The shed is blue.", "The gate is red.", "The door is green.", "The roof is grey.")
    await client.add(_session(1, *texts), "conv-a")
    await client.wait("conv-a")
    assert not ams.indexing and len(ams.memories) == 4, "waited until every memory was indexed"
    assert sorted(await client.stored("conv-a") or []) == sorted(f"user: {text}" for text in texts)
    await client.close()


@pytest.mark.asyncio
async def test_the_count_is_right_when_the_server_merged_memories_away_since_the_last(
    ams: RedisAmsServer,
) -> None:
    client = store_client(parse_agent_spec(_spec(ams)), AgentOptions())
    await client.add(_session(1, *(f"Fact number {n}." for n in range(150))), "conv-a")
    await client.wait("conv-a")
    store = client.store
    assert [await store._count("conv-a", known) for known in (0, 149, 150)] == [150, 150, 150]
    del ams.memories[3:]  # the server's deduplication merged most of them
    assert [await store._count("conv-a", known) for known in (150, 3, 0)] == [3, 3, 3]
    await client.close()


@pytest.mark.asyncio
async def test_an_extraction_that_never_ends_is_an_error_at_the_timeout(ams: RedisAmsServer) -> None:
    ams.extract_reads = 10**9
    await wait_ends_at_the_timeout(_spec(ams), _session(2, "The shed is blue."), "conv-b")


@pytest.mark.asyncio
async def test_many_memories_are_listed_and_deleted_in_pages_of_the_servers_limit(
    ams: RedisAmsServer,
) -> None:
    client = store_client(parse_agent_spec(_spec(ams)), AgentOptions())
    await client.add(_session(1, *(f"Fact number {n}." for n in range(230))), "conv-a")
    await client.wait("conv-a")
    assert len(await client.stored("conv-a") or []) == 230
    assert len(await client.search("fact number", "conv-a", 150)) == 150
    await client.clear("conv-a")
    assert not ams.memories
    limits = {r.body["limit"] for r in ams.requests if r.path.endswith("/search")}
    assert max(limits) == 100, "no search over the server's limit of 100"
    await client.close()


def test_as_its_vendor_runs_it_k_is_10_and_the_count_must_stand_still_two_minutes(
    ams: RedisAmsServer,
) -> None:
    spec = parse_agent_spec(f"redis-ams(profile=vendor,url={ams.base_url}):openai:m@{NO_MODEL}")
    terms = store_terms(spec, AgentOptions(k=25))
    assert (terms.k, terms.memory_tokens, terms.profile) == (10, 4000, "vendor")
    settings = store_client(spec, AgentOptions()).store.settings
    assert (settings.stable, settings.poll) == (120.0, 30.0)


def test_a_refused_token_stops_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester, ams: RedisAmsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY, "revoked")
    with scripted_memory_server() as (model, _):
        agent = _spec(ams, model_url=model.openai_url)
        result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", f"--agent={agent}")
    assert f"refused the key (HTTP 401): set {KEY} to a valid key" in usage_error_line(result)


@pytest.mark.e2e
def test_redis_ams_runs_the_ltm_suite_a_namespace_per_conversation(
    pytester: pytest.Pytester, ams: RedisAmsServer
) -> None:
    with scripted_memory_server() as (model, _):
        results = two_scenarios(pytester, _spec(ams, model_url=model.openai_url))
    assert results["totals"]["evidence_recall"]["mean"] > 0.5
    namespaces = {namespace for r in ams.requests if (namespace := ams.namespace(r))}
    assert len(namespaces) >= len(results["conversations"]) + 1, "one for each conversation, and the check's"
    provenance = results["run"]["provenance"]
    assert provenance["products"]["agent-memory-client"] == "0.14.0"
    assert provenance["servers"]["redis-ams"] == "agent-memory-server 0.15.2", "the service's own version"
