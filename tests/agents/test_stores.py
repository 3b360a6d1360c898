"""Memory stores on equal terms: one k, one prompt, a namespace each, and failures that are never scores.

The stores here are written as a user would write them (plain classes, sync or async); the scripted
model (`tests/support/memory_model.py`) answers from whatever hits reach its prompt, so a test can
tell what the store found from what the answer says.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import re
import socket
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import pytest

from pytest_memorybench.agents.agent_build import build_agent
from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.memory import ANSWER_PROMPTS
from pytest_memorybench.agents.stores.store_build import unreachable
from pytest_memorybench.agents.stores.store_protocol import Hit, StoreClient, StoreError, as_hit
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from tests.support.llm_server import LLMServer
from tests.support.mcp_server import reference_store, require_reference_mcp_server
from tests.support.memory_model import MemoryModelScript, scripted_memory_server
from tests.support.paths import DOCS, REFERENCE
from tests.support.runs import results_in, usage_error_line
from tests.support.store_runs import without_back_off

pytest_plugins = ["pytester"]

PAGE = DOCS / "stores.md"
LOCOMO = REFERENCE / "locomo" / "locomo10.json"
WHEN = datetime(2024, 5, 1, 9, 0)
# The colours test's three conversations; one after the other (a store that fails the second fails it)
COLOURS = ("--memorybench", "--span=isolated", "-k", "colours", "-p", "no:cacheprovider")
ONE_BY_ONE = (*COLOURS, "--mb-concurrency=1")


def example_source() -> str:
    found = re.search(r"<!-- example: list store -->\n```python\n(.*?)```", PAGE.read_text(), re.S)
    assert found, "docs/stores.md lost its example store"
    return found[1]


@pytest.fixture
def no_back_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failing store's three tries without the 1.5 s the harness waits between them."""
    without_back_off(monkeypatch)


@pytest.fixture
def model() -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    with scripted_memory_server() as served:
        yield served


# -- stores a user might write ----------------------------------------------------------------------


class Words:
    """Every message kept per namespace; search by shared words, newest first among equals."""

    def __init__(self) -> None:
        self.spaces: dict[str, list[Message]] = {}
        self.cleared: list[str] = []

    def add(self, messages: list[Message], namespace: str) -> None:
        self.spaces.setdefault(namespace, []).extend(messages)

    def search(self, query: str, namespace: str, k: int) -> list[Any]:
        wanted = set(re.findall(r"[a-z]+", query.lower()))
        kept = reversed(self.spaces.get(namespace, []))
        ranked = sorted(kept, key=lambda m: -len(wanted & set(re.findall(r"[a-z]+", m.text.lower()))))
        return [{"memory": m.text, "score": 1.0, "timestamp": m.timestamp} for m in ranked[:k]]

    def clear(self, namespace: str) -> None:
        self.cleared.append(namespace)
        self.spaces.pop(namespace, None)


class Thirty(Words):
    """Ignores k, as a product once did: returns 30 hits (what it holds, again and again)."""

    def search(self, query: str, namespace: str, k: int) -> list[Any]:
        return (super().search(query, namespace, 30) * 30)[:30]


class Slow(Words):
    """Indexes asynchronously: what is added is found only after `wait`, which takes 50 ms."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: dict[str, list[Message]] = {}

    def add(self, messages: list[Message], namespace: str) -> None:
        self.pending.setdefault(namespace, []).extend(messages)

    async def wait(self, namespace: str) -> None:
        await asyncio.sleep(0.05)
        super().add(self.pending.pop(namespace, []), namespace)


class Breaking(Words):
    """Fails every search of the second conversation it is given (the check before the run is first).
    The namespaces it was given are the process's: a test starts each run with `Breaking.anew()`."""

    namespaces: list[str] = []

    @classmethod
    def anew(cls) -> str:
        """A new run's store: no namespace given yet.  Returns the class's factory name."""
        cls.namespaces.clear()
        return "Breaking"

    def add(self, messages: list[Message], namespace: str) -> None:
        if namespace not in Breaking.namespaces:
            Breaking.namespaces.append(namespace)
        super().add(messages, namespace)

    def search(self, query: str, namespace: str, k: int) -> list[Any]:
        if Breaking.namespaces.index(namespace) == 2:
            raise ConnectionError("the index went away")
        return super().search(query, namespace, k)


class Answering(Words):
    """An agent framework as a store: it answers itself, from what it was given."""

    def answer(self, question: str, namespace: str) -> str:
        return f"From my own memory: {self.spaces[namespace][-1].text}"


class Forgetful(Words):
    """Adds nothing it can find again: every search is empty."""

    def search(self, query: str, namespace: str, k: int) -> list[Any]:
        return []


class Down:
    """A store whose server is not there."""

    def add(self, messages: list[Message], namespace: str) -> None:
        raise ConnectionRefusedError("connection refused: 127.0.0.1:6333")

    def search(self, query: str, namespace: str, k: int) -> list[str]:
        raise ConnectionRefusedError("connection refused: 127.0.0.1:6333")

    def clear(self, namespace: str) -> None:
        raise ConnectionRefusedError("connection refused: 127.0.0.1:6333")


def _agent(spec: str, **options: Any) -> AgentAdapter:
    return build_agent(parse_agent_spec(spec), AgentOptions(**options))


def _spec(factory: str, server: LLMServer) -> str:
    return f"store(factory=tests.agents.test_stores:{factory}):openai:fake-model@{server.openai_url}"


async def _told(factory: str, server: LLMServer, text: str) -> AgentAdapter:
    """An agent on one of the stores here that has observed `text`."""
    agent = _agent(_spec(factory, server))
    await agent.observe([Message(text, WHEN)])
    return agent


# -- the protocol ---------------------------------------------------------------------------------


def test_a_hit_is_read_from_the_shapes_stores_return() -> None:
    assert as_hit("plain text") == Hit("plain text")
    assert as_hit({"memory": "likes tea", "score": 0.8}) == Hit("likes tea", 0.8)
    assert as_hit({"content": "x", "timestamp": WHEN}).line == "[2024-05-01 09:00] x"
    with pytest.raises(TypeError, match="needs a text"):
        as_hit({"id": 3})


def test_a_store_spec_names_the_store_and_the_model_that_answers_for_it() -> None:
    spec = parse_agent_spec("store(factory=pkg.mod:make):openai:gpt-4o-mini")
    assert (spec.kind, spec.store and spec.store.settings.factory, spec.model.text) == (
        "store",
        "pkg.mod:make",
        "openai:gpt-4o-mini",
    )
    assert parse_agent_spec("bm25:anthropic:claude-haiku-4-5").kind == "store"
    assert parse_agent_spec("pkg.mod:make").kind == "import"  # without a model it is an agent, as before
    with pytest.raises(UsageError, match=r"store\(factory=pkg.module:attribute\)"):
        parse_agent_spec("store(factory=nothing):openai:gpt-4o-mini")
    with pytest.raises(UsageError, match="no setting 'k'"):
        parse_agent_spec("bm25(k=3):openai:gpt-4o-mini")


def test_a_misspelt_store_or_mechanism_is_one_line_naming_the_closest_choice() -> None:
    with pytest.raises(UsageError) as refused:
        parse_agent_spec("ragg:openai:fake-model@http://127.0.0.1:9/v1")
    message = str(refused.value)
    assert "'ragg' is no model prefix (openai, anthropic), memory mechanism or store" in message
    assert "did you mean rag?" in message and "every form: pytest --help" in message
    assert "\n" not in message and len(message) <= 200


@pytest.mark.asyncio
async def test_a_store_that_returns_thirty_hits_is_cut_to_k_and_the_record_says_so(model: Any) -> None:
    server, script = model
    agent = _agent(_spec("Thirty", server), k=10)
    await agent.observe([Message(f"Note {n}: the kettle is in cupboard {n}.", WHEN) for n in range(40)])
    found = await agent.retrieve("Where is the kettle?", 10)
    reply = await agent.reply(Message("Where is the kettle?", WHEN))
    shown = await agent.context()
    assert len(found) == 30 and len(shown) == 10 and reply
    assert script.answer_prompts[-1].count("the kettle is in cupboard") == 10
    figures = agent.store_figures
    assert figures is not None
    record = figures.since(None)
    assert (record["over_k"], record["returned_max"], record["answers"]) == (1, 30, 1)
    assert len(figures.search_seconds) == 1, "the evidence search and the answer's are one search"
    await agent.aclose()


@pytest.mark.asyncio
async def test_waiting_for_indexing_is_ingest_time_and_happens_before_the_search(model: Any) -> None:
    server, _ = model
    agent = await _told("Slow", server, "My locker code is 4512.")
    reply = await agent.reply(Message("What is my locker code?", WHEN))
    assert "4512" in reply
    record = agent.store_figures.since(None) if agent.store_figures else {}
    assert record["ingest_seconds"] >= 0.05 and record["messages"] == 3  # observed, question, reply
    await agent.aclose()


@pytest.mark.asyncio
async def test_a_store_that_answers_itself_is_asked_instead_of_the_model_and_the_run_says_so(
    model: Any,
) -> None:
    server, script = model
    agent = await _told("Answering", server, "The kettle is in cupboard 3.")
    reply = await agent.reply(Message("Where is the kettle?", WHEN))
    assert reply == "From my own memory: The kettle is in cupboard 3."
    assert not script.answer_prompts, "the harness's model was not asked"
    figures = agent.store_figures.since(None) if agent.store_figures else {}
    assert figures["native_answers"] == 1 and figures["answers"] == 0
    from pytest_memorybench.agents.stores.figures import pooled
    from pytest_memorybench.reports.summary import store_text

    said = store_text(pooled([{"store": figures}]))
    assert "1 question answered by the store itself, not the harness" in said[0]
    await agent.aclose()


@pytest.mark.asyncio
async def test_conversations_at_once_never_see_each_others_memories(model: Any) -> None:
    server, _ = model
    first, second = _agent(_spec("Words", server)), _agent(_spec("Words", server))

    async def talk(agent: AgentAdapter, colour: str) -> str:
        await agent.reply(Message(f"My favourite colour is {colour}.", WHEN))
        await asyncio.sleep(0)
        return await agent.reply(Message("What is my favourite colour?", WHEN))

    replies = await asyncio.gather(talk(first, "teal"), talk(second, "crimson"))
    assert "teal" in replies[0] and "crimson" not in replies[0]
    assert "crimson" in replies[1] and "teal" not in replies[1]
    namespaces = {first.target.namespace, second.target.namespace}
    assert len(namespaces) == 2 and all(name.startswith("memorybench-") for name in namespaces)
    store = first.target.client.store
    await first.aclose()
    assert store.cleared == [first.target.namespace] * 2, (
        "cleared before the first message and after the last"
    )
    await second.aclose()


@pytest.mark.asyncio
async def test_a_question_asked_on_a_fork_is_not_added_to_the_store(model: Any) -> None:
    server, _ = model
    agent = await _told("Words", server, "The spare key is under the blue pot.")
    fork = await agent.fork()
    assert "blue pot" in await fork.reply(Message("Where is the spare key?", WHEN))
    await fork.aclose()
    store = agent.target.client.store
    assert [m.text for m in store.spaces[agent.target.namespace]] == ["The spare key is under the blue pot."]
    await agent.aclose()


@pytest.mark.asyncio
async def test_a_search_that_keeps_failing_is_a_store_error_not_an_empty_result() -> None:
    calls = []

    def search(query: str, namespace: str, k: int) -> list[str]:
        calls.append(query)
        raise TimeoutError("read timed out")

    store = Words()
    store.search = search  # type: ignore[method-assign]
    client = StoreClient(store, "flaky", attempts=3, backoff=0.01)
    with pytest.raises(
        StoreError, match=r"store flaky: search\(\) raised TimeoutError: read timed out \(3 tries"
    ):
        await client.search("q", "ns", 10)
    assert len(calls) == 3


def test_an_object_without_search_is_no_store() -> None:
    with pytest.raises(StoreError, match=r"has no search\(\), clear\(\)"):
        StoreClient(type("Half", (), {"add": lambda self, m, n: None})(), "half")


@pytest.mark.asyncio
async def test_the_built_in_baselines_find_by_words_by_vectors_and_not_at_all(model: Any) -> None:
    server, _ = model
    from pytest_memorybench.agents.mechanisms.embedders import EmbedderSpec

    url = server.openai_url
    for spec, options, found in [
        (f"bm25:openai:fake-model@{url}", {}, True),
        (f"dense:openai:fake-model@{url}", {"embedder": EmbedderSpec("openai", "bag", url)}, True),
        (f"none:openai:fake-model@{url}", {}, False),
    ]:
        agent = _agent(spec, **options)
        await agent.observe([Message("The boat is called Marigold.", WHEN), Message("Tea at noon.", WHEN)])
        reply = await agent.reply(Message("What is the boat called?", WHEN))
        assert ("Marigold" in reply) is found, (spec, reply)
        await agent.aclose()
    with pytest.raises(UsageError, match="--mb-embedder"):
        _agent(f"dense:openai:fake-model@{url}")


# -- through the plugin ---------------------------------------------------------------------------


def _write_example(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(list_store=example_source())
    sys.modules.pop("list_store", None)


def test_the_docs_example_store_runs_the_ltm_suite_and_is_compared_with_bm25(
    pytester: pytest.Pytester, model: Any
) -> None:
    server, _ = model
    _write_example(pytester)
    runs = pytester.path / "runs"
    for name, spec in [("list", "store(factory=list_store:ListStore)"), ("bm25", "bm25")]:
        result = pytester.runpytest(
            "--memorybench",
            "--span=2k",
            "-p",
            "no:cacheprovider",
            f"--agent={spec}:openai:fake-model@{server.openai_url}",
            f"--mb-output={runs / name}",
        )
        assert result.ret in (0, 1), result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(["store bm25: k 10 · ingest * ms a message * · search p50 *"])
    totals = results_in(runs / "list")["totals"]
    store = totals["store"]
    assert store["store"] == "list_store:ListStore" and store["searches"] >= 30 and store["messages"] > 100
    assert store["search_p95_ms"] >= store["search_p50_ms"] > 0 and store["context_tokens_per_answer"] > 0
    assert totals["evidence_recall"]["questions"] == 30 and 0 < totals["evidence_recall"]["mean"] < 1
    assert not totals["errors"]
    assert store["stored"] is None and store["duplicates"] is None, "the example store cannot list itself"
    bm25 = results_in(runs / "bm25")["totals"]["store"]
    assert bm25["stored"] == bm25["messages"] and bm25["duplicates"] > 0, (
        "bm25 holds every message it was given; the same filler line said twice is a duplicate"
    )
    report = (runs / "list" / "report.html").read_text()
    assert "store list_store:ListStore: ingest per message" in report and "search p50 / p95" in report
    compared = pytester.runpytest("--mb-compare", str(runs / "list"), str(runs / "bm25"))
    compared.stdout.fnmatch_lines(["*ingest/msg    search p50 / p95  context*", "A *ms * ms *"])


def test_a_store_that_returns_thirty_is_reported_under_the_table(
    pytester: pytest.Pytester, model: Any
) -> None:
    server, _ = model
    result = pytester.runpytest(
        *COLOURS,
        f"--agent={_spec('Thirty', server)}",
        f"--mb-output={pytester.path / 'run'}",
    )
    result.stdout.fnmatch_lines(
        ["*tests.agents.test_stores:Thirty returned more than 10 hits for * of * searches (up to *); 10 used"]
    )


@pytest.mark.usefixtures("no_back_off")
def test_a_store_that_starts_failing_gives_errors_that_the_gate_refuses(
    pytester: pytest.Pytester, model: Any
) -> None:
    server, _ = model
    run = pytester.path / "run"
    result = pytester.runpytest(
        *ONE_BY_ONE, f"--agent={_spec(Breaking.anew(), server)}", f"--mb-output={run}", "--mb-min-score=0"
    )
    totals = results_in(run)["totals"]
    assert totals["errors"] == 1 and totals["errors_by_kind"] == {"store": 1}, totals
    assert totals["max"] == 2, "the conversations the store served are scored"
    result.stdout.fnmatch_lines(
        [
            "*Breaking: search() raised ConnectionError: the index went away (3 tries*",
            "*1 of 3 items errored (store): nothing to compare*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.usefixtures("no_back_off")
def test_a_store_that_finds_nothing_it_was_given_stops_the_run_before_any_test(
    pytester: pytest.Pytester, model: Any
) -> None:
    server, _ = model
    for store, said in [
        ("Forgetful", "search() found nothing for a sentence just added"),
        # a server that is down is tried three times, not waited for
        ("Down", "clear() raised ConnectionRefusedError: connection refused: 127.0.0.1:6333 (3 tries, "),
    ]:
        result = pytester.runpytest(
            "--memorybench", "-p", "no:cacheprovider", f"--agent={_spec(store, server)}"
        )
        error = usage_error_line(result)
        assert said in error and "failed its check before the run" in error
        assert ("is its server running there?" in error) == (store == "Down"), error


def test_a_refused_connection_is_found_however_an_sdk_wraps_it() -> None:
    """requests keeps the socket's error in its arguments (and a retry's re-raise replaces its
    context); httpx and aiohttp keep it as the context or cause. A refused key is no server down."""
    requests_like = OSError(RuntimeError("max retries", ConnectionRefusedError(111, "refused")))
    requests_like.__context__ = RuntimeError("the retry's own error")
    httpx_like = RuntimeError("All connection attempts failed")
    httpx_like.__context__ = ConnectionRefusedError(111, "refused")
    for error in (requests_like, httpx_like, socket.gaierror(-2, "Name or service not known")):
        store_error = StoreError("store x: clear() raised it")
        store_error.__cause__ = error
        assert unreachable(store_error), error
    refused = StoreError("store x: add() raised PermissionError: refused key")
    refused.__cause__ = PermissionError("refused key")
    assert not unreachable(refused)


@pytest.mark.e2e  # 200 questions of LoCoMo's published file, and LongMemEval: two whole runs
@pytest.mark.skipif(not LOCOMO.exists(), reason="../shared/reference/locomo is not here")
def test_the_docs_example_store_runs_locomo_and_longmemeval(pytester: pytest.Pytester, model: Any) -> None:
    server, script = model
    _write_example(pytester)
    agent = f"--agent=store(factory=list_store:ListStore):openai:fake-model@{server.openai_url}"
    for suite, extra in [
        ("locomo", [f"--mb-data=locomo={LOCOMO}", "--mb-sample=200"]),
        ("longmemeval", []),
    ]:
        run = pytester.path / suite
        pytester.runpytest(
            "--memorybench",
            f"--mb-suite={suite}",
            "-p",
            "no:cacheprovider",
            agent,
            f"--mb-output={run}",
            *extra,
        )
        totals = results_in(run)["totals"]
        assert not totals["errors"] and totals["max"] >= (200 if suite == "locomo" else 1), suite
        assert totals["store"]["searches"] >= totals["max"] and totals["evidence_recall"]["questions"] > 0, (
            suite
        )
        prompt = script.answer_prompts[-1]  # the suite's own answering prompt, the memories under it
        assert (
            prompt.startswith(ANSWER_PROMPTS[suite][:40])
            and "## Memories retrieved for this message" in prompt
        )


def test_a_gate_refuses_a_store_that_found_nothing_unless_told_otherwise() -> None:
    from pytest_memorybench.reports.gate import evaluate

    store = {"store": "mine", "searches": 60, "empty": 60}
    results = {"run": {}, "totals": {"mean": 0.4, "errors": 0, "max": 60, "store": store}}
    refused = evaluate(results, baseline=None, min_score=0.1)
    assert refused.failures == [
        "every search of store mine came back empty (60): the scores are the answering model's alone; check"
        " that the store indexes what it is given, or pass --mb-allow-empty-memory"
    ]
    assert not evaluate(results, baseline=None, min_score=0.1, empty_memory=True).failures
    control = {**results, "totals": {**results["totals"], "store": {**store, "store": "none"}}}
    assert not evaluate(control, baseline=None, min_score=0.1).failures, "the no-memory control finds nothing"


# -- the products that run here ---------------------------------------------------------------------


@pytest.fixture
def reference_mcp_server() -> None:
    require_reference_mcp_server()  # started as a user's run starts it, by npx: then by Node itself


def _run_store(pytester: pytest.Pytester, agent: str, *extra: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    run = pytester.path / "run"
    result = pytester.runpytest(
        "--memorybench",
        "--span=isolated",
        "-k",
        "colours or name_list",
        "-p",
        "no:cacheprovider",
        f"--agent={agent}",
        f"--mb-output={run}",
        *extra,
    )
    return result, results_in(run)["totals"]


def test_the_reference_mcp_server_as_a_store_runs_end_to_end(
    pytester: pytest.Pytester, model: Any, reference_mcp_server: None
) -> None:
    server, _ = model
    result, totals = _run_store(pytester, f"{reference_store()}:openai:fake-model@{server.openai_url}")
    assert not totals["errors"] and totals["max"] == 6, result.stdout.str()[-3000:]
    assert totals["store"]["messages"] > 0 and totals["store"]["empty"] < totals["store"]["searches"]
    assert totals["evidence_recall"]["mean"] > 0.5, "the colours and names are found word by word"
    result.stdout.fnmatch_lines(["store mcp: k 10 · ingest *"])
    provenance = results_in(pytester.path / "run")["run"]["provenance"]
    assert provenance["servers"]["mcp"].startswith("memory-server "), "the version its initialisation names"
    assert provenance["products"]["mcp"] == importlib.metadata.version("mcp")
    assert provenance["models"] == {"openai:fake-model": ["fake-model"]}


@pytest.mark.asyncio
async def test_mem0_extracts_with_the_answering_model_or_stores_messages_as_given(model: Any) -> None:
    pytest.importorskip("mem0")
    server, script = model
    for infer, extractions in [("true", 2), ("false", 0)]:
        before = script.asked.get("mem0", 0)
        agent = _agent(f"mem0(infer={infer}):openai:fake-model@{server.openai_url}")
        await agent.reply(Message("My locker code is 4512, please remember it.", WHEN))
        reply = await agent.reply(Message("What is my locker code?", WHEN))
        shown = await agent.context()
        await agent.aclose()
        assert "4512" in reply and any("4512" in memory for memory in shown), (infer, reply, shown)
        assert all(memory.startswith("[2024-05-01 09:00] ") for memory in shown), "dated by its session"
        assert script.asked.get("mem0", 0) - before == extractions, "one extraction per exchange added"
    extractions = [r for r in server.requests_to("/v1/chat/completions") if "Observation Date" in str(r.body)]
    today = f"{datetime.now(timezone.utc):%Y-%m-%d}"
    for request in extractions:  # Mem0's own prompt sections, dated by the session and never today
        prompt = str(request.body["messages"][-1]["content"])
        assert "## Observation Date\n2024-05-01" in prompt and "## Current Date\n2024-05-01" in prompt, prompt
        assert today not in prompt, "the extraction never sees today's date"
    assert extractions, "the extraction resolves dates against the session's, not today's"
    assert server.requests_to("/v1/embeddings"), "Mem0 embeds on the MODEL_SPEC's server"


def test_mem0_runs_the_ltm_suite_end_to_end(pytester: pytest.Pytester, model: Any) -> None:
    pytest.importorskip("mem0")
    server, _ = model
    result, totals = _run_store(pytester, f"mem0:openai:fake-model@{server.openai_url}")
    assert not totals["errors"] and totals["max"] == 6, result.stdout.str()[-3000:]
    assert totals["evidence_recall"]["mean"] > 0.5 and totals["store"]["ingest_ms_per_message"] > 0


def test_in_agent_mode_the_model_saves_and_searches_through_the_servers_tools(
    pytester: pytest.Pytester, model: Any, reference_mcp_server: None
) -> None:
    server, script = model
    agent = f"{reference_store('mode=agent')}:openai:fake-model@{server.openai_url}"
    result, totals = _run_store(pytester, agent)
    assert not totals["errors"] and totals["max"] == 6, result.stdout.str()[-3000:]
    memory = totals["memory"]
    assert memory["write"]["calls"] > 0 and memory["read"]["calls"] > 0  # create_entities; search_nodes
    assert script.asked["mcp_agent"] == memory["write"]["calls"] + memory["read"]["calls"]
    colours = [item for item in results_in(pytester.path / "run")["items"] if item["scenario"] == "colours"]
    assert all(item["passed"] for item in colours), "the colour it saved is found by a search"
    bodies = [str(r.body) for r in server.requests_to("/v1/chat/completions")]
    assert any("'name': 'search_nodes'" in body for body in bodies), "the server's tools are offered"


@pytest.mark.usefixtures("no_back_off")
def test_a_store_run_resumes_what_errored_and_replays_without_the_store(
    pytester: pytest.Pytester, model: Any
) -> None:
    server, _ = model
    run = pytester.path / "run"
    common = ONE_BY_ONE
    pytester.runpytest(*common, f"--agent={_spec(Breaking.anew(), server)}", f"--mb-output={run}")
    assert results_in(run)["totals"]["errors"] == 1
    resumed = pytester.runpytest(*common, f"--agent={_spec(Breaking.anew(), server)}", f"--mb-resume={run}")
    totals = results_in(run)["totals"]
    assert totals["errors"] == 0 and totals["max"] == 3, resumed.stdout.str()[-2000:]
    replayed = pytester.runpytest(*common, f"--mb-replay={run}", f"--mb-output={pytester.path / 'again'}")
    assert replayed.ret in (0, 1), replayed.stdout.str()[-2000:]
    again = results_in(pytester.path / "again")
    assert [item["score"] for item in again["items"]] == [item["score"] for item in results_in(run)["items"]]
