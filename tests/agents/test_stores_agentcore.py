"""AWS Bedrock AgentCore Memory through its SDK against a loopback endpoint that checks every request
and answer against botocore's service model (support/agentcore_server.py): an actor per
conversation, a message an event at its time, records waited on until they stop changing, however
long that takes within --mb-timeout, retrieval under the namespaces the memory's strategies write to,
hits dated by their source, and its vendor profile as Redis's harness runs it.  Skipped where the SDK
is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client, store_terms
from pytest_memorybench.agents.stores.store_protocol import StoreError
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from tests.support.agentcore_server import (
    MEMORY_ID,
    SEMANTIC,
    SUMMARY,
    AgentCoreServer,
    agentcore_environment,
    agentcore_server,
)
from tests.support.memory_model import scripted_memory_server
from tests.support.runs import usage_error_line
from tests.support.store_runs import two_scenarios, wait_ends_at_the_timeout, without_back_off

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)
NO_MODEL = "http://127.0.0.1:9/v1"


@pytest.fixture
def agentcore(monkeypatch: pytest.MonkeyPatch) -> Iterator[AgentCoreServer]:
    pytest.importorskip("bedrock_agentcore")
    without_back_off(monkeypatch)
    with agentcore_server() as server:
        agentcore_environment(server, monkeypatch)
        yield server


def _spec(settings: str = "", model_url: str = NO_MODEL) -> str:
    return f"agentcore(memory_id={MEMORY_ID},poll=0.01,settle=0.05{settings}):openai:fake-model@{model_url}"


def _session(day: int, *texts: str) -> list[Message]:
    return [
        Message(text, WHEN.replace(day=day, minute=n), ("user", "assistant")[n % 2], n, f"s{day}")
        for n, text in enumerate(texts)
    ]


def _events(server: AgentCoreServer) -> list[dict]:
    return [r.body for r in server.requests if server.adds(r)]


@pytest.mark.asyncio
async def test_agentcore_adds_each_message_as_a_dated_event_waits_for_its_records_and_finds_them_dated(
    agentcore: AgentCoreServer,
) -> None:
    agentcore.extract_polls = 3
    client = store_client(parse_agent_spec(_spec()), AgentOptions())
    await client.clear("conv-a")
    await client.add(_session(1, "My locker code is 4512.", "Noted, the locker code."), "conv-a")
    assert await client.search("locker code", "conv-a", 5) == [], "nothing found before extraction"
    await client.wait("conv-a")
    assert len(agentcore.records) == 2, "every record was there when the wait ended"
    events = _events(agentcore)
    assert [(e["actorId"], e["sessionId"], e["eventTimestamp"]) for e in events] == [
        ("conv-a", "session-s1", datetime(2024, 5, 1, 9, 0, tzinfo=timezone.utc).timestamp()),
        ("conv-a", "session-s1", datetime(2024, 5, 1, 9, 1, tzinfo=timezone.utc).timestamp()),
    ], "each message at its own time, in UTC"
    assert [e["payload"][0]["conversational"]["role"] for e in events] == ["USER", "ASSISTANT"]
    found = await client.search("locker code", "conv-a", 1)
    assert [hit.line for hit in found] == ["[2024-05-01 09:00] My locker code is 4512."]
    assert found[0].score == 1.0
    retrieve = [r.body for r in agentcore.requests if r.path.endswith("/retrieve")][-1]
    assert retrieve["namespacePath"] == f"/strategies/{SEMANTIC[0]}/actors/conv-a/", "the strategy's path"
    assert retrieve["searchCriteria"]["topK"] == 1
    assert sorted(await client.stored("conv-a") or []) == [
        "My locker code is 4512.",
        "Noted, the locker code.",
    ]
    await client.clear("conv-a")
    assert not agentcore.records and not any(agentcore.events.values()), "its records and events deleted"
    await client.close()


@pytest.mark.asyncio
async def test_a_retried_add_is_one_event_and_k_past_the_services_cap_asks_for_100(
    agentcore: AgentCoreServer,
) -> None:
    client = store_client(parse_agent_spec(_spec()), AgentOptions())
    agentcore.faults = [503]  # refused once: the harness tries again
    await client.add(_session(1, "The shed is blue."), "conv-a")
    await client.add(_session(1, "The shed is blue."), "conv-a")  # as a retry after a lost answer sends it
    await client.add([Message(" ", WHEN, "user", 7, "s1")], "conv-a")  # no text: no event (the model's min 1)
    assert len(agentcore.events[("conv-a", "session-s1")]) == 1, "the client token made it one event"
    await client.wait("conv-a")
    await client.search("shed", "conv-a", 1000)
    retrieve = [r.body for r in agentcore.requests if r.path.endswith("/retrieve")][-1]
    assert retrieve["searchCriteria"]["topK"] == 100 and retrieve["maxResults"] == 100
    await client.close()


@pytest.mark.asyncio
async def test_the_wait_lasts_until_the_records_stop_changing_up_to_the_timeout(
    agentcore: AgentCoreServer,
) -> None:
    client = store_client(parse_agent_spec(_spec()), AgentOptions(timeout=30))
    texts = [f"Fact number {n} is about the {n}th lantern." for n in range(8)]
    agentcore.extract_polls = 5  # the first record after 5 listings, then one a listing: 12 listings
    await client.add(_session(1, *texts), "conv-a")
    await client.wait("conv-a")
    assert len(await client.stored("conv-a") or []) == 8, "not one record missing"
    agentcore.extract_polls = 10**9  # never extracted: the harness's timeout ends the wait, an ERROR
    await wait_ends_at_the_timeout(_spec(), _session(2, "The shed is blue."), "conv-b")
    await client.close()


@pytest.mark.asyncio
async def test_a_failed_extraction_job_is_a_store_error_every_time_it_is_waited_for(
    agentcore: AgentCoreServer,
) -> None:
    agentcore.failing = True
    client = store_client(parse_agent_spec(_spec()), AgentOptions())
    await client.add(_session(1, "My locker code is 4512."), "conv-a")
    for _ in range(2):
        with pytest.raises(
            StoreError, match="could not extract the records of actor conv-a .*extraction failed"
        ):
            await client.wait("conv-a")
    await client.close()


@pytest.mark.asyncio
async def test_every_strategys_namespace_is_searched_or_the_one_namespace_path_given(
    agentcore: AgentCoreServer,
) -> None:
    agentcore.strategies = [SEMANTIC, SUMMARY]
    client = store_client(parse_agent_spec(_spec()), AgentOptions())
    await client.add(_session(3, "The ferry leaves at noon."), "conv-a")
    await client.wait("conv-a")
    assert len(await client.search("ferry noon", "conv-a", 5)) == 2, "a record from each strategy"
    paths = {r.body["namespacePath"] for r in agentcore.requests if r.path.endswith("/retrieve")}
    assert paths == {
        f"/strategies/{SEMANTIC[0]}/actors/conv-a/",
        f"/strategies/{SUMMARY[0]}/actors/conv-a/sessions/",  # cut before {sessionId}: every session
    }
    given = store_client(
        parse_agent_spec(_spec(f",namespace_path=/strategies/{SUMMARY[0]}/actors/{{actorId}}/")),
        AgentOptions(),
    )
    assert len(await given.search("ferry noon", "conv-a", 5)) == 1
    await client.close()
    await given.close()


@pytest.mark.asyncio
async def test_a_strategy_writing_outside_any_actor_is_refused_in_one_line(
    agentcore: AgentCoreServer,
) -> None:
    agentcore.strategies = [("shared-s1a2b3c4d5", "SEMANTIC", "/shared/facts/")]
    client = store_client(parse_agent_spec(_spec()), AgentOptions())
    client.attempts = 1
    with pytest.raises(StoreError, match=r"writes to '/shared/facts/', which names no \{actorId\}"):
        await client.search("ferry", "conv-a", 5)
    await client.close()


@pytest.mark.asyncio
async def test_as_redis_harness_runs_it_a_session_is_one_event_opened_by_its_date_and_k_is_10(
    agentcore: AgentCoreServer,
) -> None:
    spec = parse_agent_spec(
        f"agentcore(profile=vendor,memory_id={MEMORY_ID},poll=0.01,settle=0.05):openai:m@{NO_MODEL}"
    )
    terms = store_terms(spec, AgentOptions())
    assert (terms.k, terms.memory_tokens, terms.profile) == (10, 1_000_000, "vendor"), "its records uncapped"
    assert spec.store is not None and spec.store.settings.event == "session"
    client = store_client(spec, AgentOptions())
    await client.add(_session(1, "My locker code is 4512.", "Noted, the locker code."), "conv-a")
    (event,) = _events(agentcore)
    assert [part["conversational"]["content"]["text"] for part in event["payload"]] == [
        "Conversation date: 2024-05-01 09:00",
        "My locker code is 4512.",
        "Noted, the locker code.",
    ]
    await client.wait("conv-a")
    assert sorted(await client.stored("conv-a") or []) == [
        "My locker code is 4512.",
        "Noted, the locker code.",
    ]
    long = [Message(f"Line {n} of a long day.", WHEN.replace(day=2), "user", n, "s2") for n in range(150)]
    await client.add(long, "conv-a")  # an event holds 100 messages (the model): the date line and 99
    parts = [event["payload"] for event in _events(agentcore)[1:]]
    assert [len(payload) for payload in parts] == [100, 52]
    assert all(
        payload[0]["conversational"]["content"]["text"].startswith("Conversation date:") for payload in parts
    )
    await client.close()


@pytest.mark.asyncio
async def test_a_memory_the_region_does_not_have_is_one_line_and_not_retried(
    agentcore: AgentCoreServer,
) -> None:
    client = store_client(
        parse_agent_spec(_spec().replace(MEMORY_ID, "another_memory-z9y8x7w6v5")), AgentOptions()
    )
    await client.clear("conv-a")  # nothing to clear
    with pytest.raises(
        StoreError, match=r"has no memory another_memory-z9y8x7w6v5 in us-east-1 .*give memory_id="
    ):
        await client.add(_session(1, "The shed is blue."), "conv-a")
    assert len([r for r in agentcore.requests if agentcore.adds(r)]) == 1, "not retried"
    await client.close()


def test_the_endpoint_refuses_what_the_service_model_refuses(agentcore: AgentCoreServer) -> None:
    import boto3

    raw = boto3.client("bedrock-agentcore")
    with pytest.raises(raw.exceptions.ValidationException, match=r"topK is above its maximum 100"):
        raw.retrieve_memory_records(
            memoryId=MEMORY_ID, namespacePath="/x/", searchCriteria={"searchQuery": "q", "topK": 101}
        )
    with pytest.raises(raw.exceptions.ValidationException, match=r"actorId 'a b' does not match"):
        raw.list_sessions(memoryId=MEMORY_ID, actorId="a b")


def test_without_its_package_a_memory_id_or_credentials_it_is_one_line(
    agentcore: AgentCoreServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(UsageError, match=r"give memory_id=… of an AgentCore memory with a strategy"):
        store_client(parse_agent_spec(f"agentcore:openai:m@{NO_MODEL}"), AgentOptions())
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(variable)
    with pytest.raises(UsageError, match=r"set AWS credentials .* as boto3 reads them"):
        store_client(parse_agent_spec(_spec()), AgentOptions())
    monkeypatch.setitem(__import__("sys").modules, "bedrock_agentcore", None)
    with pytest.raises(UsageError, match=r"pip install 'pytest-memorybench\[agentcore\]'"):
        store_client(parse_agent_spec(_spec()), AgentOptions())
    with pytest.raises(UsageError, match="namespace_path must hold"):
        parse_agent_spec(_spec(",namespace_path=/facts/"))


def test_refused_credentials_stop_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester, agentcore: AgentCoreServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAREVOKEDKEY000000")
    with scripted_memory_server() as (model, _):
        result = pytester.runpytest(
            "--memorybench", "-p", "no:cacheprovider", f"--agent={_spec(model_url=model.openai_url)}"
        )
    assert "AWS Bedrock AgentCore refused the key (HTTP 403): set AWS credentials" in usage_error_line(result)


@pytest.mark.e2e
def test_agentcore_runs_the_ltm_suite_an_actor_per_conversation(
    pytester: pytest.Pytester, agentcore: AgentCoreServer
) -> None:
    with scripted_memory_server() as (model, _):
        results = two_scenarios(pytester, _spec(model_url=model.openai_url))
    assert results["totals"]["evidence_recall"]["mean"] > 0.5
    actors = {actor for r in agentcore.requests if (actor := agentcore.namespace(r))}
    assert len(actors) >= len(results["conversations"]) + 1, "one for each conversation, and the check's"
    provenance = results["run"]["provenance"]
    assert provenance["products"]["bedrock-agentcore"] == "1.25.0"
    assert provenance["servers"]["agentcore"] == "bedrock-agentcore API 2024-02-28"
