"""Vertex AI Memory Bank through its SDK against a loopback server of its endpoints and of the OAuth
token endpoint (support/vertex_server.py): credentials read as the SDK reads them, a scope per
conversation, a dated generate a session waited on until its operation is done, however long that
takes within --mb-timeout, similarity search dated by the session, and one line for what is missing.
Skipped where the SDK is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client, store_terms
from pytest_memorybench.agents.stores.store_protocol import StoreError
from pytest_memorybench.core.records import Message
from tests.support.memory_model import scripted_memory_server
from tests.support.runs import usage_error_line
from tests.support.store_runs import (
    failed_work_errs_each_wait,
    two_scenarios,
    waits_until_done_within_the_timeout,
    without_back_off,
)
from tests.support.vertex_server import ENGINE, LOADED_FIRST, VertexServer, use_credentials, vertex_server

pytest_plugins = ["pytester"]
pytestmark = LOADED_FIRST

NO_MODEL = "http://127.0.0.1:9/v1"
WHEN = datetime(2024, 5, 1, 9, 0)


@pytest.fixture
def vertex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[VertexServer]:
    pytest.importorskip("vertexai")
    without_back_off(monkeypatch)
    with vertex_server() as server:
        use_credentials(server, tmp_path, monkeypatch)
        yield server


def _spec(server: VertexServer, settings: str = "", model_url: str = NO_MODEL) -> str:
    return f"vertex(engine=4242,url={server.url},poll=0.01{settings}):openai:fake-model@{model_url}"


def _session(day: int, *texts: str) -> list[Message]:
    return [Message(text, WHEN.replace(day=day), "user", n, f"s{day}") for n, text in enumerate(texts)]


@pytest.mark.asyncio
async def test_memory_bank_generates_a_dated_session_waits_for_it_and_finds_dated_facts(
    vertex: VertexServer,
) -> None:
    vertex.process_polls = 3
    client = store_client(parse_agent_spec(_spec(vertex)), AgentOptions())
    await client.clear("conv-a")
    await client.add(_session(1, "My locker code is 4512.", "I biked to the lake."), "conv-a")
    assert await client.search("locker code", "conv-a", 5) == [], "nothing found before it was done"
    await client.wait("conv-a")
    generate = next(r for r in vertex.requests if vertex.adds(r))
    assert generate.path == f"/v1beta1/{ENGINE}/memories:generate"
    assert generate.headers["authorization"].startswith("Bearer ya29.test-"), "ADC's refreshed token"
    assert generate.body["scope"] == {"user_id": "conv-a"}
    events = [e["content"] for e in generate.body["directContentsSource"]["events"]]
    assert [e["role"] for e in events] == ["user", "user", "user"]
    assert [e["parts"][0]["text"] for e in events] == [
        "These messages were said on 2024-05-01 09:00. Resolve every relative date in them against"
        " 2024-05-01 09:00.",
        "user: My locker code is 4512.",
        "user: I biked to the lake.",
    ]
    assert generate.body["metadata"] == {"said_at": {"timestamp_value": "2024-05-01T09:00:00+00:00"}}
    assert max(op.polls for op in vertex.operations.values()) == 3, "polled until done"
    found = await client.search("locker code", "conv-a", 5)
    assert found[0].line == "[2024-05-01 09:00] user: My locker code is 4512."
    retrieve = [r.body for r in vertex.requests if r.path.endswith(":retrieve")][-1]
    assert retrieve["similaritySearchParams"] == {"search_query": "locker code", "top_k": 5}
    assert sorted(await client.stored("conv-a") or []) == [
        "user: I biked to the lake.",
        "user: My locker code is 4512.",
    ]
    await client.clear("conv-a")
    assert not vertex.memories
    assert client.store.server_version == (
        "Vertex AI Memory Bank (generation gemini-2.5-flash, embeddings text-embedding-005)"
    )
    await client.close()


@pytest.mark.asyncio
async def test_sessions_reach_consolidation_in_order_and_a_fact_said_again_is_dated_by_the_later(
    vertex: VertexServer,
) -> None:
    vertex.process_polls = 2
    client = store_client(parse_agent_spec(_spec(vertex)), AgentOptions())
    await client.add(_session(1, "The shed is blue."), "conv-a")
    await client.add(_session(3, "The shed is blue."), "conv-a")  # waits for the first to be done
    generates = [i for i, r in enumerate(vertex.requests) if vertex.adds(r)]
    polled = [i for i, r in enumerate(vertex.requests) if "/operations/" in r.path]
    assert polled and generates[0] < polled[0] < generates[1], "the first done before the second sent"
    await client.wait("conv-a")
    found = await client.search("shed", "conv-a", 10)
    assert [hit.line for hit in found] == ["[2024-05-03 09:00] user: The shed is blue."]
    await client.close()


@pytest.mark.asyncio
async def test_scopes_keep_conversations_apart_and_stored_reads_every_page(vertex: VertexServer) -> None:
    client = store_client(parse_agent_spec(_spec(vertex)), AgentOptions())
    facts = [f"Fact number {n} about the garden." for n in range(130)]
    await client.add(_session(1, *facts), "conv-a")
    await client.add(_session(2, "The kettle is red."), "conv-b")
    await client.wait("conv-a")
    await client.wait("conv-b")
    assert len(await client.stored("conv-a") or []) == 130, "two pages of 100"
    assert await client.stored("conv-b") == ["user: The kettle is red."]
    assert all("kettle" not in hit.text for hit in await client.search("kettle", "conv-a", 100))
    await client.clear("conv-b")
    assert len(vertex.memories) == 130
    await client.close()


@pytest.mark.asyncio
async def test_a_failed_generate_is_a_store_error_every_time_it_is_waited_for(vertex: VertexServer) -> None:
    said = "could not generate memories for conv-a .*failed .injected"
    await failed_work_errs_each_wait(vertex, _spec(vertex), _session(1, "My locker code is 4512."), said)


@pytest.mark.asyncio
async def test_the_wait_lasts_as_long_as_generation_takes_up_to_the_timeout(vertex: VertexServer) -> None:
    sessions = (_session(1, "My locker code is 4512."), _session(2, "The shed is blue."))
    await waits_until_done_within_the_timeout(
        vertex, _spec(vertex), sessions, lambda: [op.polls for op in vertex.operations.values()]
    )


@pytest.mark.asyncio
async def test_as_redis_harness_runs_it_k_is_its_search_limit(vertex: VertexServer) -> None:
    spec = parse_agent_spec(
        f"vertex(profile=vendor,engine={ENGINE},url={vertex.url},poll=0.01):openai:m@{NO_MODEL}"
    )
    terms = store_terms(spec, AgentOptions(k=25))
    assert (terms.k, terms.profile) == (10, "vendor")
    client = store_client(spec, AgentOptions())
    await client.add(_session(1, "My locker code is 4512."), "conv-a")
    await client.wait("conv-a")
    assert [hit.text for hit in await client.search("locker", "conv-a", terms.k)] == [
        "user: My locker code is 4512."
    ]
    await client.close()


@pytest.mark.asyncio
async def test_an_engine_that_is_not_there_is_named_in_one_line(vertex: VertexServer) -> None:
    client = store_client(
        parse_agent_spec(_spec(vertex).replace("engine=4242", "engine=999")), AgentOptions()
    )
    client.attempts = 1
    with pytest.raises(StoreError, match="no Agent Engine projects/memorybench-test/locations/us-central1/"
                       "reasoningEngines/999 \\(HTTP 404\\): give engine="):  # fmt: skip
        await client.add(_session(1, "The shed is blue."), "conv-a")
    await client.close()


def test_refused_credentials_stop_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester, vertex: VertexServer
) -> None:
    vertex.key = "someone-else@memorybench-test.iam.gserviceaccount.com"
    with scripted_memory_server() as (model, _):
        result = pytester.runpytest(
            "--memorybench", "-p", "no:cacheprovider", f"--agent={_spec(vertex, model_url=model.openai_url)}"
        )
    line = usage_error_line(result)
    assert "Vertex AI refused the credentials" in line and "GOOGLE_APPLICATION_CREDENTIALS" in line


@pytest.mark.parametrize(
    ("settings", "missing"),
    [
        ("(url=http://127.0.0.1:9)", "give engine=ID"),
        ("(engine=4242,url=http://127.0.0.1:9)", "no Google Cloud credentials (File "),
    ],
)
def test_a_missing_engine_or_credentials_is_one_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, settings: str, missing: str
) -> None:
    pytest.importorskip("vertexai")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "none.json"))
    with scripted_memory_server() as (model, _):
        agent = f"--agent=vertex{settings}:openai:m@{model.openai_url}"
        result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", agent)
    assert missing in usage_error_line(result)


@pytest.mark.e2e
def test_memory_bank_runs_the_ltm_suite_a_scope_per_conversation(
    pytester: pytest.Pytester, vertex: VertexServer
) -> None:
    with scripted_memory_server() as (model, _):
        results = two_scenarios(pytester, _spec(vertex, model_url=model.openai_url))
    assert results["totals"]["evidence_recall"]["mean"] > 0.5
    scopes = {scope for r in vertex.requests if (scope := vertex.namespace(r))}
    assert len(scopes) >= len(results["conversations"]) + 1, "one for each conversation, and the check's"
    provenance = results["run"]["provenance"]
    assert provenance["products"]["google-cloud-aiplatform"] == "2.7.0"
    assert provenance["servers"]["vertex"].startswith("Vertex AI Memory Bank (generation gemini-2.5-flash")
