"""A Letta agent as a store (`letta`), through letta-client against a loopback server of the
endpoints it calls: an agent per conversation that answers itself, messages archived (or sent to
it), archival search at k, the model wiring, a 429 retried, a refused key and a missing server in
one line before any test.  Skipped without letta-client."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from datetime import datetime

import pytest

from pytest_memorybench.agents.agent_build import build_agent
from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from pytest_memorybench.local_model import MODEL_ALIAS
from tests.support.letta_server import LettaServer, letta_server
from tests.support.llm_server import LLMServer
from tests.support.memory_model import scripted_memory_server
from tests.support.runs import results_in, usage_error_line
from tests.support.store_runs import two_scenarios, without_back_off

pytest_plugins = ["pytester"]
pytest.importorskip("letta_client")

WHEN = datetime(2024, 5, 1, 9, 0)
MODEL = "http://127.0.0.1:9/v1"


@pytest.fixture
def letta(monkeypatch: pytest.MonkeyPatch) -> Iterator[LettaServer]:
    with letta_server() as server:
        monkeypatch.setenv("LETTA_API_KEY", server.key)
        monkeypatch.delenv("LETTA_BASE_URL", raising=False)
        yield server


def _spec(server: LettaServer, settings: str = "", model_url: str = MODEL) -> str:
    return f"letta(url={server.url}{settings}):openai:fake-model@{model_url}"


@pytest.mark.asyncio
async def test_an_agent_per_namespace_archives_every_message_dated_and_is_searched_at_k(
    letta: LettaServer,
) -> None:
    client = store_client(parse_agent_spec(_spec(letta)), AgentOptions())
    benches = [Message(f"The locker room has {n} benches.", WHEN, "assistant") for n in range(12)]
    await client.add([Message("My locker code is 4512.", WHEN), *benches], "conv-a")
    found = await client.search("locker code", "conv-a", 5)
    assert len(found) == 5 and found[0].line == "[2024-05-01 09:00] user: My locker code is 4512."
    assert found[1].text == "assistant: The locker room has 0 benches."
    (agent,) = letta.agents.values()
    assert agent.name == "conv-a" and len(agent.archive) == 13 and not agent.history, "no model call"
    assert agent.config["llm_config"] == {
        "model": "fake-model",
        "model_endpoint_type": "openai",
        "model_endpoint": MODEL,
        "context_window": 32768,
    }
    assert agent.config["embedding_config"]["embedding_endpoint"] == MODEL
    search = next(r for r in reversed(letta.requests) if r.path.endswith("/search"))
    assert search.query == {"query": "locker code", "top_k": "5"}
    assert await client.search("locker code", "conv-b", 5) == [], "another agent holds nothing"
    await client.clear("conv-a")
    assert not letta.agents and letta.requests[-1].method == "DELETE"
    await client.close()


@pytest.mark.asyncio
async def test_the_agent_answers_itself_and_its_tokens_are_counted(letta: LettaServer) -> None:
    client = store_client(parse_agent_spec(_spec(letta)), AgentOptions())
    assert client.answers
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    reply = await client.answer("What is my locker code?", "conv-a")
    assert reply == "I remember: user: My locker code is 4512."
    assert client.store.usage.calls == 1 and client.store.usage.input_tokens == 5
    sent = next(r for r in letta.requests if r.path.endswith("/messages"))
    assert sent.body["messages"] == [{"role": "user", "content": "What is my locker code?"}]


@pytest.mark.asyncio
async def test_the_agent_is_told_the_questions_simulated_date_and_the_suites_instructions(
    letta: LettaServer,
) -> None:
    """Letta keeps real time, so "how many days ago" needs the question's date, and a suite that asks
    for a short phrase (LoCoMo) must say so to the agent as the harness's prompt says it to a model."""
    agent = build_agent(parse_agent_spec(_spec(letta)), AgentOptions())
    await agent.observe([Message("My locker code is 4512.", WHEN)])
    asked = datetime(2024, 5, 9, 18, 30)
    fork = await agent.fork()  # as a probe is asked: on a fork, told its suite and date
    await fork.answer_for("locomo", asked)
    await fork.reply(Message("What is my locker code?", asked))
    sent = next(r for r in letta.requests if r.path.startswith("/v1/conversations/") and "messages" in r.path)
    told, question = sent.body["messages"]
    assert question == {"role": "user", "content": "What is my locker code?"}, "the question as asked"
    assert told["role"] == "system" and "2024-05-09 18:30" in told["content"], told
    assert "short phrase" in told["content"], "LoCoMo's answering instructions"
    await agent.answer_for("ltm", None)
    await agent.reply(Message("And my bike lock?", datetime(2024, 5, 10, 8, 0)))
    step = [r for r in letta.requests if r.path.endswith("/messages") and r.path.startswith("/v1/agents/")][
        -1
    ]
    told, question = step.body["messages"]
    assert told == {"role": "system", "content": "The current date is 2024-05-10 08:00."}, told
    assert question == {"role": "user", "content": "And my bike lock?"}
    await agent.aclose()


@pytest.mark.asyncio
async def test_a_probes_question_is_asked_in_a_fork_and_leaves_the_agent_as_it_was(
    letta: LettaServer,
) -> None:
    letta.step_seconds = 0.05
    client = store_client(parse_agent_spec(_spec(letta, ",ingest=messages")), AgentOptions())
    await client.add(
        [Message("My locker code is 4512.", WHEN), Message("Noted.", WHEN, "assistant")], "conv-a"
    )
    (agent,) = letta.agents.values()
    history = list(agent.history)
    question = "What is my locker code?"
    first, second, *others = await asyncio.gather(
        *(client.answer(question, "conv-a", aside=True) for _ in range(4))
    )
    assert first == second == "I remember: user: My locker code is 4512." and set(others) == {first}, (
        "the same question gets the same context every time"
    )
    assert agent.history == history and not letta.forks, "each fork deleted, the agent's history untouched"
    assert letta.refused == 0, "never two sends to one agent at once"
    on_the_record = await client.answer(question, "conv-a")
    assert agent.history[-2:] == [
        {"role": "user", "content": question},
        {"role": "assistant", "content": on_the_record},
    ], "a conversation's own question stays in its history"


@pytest.mark.asyncio
async def test_with_ingest_messages_the_agent_is_sent_only_what_it_has_not_seen(letta: LettaServer) -> None:
    client = store_client(parse_agent_spec(_spec(letta, ",ingest=messages,batch=2")), AgentOptions())
    question = "Where did I park?"
    reply = await client.answer(question, "conv-a")
    later = [Message(f"Note {n}: the lift is out.", WHEN) for n in range(3)]
    await client.add([Message(question, WHEN), Message(reply, WHEN, "assistant"), *later], "conv-a")
    steps = [r.body["messages"] for r in letta.requests if r.path.endswith("/messages")]
    assert [len(step) for step in steps] == [1, 2, 1], "the answered exchange not resent; 2 a call"
    assert steps[1][0]["content"] == "Note 0: the lift is out."
    assert not client.store.keeps_every_message, "the health check finds only what the agent archived"


def test_the_servers_model_handles_replace_the_model_spec(letta: LettaServer) -> None:
    spec = (
        f"letta(url={letta.url},model=anthropic/claude-x,embedding=openai/text-embedding-3-small):anthropic:x"
    )
    store = store_client(parse_agent_spec(spec), AgentOptions()).store
    assert store.agent_config == {"model": "anthropic/claude-x", "embedding": "openai/text-embedding-3-small"}
    with pytest.raises(UsageError, match=r"give the server's handles, letta\(model=PROVIDER/MODEL"):
        store_client(parse_agent_spec(f"letta(url={letta.url}):anthropic:claude-x"), AgentOptions())


@pytest.mark.asyncio
async def test_a_429_is_retried_and_the_message_archived_once(letta: LettaServer) -> None:
    client = store_client(parse_agent_spec(_spec(letta)), AgentOptions())
    await client.add([Message("Seed.", WHEN)], "conv-a")
    letta.faults = [429, 429]
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    assert not letta.faults
    found = await client.search("locker code", "conv-a", 5)
    assert [hit.text for hit in found] == ["user: My locker code is 4512."], "archived once"


@pytest.mark.asyncio
async def test_a_step_longer_than_the_sdks_own_timeout_is_sent_once(
    letta: LettaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK waits as long as --mb-timeout allows, not its own 60 s: an SDK that gave up first sent
    the step again while the server was still making it (a slow real server got a question twice)."""
    import httpx

    # the SDK's own default, made shorter than a step
    monkeypatch.setattr("letta_client._base_client.DEFAULT_TIMEOUT", httpx.Timeout(0.2))
    monkeypatch.setattr("letta_client._base_client.BaseClient._calculate_retry_timeout", lambda *_: 0.0)
    without_back_off(monkeypatch)
    letta.step_seconds = 0.5
    client = store_client(parse_agent_spec(_spec(letta, ",ingest=messages")), AgentOptions(timeout=5))
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    reply = await client.answer("What is my locker code?", "conv-a")
    assert "4512" in reply
    sends = [r for r in letta.requests if r.method == "POST" and r.path.endswith("/messages")]
    assert len(sends) == 2 and letta.refused == 0, "the message and the question, each sent once"
    (agent,) = letta.agents.values()
    assert [m["content"] for m in agent.history if m["role"] == "user"] == [
        "My locker code is 4512.",
        "What is my locker code?",
    ]


def test_a_server_that_does_not_answer_in_time_is_not_said_to_be_missing() -> None:
    """The SDK's own timeout (what is left of it with --mb-timeout off) is a connection error to the
    SDK; the store says the server was slow, not that there is none."""
    import httpx
    from letta_client import APITimeoutError

    store = store_client(
        parse_agent_spec(f"letta(url={MODEL}):openai:m@{MODEL}"), AgentOptions(timeout=None)
    ).store

    def step() -> None:
        raise APITimeoutError(request=httpx.Request("POST", MODEL))

    with pytest.raises(
        TimeoutError, match=re.escape(f"the Letta server at {MODEL} gave no answer within 601 s")
    ):
        store._call(step)


@pytest.fixture
def model() -> Iterator[LLMServer]:
    with scripted_memory_server() as (server, _):
        yield server


def test_a_refused_key_stops_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester, letta: LettaServer, monkeypatch: pytest.MonkeyPatch, model: LLMServer
) -> None:
    monkeypatch.setenv("LETTA_API_KEY", "revoked")
    result = pytester.runpytest(
        "--memorybench", "-p", "no:cacheprovider", f"--agent={_spec(letta, '', model.openai_url)}"
    )
    assert "Letta refused the key (HTTP 401): set LETTA_API_KEY" in usage_error_line(result)
    assert len(letta.requests) == 1


def test_no_letta_server_is_one_line_before_any_test(
    pytester: pytest.Pytester, model: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the SDK's retries and the harness's, each try refused at once: without their waits (6 s)
    monkeypatch.setattr("letta_client._base_client.BaseClient._calculate_retry_timeout", lambda *_: 0.0)
    without_back_off(monkeypatch)
    spec = f"letta(url=http://127.0.0.1:9):openai:fake-model@{model.openai_url}"
    result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", f"--agent={spec}")
    assert "no Letta server answers at http://127.0.0.1:9" in usage_error_line(result)


@pytest.mark.parametrize("ingest", ["archival", "messages"])
def test_letta_runs_the_ltm_suite_answering_itself_an_agent_per_conversation(
    pytester: pytest.Pytester, letta: LettaServer, model: LLMServer, ingest: str
) -> None:
    results = two_scenarios(pytester, _spec(letta, f",ingest={ingest}", model.openai_url))
    store = results["totals"]["store"]
    assert store["native_answers"] > 0
    assert results["totals"]["evidence_recall"]["mean"] > 0.5
    if ingest == "archival":  # every message a passage, and what the agent archived itself answering
        assert store["stored"] > store["messages"], store
    namespaces = {namespace for r in letta.requests if (namespace := letta.namespace(r))}
    assert len(namespaces) >= len(results["conversations"]) + 1, "one for each conversation, and the check's"
    assert not letta.agents, "every agent deleted"


@pytest.mark.real_model
@pytest.mark.asyncio
async def test_a_real_letta_server_on_smollm2_archives_searches_and_answers(
    letta_service: str, embedding_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Letta 0.16.8 itself, on PostgreSQL with pgvector, its agents' model and embedder SmolLM2: passages
    embedded by the server and dated, archival search at k, a native answer and its usage, an agent
    per conversation, deleted by clear."""
    monkeypatch.delenv("LETTA_API_KEY", raising=False)
    model = f"openai:{MODEL_ALIAS}@{embedding_server}"
    spec = f"letta(url={letta_service},context_window=8192,embedding_dim=576):{model}"
    client = store_client(parse_agent_spec(spec), AgentOptions(timeout=600))
    later = WHEN.replace(minute=1)
    await client.add(
        [Message("My favourite colour is teal.", WHEN), Message("Noted: teal.", later, "assistant")], "conv-a"
    )
    await client.add([Message("My bike lock code is 9981.", WHEN)], "conv-b")
    found = await client.search("What is my favourite colour?", "conv-a", 5)
    assert {(hit.text, hit.timestamp) for hit in found} == {
        ("user: My favourite colour is teal.", WHEN),
        ("assistant: Noted: teal.", later),
    }
    assert [hit.text for hit in await client.search("bike lock", "conv-b", 5)] == [
        "user: My bike lock code is 9981."
    ]
    reply = await client.answer("What is my favourite colour?", "conv-a")
    assert reply.strip(), "the agent's assistant message"
    agent = client.store._agents["conv-a"]
    history = len(client.store.client.agents.messages.list(agent, limit=100).items)
    aside = await client.answer("What is my favourite colour?", "conv-a", aside=True)
    assert aside.strip(), "a probe's answer, in a fork of the conversation"
    assert len(client.store.client.agents.messages.list(agent, limit=100).items) == history, (
        "the probe's question left the agent's own history as it was"
    )
    usage = client.store.usage
    assert usage.calls >= 1 and usage.input_tokens > 200 and usage.output_tokens > 0
    agents = client.store.client.agents.list(tags=["memorybench"])
    assert {agent.name for agent in agents} == {"conv-a", "conv-b"}
    await client.clear("conv-a")
    assert {agent.name for agent in client.store.client.agents.list(tags=["memorybench"])} == {"conv-b"}
    await client.clear("conv-b")
    await client.close()


def test_letta_runs_a_locomo_sample_its_questions_in_forks_none_refused(
    pytester: pytest.Pytester, letta: LettaServer, model: LLMServer
) -> None:
    letta.step_seconds = 0.02
    run = pytester.path / "run"
    result = pytester.runpytest(
        "--memorybench", "--mb-suite=locomo", "-p", "no:cacheprovider", "-k", "not cognitive",
        f"--agent={_spec(letta, ',ingest=messages', model.openai_url)}", f"--mb-output={run}",
    )  # fmt: skip
    totals = results_in(run)["totals"]
    assert not totals["errors"] and totals["max"] >= 10, result.stdout.str()[-3000:]
    assert letta.refused == 0, "never two sends to one agent at once"
    forked = [r for r in letta.requests if r.path.endswith("/fork")]
    assert len(forked) == totals["max"] and not letta.forks, (
        "every question in a fork of its own, deleted after"
    )
    questions = {
        m["content"]
        for r in letta.requests
        if r.method == "POST" and r.path.startswith("/v1/conversations/conv-")
        for m in r.body["messages"]
    }
    told = {m["content"] for r in letta.requests if letta.adds(r) for m in r.body["messages"]}
    assert len(questions) >= 10 and not questions & told, "no question entered an agent's own history"
