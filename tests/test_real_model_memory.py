"""Every memory system end to end on a real model: SmolLM2-135M on llama-cpp-python, embeddings too.

The scripted model of `test_memory_systems.py` checks what each mechanism does; this checks that
each one survives a real server: its JSON that is not JSON, tool calls it does not make, verdicts
that are neither yes nor no.  Its embeddings come pooled, one vector a text, as `local_model`
serves them (the per-token vectors of other llama.cpp servers are `test_memory_systems.py`'s).  A
135M model remembers little: the run must be complete (every item scored, none an error) and its
memory's calls counted, whatever the score.  Needs the `local-llm` extra; run with `-m real_model`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from pytest_memorybench.agents.registry import MECHANISMS
from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client
from pytest_memorybench.core.records import Message
from pytest_memorybench.local_model import MODEL_ALIAS
from tests.support.llm_server import RecordingProxy
from tests.support.local_model import SHORT_REPLY_TOKENS
from tests.support.mcp_server import require_reference_mcp_server
from tests.support.runs import QUIET, results_in

pytestmark = pytest.mark.real_model  # one worker runs this module and its twin (conftest.ONE_WORKER)


@pytest.fixture(scope="module")
def capped_server(embedding_server: str) -> Iterator[str]:
    """The embedding server behind a proxy that keeps each completion short (`SHORT_REPLY_TOKENS`)."""
    with RecordingProxy(embedding_server.removesuffix("/v1"), reply_tokens=SHORT_REPLY_TOKENS) as proxy:
        yield proxy.openai_url


def _one_colours_item(pytester: pytest.Pytester, *options: str) -> dict[str, Any]:
    """The results of one colours item on SmolLM2 (a 2,048-token window), asserted complete: scored,
    not an error."""
    result = pytester.runpytest(
        "--memorybench",
        *QUIET,
        *options,
        "--span=isolated",
        "--mb-context=2048",
        "-k",
        "colours and rep1",
        "--mb-output=run",
    )
    results: dict[str, Any] = results_in(pytester.path / "run")
    items = results["items"]
    assert len(items) == 1 and items[0]["score"] is not None and not items[0]["error"], result.stdout.str()
    return results


@pytest.mark.parametrize("mechanism", list(MECHANISMS))
def test_every_mechanism_runs_on_smollm2_with_no_item_error(
    pytester: pytest.Pytester, capped_server: str, mechanism: str
) -> None:
    model = f"openai:{MODEL_ALIAS}@{capped_server}"
    results = _one_colours_item(pytester, f"--agent={mechanism}:{model}", f"--mb-embedder={model}")
    memory = results["totals"]["memory"]
    assert memory["read"]["calls"] >= 1 and memory["read"]["input_tokens"] > 0
    assert results["run"]["embedder"] == model
    if mechanism in (
        "rag",
        "ltm-agent",
        "memorybank",
        "generative-agents",
        "scm",
    ):  # dense retrieval: embeddings are charged
        assert memory["write"]["calls"] >= 1 and memory["write"]["input_tokens"] > 0


@pytest.mark.parametrize("store", ["mem0(infer=false)", "mcp", "mcp(mode=agent)"])
def test_the_memory_products_run_on_smollm2_with_no_item_error(
    pytester: pytest.Pytester, capped_server: str, store: str
) -> None:
    """Mem0 embeds with SmolLM2; it stores messages as given, since its
    extraction prompt alone (about 8,600 tokens) is longer than SmolLM2's 8,192-token window.  The
    reference MCP server stores what the harness adds, or what SmolLM2 saves with its tools."""
    if store.startswith("mem0"):
        pytest.importorskip("mem0")
    else:
        require_reference_mcp_server()
    model = f"openai:{MODEL_ALIAS}@{capped_server}"
    embedder = [f"--mb-embedder={model}"] if store.startswith("mem0") else []
    results = _one_colours_item(pytester, f"--agent={store}:{model}", *embedder)
    if store == "mcp(mode=agent)":
        assert results["totals"]["memory"]["read"]["calls"] >= 1
    else:
        assert results["totals"]["store"]["messages"] > 0 and results["totals"]["store"]["searches"] >= 1


@pytest.mark.asyncio
async def test_graphiti_takes_in_and_finds_a_message_on_smollm2(embedding_server: str) -> None:
    """Graphiti's whole ingest of one episode on SmolLM2 — entity and fact extraction held to its
    schemas, deduplication, dating, embedding — and a search, through the store client a run uses.
    Not a suite item: llama-cpp-python samples schema-held JSON at about a token a second here, so
    one item (four episodes, ~25 such calls) takes some 20 minutes; one episode takes a few."""
    pytest.importorskip("graphiti_core")
    model = f"openai:{MODEL_ALIAS}@{embedding_server}"
    spec = f"graphiti(scope=episodes,structured_output=json_object,max_tokens=200,temperature=0):{model}"
    client = store_client(parse_agent_spec(spec), AgentOptions(timeout=1800))
    message = Message("My favourite colour is teal.", datetime(2024, 5, 1, 9, 0), "user", 0)
    await client.add([message], "conv-a")
    found = await client.search("What is my favourite colour?", "conv-a", 5)
    assert [hit.text for hit in found] == ["user: My favourite colour is teal."]
    usage = client.store.usage
    assert usage.calls >= 3 and usage.input_tokens > 1000, "its extraction calls, counted"
    await client.close()
