"""Hosted memory products through their official SDKs, against loopback servers of the endpoints the
SDKs call: add, wait for indexing, search at k, clear, a 429 retried, a refused key in one line
before any test, and a namespace per conversation.  Skipped where an SDK is not installed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.build import store_client
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from tests.support.llm_server import LLMServer
from tests.support.memory_model import scripted_memory_server
from tests.support.supermemory_server import SupermemoryServer, supermemory_server

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)


@pytest.fixture
def model() -> Iterator[LLMServer]:
    """The scripted model that answers from the hits its prompt holds."""
    with scripted_memory_server() as (server, _):
        yield server


@pytest.fixture
def supermemory(monkeypatch: pytest.MonkeyPatch) -> Iterator[SupermemoryServer]:
    pytest.importorskip("supermemory")
    with supermemory_server() as server:
        monkeypatch.setenv("SUPERMEMORY_API_KEY", server.key)
        yield server


def _spec(server: SupermemoryServer, model_url: str = "http://127.0.0.1:9/v1") -> str:
    return f"supermemory(url={server.url},poll=0.01):openai:fake-model@{model_url}"


@pytest.mark.asyncio
async def test_supermemory_adds_waits_searches_at_k_and_clears(supermemory: SupermemoryServer) -> None:
    client = store_client(parse_agent_spec(_spec(supermemory)), AgentOptions())
    benches = [Message(f"The locker room has {n} benches.", WHEN) for n in range(12)]
    await client.add([Message("My locker code is 4512.", WHEN), *benches], "conv-a")
    assert await client.search("locker code", "conv-a", 5) == [], "not searchable before it is processed"
    await client.wait("conv-a")
    found = await client.search("locker code", "conv-a", 5)
    assert len(found) == 5 and found[0].text == "[2024-05-01 09:00] user: My locker code is 4512."
    searches = [body for method, path, body in supermemory.requests if path.endswith("/search")]
    assert searches[-1]["limit"] == 5 and searches[-1]["searchMode"] == "hybrid"
    reads = [path for method, path, _ in supermemory.requests if method == "GET"]
    assert reads == ["/ns/conv-a/document/doc_0"] * 2, "polled until processed and its memories formed"
    assert await client.search("locker code", "conv-b", 5) == [], "another namespace holds nothing"
    await client.clear("conv-a")
    assert "conv-a" not in supermemory.namespaces
    await client.close()


@pytest.mark.asyncio
async def test_supermemory_retries_a_429(supermemory: SupermemoryServer) -> None:
    client = store_client(parse_agent_spec(_spec(supermemory)), AgentOptions())
    supermemory.faults = [429, 429]
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    adds = [path for method, path, _ in supermemory.requests if method == "POST"]
    assert adds == ["/ns/conv-a/document"] * 3 and len(supermemory.namespaces["conv-a"]) == 1, (
        "retried, added once"
    )


def test_supermemory_without_a_key_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("supermemory")
    monkeypatch.delenv("SUPERMEMORY_API_KEY", raising=False)
    with pytest.raises(UsageError, match=r"set SUPERMEMORY_API_KEY to your Supermemory API key"):
        store_client(parse_agent_spec("supermemory:openai:fake-model@http://127.0.0.1:9/v1"), AgentOptions())


def test_a_refused_key_stops_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester,
    supermemory: SupermemoryServer,
    monkeypatch: pytest.MonkeyPatch,
    model: LLMServer,
) -> None:
    monkeypatch.setenv("SUPERMEMORY_API_KEY", "sm-revoked")
    result = pytester.runpytest(
        "--memorybench", "-p", "no:cacheprovider", f"--agent={_spec(supermemory, model.openai_url)}"
    )
    assert result.ret == 4
    errors = [line for line in result.stderr.lines if line.startswith("ERROR")]
    assert (
        len(errors) == 1 and "Supermemory refused the key (HTTP 401): set SUPERMEMORY_API_KEY" in errors[0]
    ), errors
    assert "Traceback" not in result.stderr.str()
    assert len(supermemory.requests) == 1, "a refused key is not retried"


def test_supermemory_runs_the_ltm_suite_a_namespace_per_conversation(
    pytester: pytest.Pytester, supermemory: SupermemoryServer, model: LLMServer
) -> None:
    run = pytester.path / "run"
    result = pytester.runpytest(
        "--memorybench", "--span=isolated", "-k", "colours or name_list", "-p", "no:cacheprovider",
        f"--agent={_spec(supermemory, model.openai_url)}", f"--mb-output={run}",
    )  # fmt: skip
    totals = json.loads((run / "results.json").read_text())["totals"]
    assert not totals["errors"] and totals["max"] == 6, result.stdout.str()[-3000:]
    assert totals["evidence_recall"]["mean"] > 0.5 and totals["store"]["ingest_ms_per_message"] > 0
    namespaces = {path.split("/")[2] for _, path, _ in supermemory.requests}
    conversations = json.loads((run / "results.json").read_text())["conversations"]
    assert len(namespaces) >= len(conversations) + 1, "one for each conversation, and the health check's"
    for namespace in namespaces:
        added = [
            body["content"]
            for method, path, body in supermemory.requests
            if path == f"/ns/{namespace}/document"
        ]
        searched = [path for _, path, _ in supermemory.requests if path == f"/ns/{namespace}/search"]
        assert added or not searched, "a conversation searches only where it added"
