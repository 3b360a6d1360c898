"""Graphiti (`graphiti-core` on its embedded Kùzu) as a store, on the scripted model server: the real
library extracting entities and facts through structured output, deduplicating and embedding
them, and searching its facts, entities or episodes.  Skipped where graphiti-core is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from tests.support.llm_server import LLMServer
from tests.support.memory_model import MemoryModelScript, scripted_memory_server
from tests.support.store_runs import two_scenarios

pytest_plugins = ["pytester"]
pytest.importorskip("graphiti_core")

WHEN = datetime(2024, 5, 1, 9, 0)


@pytest.fixture
def model() -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    with scripted_memory_server() as served:
        yield served


def _conversation() -> list[Message]:
    benches = [Message(f"The locker room has {n} benches.", WHEN, "user", n + 2) for n in range(6)]
    return [
        Message("My locker code is 4512.", WHEN, "user", 0),
        Message("Noted.", WHEN, "assistant", 1),
        *benches,
    ]


@pytest.mark.asyncio
async def test_graphiti_extracts_facts_searches_them_at_k_and_counts_its_model_calls(
    model: tuple[LLMServer, MemoryModelScript],
) -> None:
    server, script = model
    client = store_client(parse_agent_spec(f"graphiti:openai:fake-model@{server.openai_url}"), AgentOptions())
    await client.add(_conversation(), "conv-a")
    assert script.asked["ExtractedEntities"] == 8 and script.asked["ExtractedEdges"] == 8, (
        "an episode a message"
    )
    found = await client.search("What is my locker code?", "conv-a", 3)
    assert [hit.text for hit in found][0] == "My locker code is 4512." and len(found) == 3
    assert found[0].line == "[valid 2024-05-01 → present] My locker code is 4512.", (
        "a fact with the time it became true, and that it still holds"
    )
    assert await client.search("What is my locker code?", "conv-b", 3) == [], "a graph per conversation"
    usage = client.store.usage
    assert usage.calls == sum(script.asked.values()) + len(server.requests_to("/v1/embeddings"))
    assert usage.input_tokens > 0 and usage.output_tokens > 0
    folder = client.store.folder
    assert (folder / "conv-a").is_dir()
    await client.clear("conv-a")
    assert not (folder / "conv-a").exists() and await client.search("locker code", "conv-a", 3) == []
    await client.close()
    assert not folder.exists()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("settings", "first"),
    [
        ("scope=episodes", "user: My locker code is 4512."),
        pytest.param("scope=nodes,reranker=mmr", "locker: My locker code is 4512.", marks=pytest.mark.e2e),
        pytest.param("episode=batch", "My locker code is 4512.", marks=pytest.mark.e2e),
    ],
)
async def test_graphiti_searches_the_scope_it_is_given(
    model: tuple[LLMServer, MemoryModelScript], settings: str, first: str
) -> None:
    server, script = model
    spec = f"graphiti({settings}):openai:fake-model@{server.openai_url}"
    client = store_client(parse_agent_spec(spec), AgentOptions())
    await client.add(_conversation(), "conv-a")
    found = await client.search("What is my locker code?", "conv-a", 3)
    assert found and found[0].text == first
    if settings == "episode=batch":
        assert script.asked["ExtractedEntities"] == 1, "one episode for the batch"
    await client.close()


@pytest.mark.asyncio
async def test_an_episode_names_its_speaker_once(model: tuple[LLMServer, MemoryModelScript]) -> None:
    """A LoCoMo turn already says who speaks ("Caroline: …"): the episode keeps that one label, not
    the role before it too ("user: Caroline: …"), which would make "user" an entity of its own."""
    server, _ = model
    client = store_client(
        parse_agent_spec(f"graphiti(scope=episodes):openai:fake-model@{server.openai_url}"), AgentOptions()
    )
    said = [
        Message("Caroline: I adopted a cat called Miso.", WHEN, "user", 0, "session_1", "Caroline"),
        Message("Melanie: Miso is a lovely name.", WHEN, "assistant", 1, "session_1", "Melanie"),
        Message("My locker code is 4512.", WHEN, "user", 2, "session_1"),
    ]
    await client.add(said, "conv-a")
    found = {hit.text for hit in await client.search("Miso cat locker code", "conv-a", 5)}
    assert found == {
        "Caroline: I adopted a cat called Miso.",
        "Melanie: Miso is a lovely name.",
        "user: My locker code is 4512.",
    }
    await client.close()


@pytest.mark.asyncio
async def test_a_questions_last_word_is_searched_not_read_as_a_wildcard(
    model: tuple[LLMServer, MemoryModelScript],
) -> None:
    """Kùzu's full-text search reads `?` as a one-letter wildcard: "colour?" matches no "colour",
    and in a graph of one episode the question's other words carry no weight."""
    server, _ = model
    client = store_client(
        parse_agent_spec(f"graphiti(scope=episodes):openai:fake-model@{server.openai_url}"), AgentOptions()
    )
    await client.add([Message("My favourite colour is teal.", WHEN, "user", 0)], "conv-a")
    found = await client.search("What is my favourite colour?", "conv-a", 3)
    assert [hit.text for hit in found] == ["user: My favourite colour is teal."]
    await client.close()


@pytest.mark.asyncio
async def test_graphiti_sends_the_schema_inside_json_object_for_servers_that_take_it_so(
    model: tuple[LLMServer, MemoryModelScript],
) -> None:
    server, _ = model
    spec = f"graphiti(structured_output=json_object):openai:fake-model@{server.openai_url}"
    client = store_client(parse_agent_spec(spec), AgentOptions())
    await client.add(_conversation()[:1], "conv-a")
    formats = [request.body["response_format"] for request in server.requests_to("/v1/chat/completions")]
    assert formats and all(f["type"] == "json_object" and "properties" in f["schema"] for f in formats)
    await client.close()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("graphiti:anthropic:claude-haiku", "Graphiti's LLM is reached here through OpenAI's API"),
        (
            "graphiti(scope=episodes,reranker=mmr):openai:m",
            "Graphiti reranks episodes by rrf or cross_encoder",
        ),
        ("graphiti(scope=facts):openai:m", "scope"),
    ],
)
def test_a_graphiti_spec_it_cannot_run_is_one_line(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        store_client(parse_agent_spec(spec), AgentOptions())


@pytest.mark.e2e  # a whole run, a Kuzu database a conversation; store_dates' LoCoMo run is the default's
def test_graphiti_runs_the_ltm_suite_with_no_item_error(
    pytester: pytest.Pytester, model: tuple[LLMServer, MemoryModelScript]
) -> None:
    server, script = model
    results = two_scenarios(pytester, f"graphiti:openai:fake-model@{server.openai_url}")
    recall = {item["nodeid"]: item["details"]["evidence"]["recall"] for item in results["items"]}
    assert all(recall[f"ltm::colours[rep{n}]"] == 1.0 for n in (1, 2, 3)), recall  # name_list shares no word
    memory = results["totals"]["memory"]
    assert memory["write"]["calls"] >= script.asked["ExtractedEdges"] > 0, "Graphiti's calls charged"
