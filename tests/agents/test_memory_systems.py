"""The seeds' memory systems over a scripted model on 127.0.0.1: what each stores, and what reaches its
answer.

The model (`tests/support/memory_model.py`) answers every kind of request a mechanism makes
deterministically and reads its answers from the prompt, so each test asserts on the mechanism's
own behaviour: what it extracted, rated, forgot, evicted or found, and what its answering prompt held.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from pytest_memorybench.agents.agent_build import build_agent, check_agent_spec
from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.evidence_match import holds
from pytest_memorybench.agents.mechanisms.embedders import EmbedderSpec, parse_embedder
from pytest_memorybench.agents.registry import MECHANISMS
from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from tests.support.llm_server import LLMServer
from tests.support.memory_model import NOTED, MemoryModelScript, embeddings, scripted_memory_server

START = datetime(2024, 3, 1, 9, 0)
FACT = "Please remember that my locker code is 4512."
FILLER = [f"Filler message number {n} about trains, weather and the price of tea." for n in range(40)]


@pytest.fixture
def served() -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    with scripted_memory_server() as served:
        yield served


def make(
    server: LLMServer, spec: str, context: int = 2000, embedder: EmbedderSpec | None = None
) -> AgentAdapter:
    options = AgentOptions(context_tokens=context, embedder=embedder)
    return build_agent(parse_agent_spec(f"{spec}:openai:fake-model@{server.openai_url}"), options)


async def tell(
    agent: AgentAdapter, texts: list[str], start: datetime = START, step: timedelta = timedelta(minutes=10)
) -> datetime:
    moment = start
    for text in texts:
        await agent.reply(Message(text, moment))
        moment += step
    return moment


def run(coroutine):  # noqa: ANN001, ANN201 - a test's own event loop
    return asyncio.run(coroutine)


# -- specs and settings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("rag(k=-1):openai:m", "rag: k must be 1 or more"),
        ("rag(depth=3):openai:m", "rag has no setting 'depth'; its settings: chunk=pair, k=0, recent=0"),
        (
            "rag(kk=3):openai:m",
            "rag has no setting 'kk'; did you mean k? (its settings: chunk=pair, k=0, recent=0)",
        ),
        ("light(k=many):openai:m", "light(k=many): expected int, like k=5"),
        ("memgpt(calls=xml):openai:m", "calls must be one of tools, json"),
        (
            "light(scratchpad_target=40000):openai:m",
            "scratchpad_target (40000) must be below scratchpad_max (30000)",
        ),
        ("rag", "rag needs a model to answer"),
        ("rag:recall", "rag answers with a model"),
        (
            "lite:openai:m",
            "'lite' is no model prefix (openai, anthropic), memory mechanism or store; did you mean light?",
        ),
    ],
)
def test_a_bad_memory_spec_is_one_line_naming_the_problem(spec: str, message: str) -> None:
    with pytest.raises(UsageError) as excinfo:
        parse_agent_spec(spec)
    assert message in str(excinfo.value) and "\n" not in str(excinfo.value)


def test_every_mechanism_parses_with_its_papers_defaults_and_keeps_the_model() -> None:
    for name in MECHANISMS:
        spec = parse_agent_spec(f"{name}:openai:gpt-4o-mini@http://127.0.0.1:9/v1")
        assert spec.kind == "memory" and spec.target == name and spec.model.target == "gpt-4o-mini"
    assert parse_agent_spec("rag:openai:m").memory.settings.top == 5  # BEAM's top five turn pairs
    assert (
        parse_agent_spec("rag(chunk=message):openai:m").memory.settings.top == 10
    )  # MemBench's RetrievalMemory
    assert parse_agent_spec("rag(chunk=chapter):openai:m").memory.settings.top == 17  # Huet et al. App. E.2
    light = parse_agent_spec("light:openai:m").memory.settings
    assert (light.scratchpad_max, light.scratchpad_target) == (30_000, 15_000)
    assert parse_agent_spec("generative-agents:openai:m").memory.settings.reflect_threshold == 150
    assert parse_agent_spec("recent-memory").kind == "builtin"  # without a model: the offline reference agent


def test_an_embeddings_endpoint_that_is_down_is_one_line_before_any_test() -> None:
    spec = parse_agent_spec("rag:openai:m@http://127.0.0.1:9/v1")
    with pytest.raises(UsageError) as excinfo:
        check_agent_spec(spec, AgentOptions(embedder=parse_embedder("openai:embed@http://127.0.0.1:9/v1")))
    assert "cannot reach" in str(excinfo.value)
    with pytest.raises(UsageError, match="--mb-embedder 'bm42' is not an embedder; embedders: lexical, "):
        parse_embedder("bm42")
    with pytest.raises(
        UsageError, match=r"--mb-embedder 'wordlama' is not an embedder; did you mean wordllama\?"
    ):
        parse_embedder("wordlama")


# -- each mechanism's behaviour ---------------------------------------------------------------


def test_full_context_loses_what_left_the_window_and_rag_finds_it(served) -> None:  # noqa: ANN001
    server, script = served

    async def scenario(spec: str) -> tuple[str, list[str]]:
        agent = make(server, spec)
        moment = await tell(agent, [FACT, *FILLER])
        answer = await agent.reply(Message("What is my locker code?", moment))
        return answer, await agent.retrieve("locker code", 3)

    answer, in_window = run(scenario("full-context"))
    assert "4512" not in answer and not any("4512" in text for text in in_window)
    answer, found = run(scenario("rag"))
    assert "4512" in answer and "4512" in found[0]
    assert (
        "user: Please remember that my locker code is 4512." in script.answer_prompts[-1]
    )  # a turn pair, as BEAM's RAG
    assert "Filler message number 39" not in script.answer_prompts[-1]


def test_rag_paragraphs_are_labelled_with_their_chapter(served) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, "rag(chunk=paragraph,k=1)")
    chapter = (
        "Chapter 7\n\nThe lighthouse keeper counted the gulls.\n\nOn Friday the ferry to Skye was cancelled."
    )
    run(tell(agent, [chapter, *FILLER[:5], "When was the ferry to Skye cancelled?"]))
    assert "- Chapter 7, Paragraph 3: On Friday the ferry to Skye was cancelled." in script.answer_prompts[-1]
    assert "lighthouse" not in script.answer_prompts[-1]  # k=1: one paragraph


def test_light_indexes_extractions_keeps_notes_and_compresses_them_past_the_threshold(served) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, "light(scratchpad_max=120,scratchpad_target=60,z=1,chunk_tokens=12)")
    moment = run(tell(agent, [FACT, *FILLER[:12]]))
    light = agent.target
    assert light.compressions >= 1 and sum(len(note.split()) for note in light.notes) < 120
    assert len(light.segments) == 13 and script.asked["extract"] == 13 and script.asked["notes"] == 13
    judged = script.asked["relevance"]
    reply = run(agent.reply(Message("What is my locker code?", moment)))
    assert "4512" in reply
    prompt = script.answer_prompts[-1]
    assert "## Retrieved conversation segments" in prompt and "4512" in prompt
    # each chunk of the scratchpad was judged; only those sharing a word with the question remain
    chunks = light.scratchpad_chunks()
    assert (
        script.asked["relevance"] - judged == len(chunks) - 1 > 0
    )  # the chunks before this exchange's notes
    notes = (
        prompt.split("## Scratchpad notes\n")[1].split("\n\n")[0].splitlines()
        if "## Scratchpad notes" in prompt
        else []
    )
    assert all("Filler" not in note for note in notes)


def test_light_carries_on_when_the_model_returns_no_json(served) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, "light")
    server.queue(text="I am not JSON at all", times=3)  # the answer, the extraction and its one retry
    run(tell(agent, [FACT]))
    assert agent.target.segments and agent.target.notes == [FACT]
    assert len(agent.target.key_segment) == 0  # no keys for that exchange: nothing indexed, nothing crashed
    assert run(agent.reply(Message("Hi there.", START + timedelta(hours=1)))) == NOTED


def test_ltm_agent_keeps_a_json_scratchpad_in_context_and_adds_retrieved_memories(served) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, "ltm-agent")
    moment = run(tell(agent, [FACT, *FILLER]))
    assert FACT in agent.target.scratchpad["notes"] or agent.target.scratchpad["notes"]
    reply = run(agent.reply(Message("What is my locker code?", moment)))
    assert "4512" in reply
    prompt = script.answer_prompts[-1]
    assert "## Scratchpad (JSON)" in prompt and "## Long-term memories" in prompt
    assert script.asked["queries"] == 42 and script.asked["scratchpad"] == 42


def test_memorybank_forgets_what_is_never_recalled_and_keeps_what_is(served) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, "memorybank")
    run(tell(agent, ["My sister's name is Ottilie.", "Please remember that my bike is green."]))
    bank = agent.target
    # recalled twice over two days: strength 3, so it outlasts the unrecalled memory
    run(agent.reply(Message("What colour is my bike?", START + timedelta(days=1))))
    run(agent.reply(Message("What colour is my bike?", START + timedelta(days=2))))
    run(agent.reply(Message("Good morning!", START + timedelta(days=4))))
    sister, bike = bank.memories[0], bank.memories[1]
    assert sister.forgotten and not bike.forgotten and bike.strength >= 3
    assert not any("Ottilie" in text for text in run(agent.retrieve("sister name", 5)))
    assert (
        bank.summaries
        and bank.summaries[0].startswith("2024-03-01")
        and bank.portrait.startswith("The user:")
    )
    assert script.asked["day"] >= 2 and script.asked["portrait"] >= 2 and script.asked["overall"] >= 2
    assert bank.overall.startswith("My sister's name is Ottilie.") and " | " in bank.overall  # two days
    assert "## Summary of the conversation so far" in script.answer_prompts[-1]


@pytest.mark.parametrize("mechanism", ["memorybank", "rag"])
def test_a_resumed_memory_is_rebuilt_as_the_replies_built_it(served, mechanism: str) -> None:  # noqa: ANN001
    """`catch_up` with the logged exchanges (their own times) leaves the memory the replies left:
    MemoryBank answers again, so recalled memories are strengthened and the days close the same."""
    server, _ = served
    said = [
        (FACT, START),
        ("What is my locker code?", START + timedelta(days=1)),
        ("And my locker code again?", START + timedelta(days=2)),
    ]
    live = make(server, mechanism)
    history = []
    for text, moment in said:
        history += [
            Message(text, moment),
            Message(run(live.reply(Message(text, moment))), moment + timedelta(seconds=5), "assistant"),
        ]
    resumed = make(server, mechanism)
    run(resumed.catch_up(history))
    state = lambda agent: ([e.line for e in agent.target.log], agent.target.settings)  # noqa: E731
    assert state(resumed) == state(live)
    if mechanism == "memorybank":
        strengths = [m.strength for m in live.target.memories]
        assert strengths[0] == 3.0  # the fact, recalled by both questions
        assert [m.strength for m in resumed.target.memories] == strengths
        assert (
            resumed.target.summaries == live.target.summaries
            and resumed.target.portrait == live.target.portrait
        )
        assert resumed.memory_usage["read"].calls == len(said)  # each message answered again


def test_generative_agents_rates_importance_and_reflects_past_the_threshold(served) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, "generative-agents(reflect_threshold=20)")
    run(
        tell(
            agent,
            [FACT, "Please remember my flight leaves at 7.", "Please remember the code 99 for the gate."],
        )
    )
    stream = agent.target.stream
    assert [o.importance for o in stream[:2]] == [8.0, 2.0]  # asked to remember: 8; "Noted.": 2
    assert agent.target.reflections >= 1 and any(o.insight for o in stream)
    assert script.asked["questions"] >= 1 and script.asked["insights"] >= 1


def test_generative_agents_retrieval_weighs_recency_importance_and_relevance(served) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, "generative-agents(k=1)")
    moment = run(tell(agent, [FACT, *FILLER[:6]], step=timedelta(hours=5)))
    assert "4512" in run(agent.retrieve("locker code", 1))[0]
    reply = run(agent.reply(Message("What is my locker code?", moment)))
    assert "4512" in reply


@pytest.mark.parametrize("calls", ["tools", "json"])
def test_memgpt_evicts_to_recall_memory_and_finds_it_again(served, calls: str) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, f"memgpt(calls={calls})", context=1400)
    moment = run(tell(agent, [FACT, *FILLER]))
    memgpt = agent.target
    assert memgpt.evictions >= 1 and "4512" in memgpt.summary
    assert not any("4512" in entry.text for entry in memgpt.queue)  # no longer in context
    assert memgpt.archive[0] == FACT  # it asked to remember: archival_memory_insert
    reply = run(agent.reply(Message("What is my locker code?", moment)))
    assert "4512" in reply  # conversation_search, then send_message
    requests = [r.body for r in server.requests_to("/v1/chat/completions")]
    assert any("tools" in body for body in requests) == (calls == "tools")
    assert agent.memory_usage["write"].calls >= memgpt.evictions + 1  # the eviction summaries and the insert


def test_memgpt_falls_back_to_json_calls_when_the_server_refuses_tools(served) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, "memgpt")
    server.queue(
        400,
        body={"error": {"message": "tools are not supported by this model", "type": "invalid_request_error"}},
    )
    assert run(agent.reply(Message("Hello!", START))) == NOTED
    assert agent.target.caller.by_json


def test_memgpt_answers_an_unknown_function_with_an_error_and_goes_on(served) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, "memgpt(calls=json)")
    server.queue(text=json.dumps({"function": "delete_everything", "arguments": {}}))
    assert run(agent.reply(Message("Hello!", START))) == NOTED
    sent = server.requests_to("/v1/chat/completions")[1].body["messages"]
    assert "error: no function 'delete_everything'" in sent[-1]["content"]


def test_scm_recalls_only_when_its_controller_says_so(served) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, "scm")
    moment = run(tell(agent, [FACT, *FILLER[:3]]))
    run(agent.reply(Message("Lovely weather today.", moment)))
    assert "## Memories" not in script.answer_prompts[-1]  # the controller said no
    assert run(agent.context()) == [FILLER[2], NOTED]  # the flash memory only: the previous turn
    assert "4512" in run(agent.reply(Message("What is my locker code?", moment)))
    assert "## Memories" in script.answer_prompts[-1]


def test_recent_memory_sees_only_its_last_turns(served) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, "recent(turns=6)")
    moment = run(tell(agent, [FACT, *FILLER[:5]]))
    assert "4512" not in run(agent.reply(Message("What is my locker code?", moment)))


# -- what every mechanism shares -----------------------------------------------------------------


@pytest.mark.parametrize("mechanism", sorted(MECHANISMS))
def test_model_calls_are_counted_as_write_or_read_and_forks_are_independent(served, mechanism: str) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, mechanism)
    moment = run(tell(agent, [FACT, *FILLER[:3]], step=timedelta(hours=13)))
    twin = run(agent.fork())
    run(twin.reply(Message("Remember that my cat is called Pip.", moment)))
    assert len(twin.target.log) == len(agent.target.log) + 2
    read = agent.memory_usage["read"]
    assert read.calls >= 4 and read.input_tokens > 0
    total = agent.memory_usage["read"].calls + agent.memory_usage["write"].calls
    assert (
        total == agent.target.usage.calls + twin.target.usage.calls
    )  # a fork adds its calls to the same phases
    assert agent.usage.calls == 4  # the adapter counts replies, the phases count model calls


@pytest.mark.parametrize("mechanism", sorted(MECHANISMS))
def test_every_mechanism_lists_what_it_holds_for_what_it_wrote(served, mechanism: str) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, mechanism)
    run(tell(agent, [FACT, *FILLER[:3]]))
    listing = run(agent.take_stock())
    assert listing is not None and "stored" in agent.capabilities
    assert any(holds(memory, FACT) for memory in listing), f"{mechanism} lists no memory holding the fact"
    if mechanism == "recent":  # a window of 2 messages has let the fact go: it no longer holds it
        window = make(server, "recent(turns=2)")
        run(tell(window, [FACT, *FILLER[:3]]))
        assert not any(holds(memory, FACT) for memory in run(window.take_stock()) or [])


def test_dense_retrieval_through_an_embeddings_endpoint_is_charged_to_the_memory(served) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, "rag", embedder=parse_embedder(f"openai:embed@{server.openai_url}"))
    moment = run(tell(agent, [FACT, *FILLER[:8]]))
    assert "4512" in run(agent.reply(Message("What is my locker code?", moment)))
    assert server.requests_to("/v1/embeddings")
    assert (
        agent.memory_usage["write"].calls == 10 and agent.memory_usage["write"].input_tokens > 0
    )  # an exchange each


def test_an_endpoint_that_returns_a_vector_per_token_is_pooled(served) -> None:  # noqa: ANN001
    """llama.cpp serving a chat model has no pooling: its embeddings come per token."""
    server, _ = served

    def per_token(request, text):  # noqa: ANN001, ANN202
        body = embeddings(request, text)
        for item in body["data"]:
            item["embedding"] = [item["embedding"], [2 * value for value in item["embedding"]]]
        return body

    server.routes[("POST", "/v1/embeddings")] = per_token
    agent = make(server, "rag", embedder=parse_embedder(f"openai:embed@{server.openai_url}"))
    moment = run(tell(agent, [FACT, *FILLER[:8]]))
    assert "4512" in run(agent.retrieve("What is my locker code?", 1))[0]
    assert "4512" in run(agent.reply(Message("What is my locker code?", moment)))


def test_wordllama_embeds_offline_from_its_wheel() -> None:
    pytest.importorskip("wordllama")
    from pytest_memorybench.agents.mechanisms.embedders import WordLlamaEmbedder

    vectors, _ = run(
        WordLlamaEmbedder().embed(
            ["My dog is called Biscuit.", "What is my dog called?", "The stock market fell."]
        )
    )
    assert vectors.shape == (3, 256)
    assert vectors[0] @ vectors[1] > 0.5 > vectors[0] @ vectors[2]
