"""Hindsight through its client against a loopback server of its endpoints (support/hindsight_server.py):
a bank per conversation, dated retains waited on until their operation completed, however long that
takes within --mb-timeout, recall dated by when a fact was said and when it happened, and its
vendor profile as Vectorize's own harness runs it.  Skipped where the client is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client, store_terms
from pytest_memorybench.core.records import Message
from tests.support.hindsight_server import HindsightServer, hindsight_server
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
KEY = "HINDSIGHT_API_KEY"


@pytest.fixture
def hindsight(monkeypatch: pytest.MonkeyPatch) -> Iterator[HindsightServer]:
    with product_server(hindsight_server, "hindsight_client", KEY, monkeypatch) as server:
        yield server


def _spec(server: HindsightServer, settings: str = "", model_url: str = NO_MODEL) -> str:
    return f"hindsight(url={server.base_url},poll=0.01{settings}):openai:fake-model@{model_url}"


def _session(day: int, *texts: str) -> list[Message]:
    return [Message(text, WHEN.replace(day=day), "user", n, f"s{day}") for n, text in enumerate(texts)]


@pytest.mark.asyncio
async def test_hindsight_retains_a_dated_session_waits_for_its_operation_and_recalls_dated_facts(
    hindsight: HindsightServer,
) -> None:
    hindsight.process_polls = 3
    client = store_client(parse_agent_spec(_spec(hindsight)), AgentOptions())
    await client.clear("conv-a")
    await client.add(_session(1, "My locker code is 4512.", "Yesterday I biked to the lake."), "conv-a")
    assert await client.search("locker code", "conv-a", 5) == [], "nothing recalled before it completed"
    await client.wait("conv-a")
    assert next(iter(hindsight.operations.values())).polls == 3, "polled until completed"
    retained = [r.body for r in hindsight.requests if hindsight.adds(r)][0]
    assert retained["async"] is True and retained["items"][0]["timestamp"] == "2024-05-01T09:00:00+00:00"
    assert (
        retained["items"][0]["content"]
        == "user: My locker code is 4512.\nuser: Yesterday I biked to the lake."
    )
    found = await client.search("locker code biked lake", "conv-a", 5, asked_at=datetime(2024, 6, 2, 8, 0))
    assert [hit.line for hit in found] == [
        "[2024-05-01 09:00] user: My locker code is 4512.",
        "[2024-05-01 09:00] user: Yesterday I biked to the lake. (happened 2024-04-30)",
    ] or [hit.line for hit in found][::-1] == [
        "[2024-05-01 09:00] user: My locker code is 4512.",
        "[2024-05-01 09:00] user: Yesterday I biked to the lake. (happened 2024-04-30)",
    ]
    recall = [r.body for r in hindsight.requests if r.path.endswith("/recall")][-1]
    assert recall["query_timestamp"] == "2024-06-02T08:00:00" and recall["budget"] == "mid"
    assert recall["max_tokens"] == 4000, "the run's memory cap"
    assert sorted(await client.stored("conv-a") or []) == [
        "user: My locker code is 4512.",
        "user: Yesterday I biked to the lake.",
    ]
    await client.clear("conv-a")
    assert "conv-a" not in hindsight.banks
    await client.close()


@pytest.mark.asyncio
async def test_a_failed_operation_is_a_store_error_every_time_it_is_waited_for(
    hindsight: HindsightServer,
) -> None:
    said = "could not retain into bank conv-a .*extraction failed"
    await failed_work_errs_each_wait(
        hindsight, _spec(hindsight), _session(1, "My locker code is 4512."), said
    )


@pytest.mark.asyncio
async def test_the_wait_lasts_as_long_as_ingestion_takes_up_to_the_timeout(
    hindsight: HindsightServer,
) -> None:
    sessions = (_session(1, "My locker code is 4512."), _session(2, "The shed is blue."))

    def polls() -> list[int]:
        return [operation.polls for operation in hindsight.operations.values()][:1]

    await waits_until_done_within_the_timeout(hindsight, _spec(hindsight), sessions, polls)


@pytest.mark.asyncio
async def test_as_its_vendor_runs_it_recall_is_high_budget_with_chunks_and_no_observations(
    hindsight: HindsightServer,
) -> None:
    spec = parse_agent_spec(
        f"hindsight(profile=vendor,url={hindsight.base_url},poll=0.01):openai:m@{NO_MODEL}"
    )
    terms = store_terms(spec, AgentOptions())
    assert (terms.k, terms.memory_tokens, terms.profile) == (1000, 49_152, "vendor")
    client = store_client(spec, AgentOptions())
    await client.add(_session(1, "My locker code is 4512.", "The locker is by the door."), "conv-a")
    await client.wait("conv-a")
    bank = [r.body for r in hindsight.requests if r.method == "PUT"][0]
    assert bank["enable_observations"] is False
    found = await client.search("locker", "conv-a", 1000)
    recall = [r.body for r in hindsight.requests if r.path.endswith("/recall")][-1]
    assert recall["budget"] == "high" and recall["max_tokens"] == 32_768
    assert recall["include"]["chunks"] == {"max_tokens": 16_384}
    assert sum("> user: My locker code is 4512." in hit.text for hit in found) == 1, "a chunk shown once"
    await client.close()


def test_a_refused_key_stops_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester, hindsight: HindsightServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY, "revoked")
    with scripted_memory_server() as (model, _):
        agent = _spec(hindsight, model_url=model.openai_url)
        result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", f"--agent={agent}")
    assert f"refused the key (HTTP 401): set {KEY} to a valid key" in usage_error_line(result)


@pytest.mark.e2e
def test_hindsight_runs_the_ltm_suite_a_bank_per_conversation(
    pytester: pytest.Pytester, hindsight: HindsightServer
) -> None:
    with scripted_memory_server() as (model, _):
        results = two_scenarios(pytester, _spec(hindsight, model_url=model.openai_url))
    assert results["totals"]["evidence_recall"]["mean"] > 0.5
    banks = {bank for r in hindsight.requests if (bank := hindsight.namespace(r))}
    assert len(banks) >= len(results["conversations"]) + 1, "one for each conversation, and the check's"
    provenance = results["run"]["provenance"]
    assert provenance["products"]["hindsight-client"] == "1.1.0"
    assert provenance["servers"]["hindsight"] == "hindsight-api 1.1.0", "the service's own version"
