"""Hosted memory products through their official SDKs, against loopback servers of the endpoints the
SDKs call: add, wait for indexing, search at k, clear, a 429 retried, a refused key in one line
before any test, and a namespace per conversation.  Skipped where an SDK is not installed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.dates import epoch_seconds
from pytest_memorybench.agents.stores.store_build import store_client, store_terms
from pytest_memorybench.agents.stores.store_protocol import StoreError
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from tests.support.llm_server import LLMServer
from tests.support.loopback import LoopbackState
from tests.support.mem0_platform_server import Mem0PlatformServer, mem0_platform_server
from tests.support.memory_model import scripted_memory_server
from tests.support.runs import usage_error_line
from tests.support.store_runs import two_scenarios, without_back_off
from tests.support.supermemory_server import SupermemoryServer, supermemory_server
from tests.support.zep_server import ZepServer, zep_server

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)
NO_MODEL = "http://127.0.0.1:9/v1"


@dataclass(frozen=True)
class Hosted:
    """A hosted product's adapter and its loopback server."""

    store: str
    sdk: str
    variable: str
    serve: Callable[[], AbstractContextManager[LoopbackState]]

    def spec(self, server: LoopbackState, model_url: str = NO_MODEL) -> str:
        return f"{self.store}(url={server.base_url},poll=0.01):openai:fake-model@{model_url}"


HOSTED = {
    "supermemory": Hosted("supermemory", "supermemory", "SUPERMEMORY_API_KEY", supermemory_server),
    "mem0-platform": Hosted("mem0-platform", "mem0", "MEM0_API_KEY", mem0_platform_server),
    "zep": Hosted("zep", "zep_cloud", "ZEP_API_KEY", zep_server),
}


@pytest.fixture(autouse=True)
def _no_back_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """What is retried is checked here, not how long the harness waits between tries (3 s a test)."""
    without_back_off(monkeypatch)


@pytest.fixture
def model() -> Iterator[LLMServer]:
    """The scripted model that answers from the hits its prompt holds."""
    with scripted_memory_server() as (server, _):
        yield server


@contextmanager
def _serving(store: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackState]:
    """The product's loopback server running and its key in the environment; skipped without its SDK."""
    product = HOSTED[store]
    pytest.importorskip(product.sdk)
    with product.serve() as server:
        monkeypatch.setenv(product.variable, server.key)
        yield server


@pytest.fixture(params=sorted(HOSTED))
def hosted(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Hosted, LoopbackState]]:
    """Each hosted product with its server."""
    with _serving(request.param, monkeypatch) as server:
        yield HOSTED[request.param], server


@pytest.fixture
def supermemory(monkeypatch: pytest.MonkeyPatch) -> Iterator[SupermemoryServer]:
    with _serving("supermemory", monkeypatch) as server:
        assert isinstance(server, SupermemoryServer)
        yield server


@pytest.fixture
def mem0_platform(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mem0PlatformServer]:
    with _serving("mem0-platform", monkeypatch) as server:
        assert isinstance(server, Mem0PlatformServer)
        yield server


def _spec(server: SupermemoryServer, model_url: str = NO_MODEL) -> str:
    return HOSTED["supermemory"].spec(server, model_url)


@pytest.mark.asyncio
async def test_supermemory_adds_waits_searches_at_k_and_clears(supermemory: SupermemoryServer) -> None:
    client = store_client(parse_agent_spec(_spec(supermemory)), AgentOptions())
    benches = [Message(f"The locker room has {n} benches.", WHEN) for n in range(12)]
    await client.add([Message("My locker code is 4512.", WHEN), *benches], "conv-a")
    assert await client.search("locker code", "conv-a", 5) == [], "not searchable before it is processed"
    await client.wait("conv-a")
    found = await client.search("locker code", "conv-a", 5)
    assert len(found) == 5 and found[0].text == "[2024-05-01 09:00] user: My locker code is 4512."
    searches = [r.body for r in supermemory.requests if r.path.endswith("/search")]
    assert searches[-1]["limit"] == 5 and searches[-1]["searchMode"] == "hybrid"
    reads = supermemory.paths("GET")
    assert reads == ["/ns/conv-a/document/doc_0"] * 2, "polled until processed and its memories formed"
    assert await client.search("locker code", "conv-b", 5) == [], "another namespace holds nothing"
    await client.clear("conv-a")
    assert "conv-a" not in supermemory.namespaces
    await client.add([Message("A second namespace.", WHEN)], "conv-b")
    deleted = client.store.client.namespaces.delete("conv-b")
    assert (deleted.status, deleted.deleted_documents_count) == ("deleted", 1), (
        "a plain delete is done, not queued"
    )
    await client.close()


@pytest.mark.asyncio
async def test_a_supermemory_memory_shows_when_it_was_said_and_the_date_of_its_event_apart(
    supermemory: SupermemoryServer,
) -> None:
    """Supermemory's temporal context gives a memory its document's date (said) and, where the text
    names one, its event's date (about): the prompt resolves "yesterday" against the first only."""
    supermemory.event_dates["dentist"] = "2024-04-30T00:00:00Z"
    client = store_client(parse_agent_spec(_spec(supermemory)), AgentOptions())
    await client.add([Message("I went to the dentist yesterday.", WHEN)], "conv-a")
    await client.wait("conv-a")
    (found,) = await client.search("dentist", "conv-a", 5)
    assert found.timestamp == WHEN, "dated by when it was said (its document), not by its event"
    assert found.line == "[about 2024-04-30] [2024-05-01 09:00] user: I went to the dentist yesterday."
    await client.close()


@pytest.mark.asyncio
async def test_mem0_platform_adds_waits_for_its_event_searches_at_k_and_clears(
    mem0_platform: Mem0PlatformServer,
) -> None:
    client = store_client(
        parse_agent_spec(HOSTED["mem0-platform"].spec(mem0_platform)), AgentOptions(timeout=900)
    )
    assert client.store._made().client.timeout.read == 901, "the SDK waits as long as --mb-timeout allows"
    benches = [Message(f"The locker room has {n} benches.", WHEN) for n in range(12)]
    await client.add([Message("My locker code is 4512.", WHEN), *benches], "conv-a")
    assert await client.search("locker code", "conv-a", 5) == [], "not searchable before its event ran"
    await client.wait("conv-a")
    found = await client.search("locker code", "conv-a", 5)
    assert len(found) == 5 and found[0].text == "user: My locker code is 4512." and found[0].score == 1.0
    assert found[0].line == "[2024-05-01 09:00] user: My locker code is 4512.", "dated by its add"
    adds = [r.body for r in mem0_platform.requests if r.path == "/v3/memories/add/"]
    assert adds[0]["user_id"] == "conv-a" and adds[0]["infer"] is True
    assert adds[0]["timestamp"] == epoch_seconds(WHEN) and len(adds[0]["messages"]) == 13
    assert adds[0]["metadata"] == {"date": "2024-05-01T09:00:00+00:00"}
    assert (adds[0]["observation_date"], adds[0]["observation_datetime"], adds[0]["timezone"]) == (
        "2024-05-01",
        "2024-05-01T09:00:00+00:00",
        "UTC",
    ), "the extraction observes the session's date (v3 add), beside the backdating timestamp"
    searches = [r.body for r in mem0_platform.requests if r.path == "/v3/memories/search/"]
    assert searches[-1]["top_k"] == 5 and searches[-1]["filters"] == {"user_id": "conv-a"}
    event = next(iter(mem0_platform.events))
    assert mem0_platform.paths("GET") == ["/v1/ping/", *[f"/v1/event/{event}/"] * 2], (
        "the key checked once, the event polled until it succeeded"
    )
    assert await client.search("locker code", "conv-b", 5) == [], "another user holds nothing"
    await client.clear("conv-a")
    assert not mem0_platform.events and mem0_platform.requests[-1].query == {"user_id": "conv-a"}
    await client.close()


@pytest.mark.asyncio
async def test_mem0_platform_searches_as_of_the_questions_date_and_time(
    mem0_platform: Mem0PlatformServer,
) -> None:
    client = store_client(parse_agent_spec(HOSTED["mem0-platform"].spec(mem0_platform)), AgentOptions())
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    await client.wait("conv-a")
    await client.search("locker code", "conv-a", 5, datetime(2024, 5, 9, 18, 30))
    searches = [r.body for r in mem0_platform.requests if r.path == "/v3/memories/search/"]
    assert searches[-1]["reference_date"] == "2024-05-09T18:30:00+00:00", "the time of day kept, in UTC"
    await client.close()


@pytest.mark.asyncio
async def test_the_mem0_fake_holds_to_the_openapi_shapes(mem0_platform: Mem0PlatformServer) -> None:
    """An unknown or mistyped parameter is a 400, as the platform's validation answers it; a verbatim
    add (infer=false) and a delete answer in the shapes its OpenAPI gives (docs/openapi.json)."""
    client = store_client(
        parse_agent_spec(HOSTED["mem0-platform"].spec(mem0_platform).replace("(", "(infer=false,")),
        AgentOptions(),
    )
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    await client.wait("conv-a")
    assert [hit.text for hit in await client.search("locker code", "conv-a", 5)] == [
        "user: My locker code is 4512."
    ]
    store = client.store
    added = store._call(lambda mem0: mem0.add([{"role": "user", "content": "Hi."}], user_id="b", infer=False))
    assert added["status"] == "SUCCEEDED" and added["results"][0]["data"] == {"memory": "user: Hi."}
    for wrong in (
        lambda mem0: mem0.add([{"role": "user", "content": "x"}], user_id="conv-a", timestamp="soon"),
        lambda mem0: mem0.search("x", filters={"user_id": "conv-a"}, top_k=5, rerank="yes"),
        lambda mem0: mem0.search("x", filters={"user_id": "conv-a"}, limit=5),
    ):
        with pytest.raises(Exception, match="400"):
            store._call(wrong)
    assert store._call(lambda mem0: mem0.search("locker code", filters={"user_id": "conv-a"}, threshold=0.9))
    strict = store._call(
        lambda mem0: mem0.search("locker code zebra", filters={"user_id": "conv-a"}, threshold=0.9)
    )
    assert strict == {"results": []}, "a memory below the threshold is not found"
    deleted = store._call(lambda mem0: mem0.delete_all(user_id="b"))
    assert set(deleted) == {"message", "event_id"}, "a delete is queued, with its event"
    await client.close()


@pytest.mark.asyncio
async def test_mem0_as_its_vendor_runs_it_adds_two_messages_a_call_from_each_speakers_side(
    mem0_platform: Mem0PlatformServer,
) -> None:
    """Mem0's published LoCoMo harness (evaluation/src/memzero/add.py) adds two messages a call, to
    each speaker's user, the roles swapped for the second, and searches both; the equal terms add a
    session a call, to one user."""
    spec = parse_agent_spec(HOSTED["mem0-platform"].spec(mem0_platform).replace("(", "(profile=vendor,"))
    assert spec.store is not None and (spec.store.settings.batch, spec.store.settings.sides) == (2, "both")
    client = store_client(spec, AgentOptions())
    said = [
        Message(f"{who}: line {n} about the locker.", WHEN, role, n, "session_1", who)
        for n, (who, role) in enumerate([("Caroline", "user"), ("Melanie", "assistant")] * 2)
    ]
    await client.add(said, "conv-a")
    adds = [r.body for r in mem0_platform.requests if r.path == "/v3/memories/add/"]
    assert [(add["user_id"], len(add["messages"])) for add in adds] == [
        ("conv-a", 2), ("conv-a-other", 2), ("conv-a", 2), ("conv-a-other", 2)
    ]  # fmt: skip
    assert [m["role"] for m in adds[0]["messages"]] == ["user", "assistant"]
    assert [m["role"] for m in adds[1]["messages"]] == ["assistant", "user"], "the other speaker's side"
    await client.wait("conv-a")
    found = await client.search("locker", "conv-a", 10)
    searched = [r.body["filters"]["user_id"] for r in mem0_platform.requests if r.path.endswith("/search/")]
    assert searched == ["conv-a", "conv-a-other"] and len(found) == 8
    await client.clear("conv-a")
    cleared = [r.query["user_id"] for r in mem0_platform.requests if r.method == "DELETE"]
    assert cleared == ["conv-a", "conv-a-other"] and not mem0_platform.events
    plain = store_client(parse_agent_spec(HOSTED["mem0-platform"].spec(mem0_platform)), AgentOptions())
    await plain.add(said, "conv-b")
    adds = [r.body for r in mem0_platform.requests if r.path == "/v3/memories/add/"][4:]
    assert [(add["user_id"], len(add["messages"])) for add in adds] == [("conv-b", 4)], "a session a call"
    await client.close()
    await plain.close()


@pytest.mark.asyncio
async def test_a_failed_mem0_event_is_a_store_error_every_time_it_is_waited_for(
    mem0_platform: Mem0PlatformServer,
) -> None:
    mem0_platform.failing = True
    client = store_client(parse_agent_spec(HOSTED["mem0-platform"].spec(mem0_platform)), AgentOptions())
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    for _ in range(2):  # the harness's retries, then a later wait: the failure is never passed over
        with pytest.raises(StoreError, match=r"wait\(\) raised RuntimeError: Mem0 could not process event"):
            await client.wait("conv-a")


@pytest.fixture
def zep(monkeypatch: pytest.MonkeyPatch) -> Iterator[ZepServer]:
    with _serving("zep", monkeypatch) as server:
        assert isinstance(server, ZepServer)
        yield server


@pytest.mark.asyncio
async def test_zep_makes_a_user_and_thread_adds_in_calls_of_batch_waits_for_each_task_and_clears(
    zep: ZepServer,
) -> None:
    client = store_client(parse_agent_spec(HOSTED["zep"].spec(zep)), AgentOptions())
    benches = [Message(f"The locker room has {n} benches.", WHEN, "assistant") for n in range(40)]
    await client.add([Message("My locker code is 4512.", WHEN), *benches], "conv-a")
    assert await client.search("locker code", "conv-a", 5) == [], "no graph before its tasks finished"
    await client.wait("conv-a")
    found = await client.search("locker code", "conv-a", 5)
    assert len(found) == 5 and found[0].text == "My locker code is 4512."
    assert found[0].line == "[valid 2024-05-01 → present] My locker code is 4512.", (
        "a fact shown with when it became true, and that it still holds"
    )
    (user,) = zep.users
    assert zep.users[user] == "conv-a" and list(zep.threads.values()) == [user]
    added = [r.body["messages"] for r in zep.requests if zep.adds(r)]
    assert [len(batch) for batch in added] == [30, 11], "30 messages a call"
    assert added[0][0] == {
        "role": "user",
        "name": "User",
        "content": "My locker code is 4512.",
        "reference_time": "2024-05-01T09:00:00+00:00",
    }
    assert added[0][1]["role"] == "assistant"
    polls = [path for path in zep.paths("GET") if path.startswith("/api/v4/tasks/")]
    assert len(polls) == 4 and len(set(polls)) == 2, "each task polled until it succeeded"
    search = next(r for r in reversed(zep.requests) if "search" in r.path)
    assert search.path == f"/api/v4/graphs/{user}/search/edges" and search.query == {"page_size": "5"}
    assert search.body["reranker"] == "rrf"
    assert await client.search("locker code", "conv-b", 5) == [], "another user holds nothing"
    await client.clear("conv-a")
    assert not zep.users and zep.requests[-1].method == "DELETE"
    await client.close()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("scope", "text"), [("episodes", "My locker code is 4512."), ("nodes", "user: My locker code is 4512.")]
)
async def test_zep_searches_the_scope_it_is_given(zep: ZepServer, scope: str, text: str) -> None:
    spec = HOSTED["zep"].spec(zep).replace("zep(", f"zep(scope={scope},reranker=cross_encoder,")
    client = store_client(parse_agent_spec(spec), AgentOptions())
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    await client.wait("conv-a")
    assert [hit.text for hit in await client.search("locker code", "conv-a", 3)] == [text]
    search = next(r for r in reversed(zep.requests) if "search" in r.path)
    assert search.path.endswith(f"/search/{scope}") and search.body["reranker"] == "cross_encoder"


@pytest.mark.asyncio
async def test_a_failed_zep_task_is_a_store_error_every_time_it_is_waited_for(zep: ZepServer) -> None:
    zep.failing = True
    client = store_client(parse_agent_spec(HOSTED["zep"].spec(zep)), AgentOptions())
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    for _ in range(2):
        with pytest.raises(
            StoreError, match=r"Zep could not process task .* \(status failed\): extraction failed"
        ):
            await client.wait("conv-a")


@pytest.mark.asyncio
async def test_a_429_is_retried_and_the_messages_added_once(
    hosted: tuple[Hosted, LoopbackState], monkeypatch: pytest.MonkeyPatch
) -> None:
    product, server = hosted
    if product.sdk in ("zep_cloud", "supermemory"):  # their clients' own back-off after a Retry-After of 0
        monkeypatch.setattr(f"{product.sdk}.core.http_client.INITIAL_RETRY_DELAY_SECONDS", 0.0)  # 1 s, 2 s
    client = store_client(parse_agent_spec(product.spec(server)), AgentOptions())
    server.faults = [429, 429]
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    await client.wait("conv-a")
    assert not server.faults, "both 429s answered"
    assert [server.namespace(r) for r in server.requests if server.adds(r)][-1] == "conv-a"
    found = await client.search("locker code", "conv-a", 5)
    assert len(found) == 1 and "My locker code is 4512." in found[0].text, "added once"
    await client.close()


@pytest.mark.parametrize("store", sorted(HOSTED))
def test_a_hosted_store_without_a_key_is_one_line(store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    product = HOSTED[store]
    pytest.importorskip(product.sdk)
    monkeypatch.delenv(product.variable, raising=False)
    with pytest.raises(UsageError, match=rf"--agent {store}:…: set {product.variable} to your .* API key"):
        store_client(parse_agent_spec(f"{store}:openai:fake-model@{NO_MODEL}"), AgentOptions())


def test_a_refused_key_stops_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester,
    hosted: tuple[Hosted, LoopbackState],
    monkeypatch: pytest.MonkeyPatch,
    model: LLMServer,
) -> None:
    product, server = hosted
    monkeypatch.setenv(product.variable, "revoked")
    result = pytester.runpytest(
        "--memorybench", "-p", "no:cacheprovider", f"--agent={product.spec(server, model.openai_url)}"
    )
    assert f"refused the key (HTTP 401): set {product.variable} to a valid key" in usage_error_line(result)
    assert len(server.requests) == 1, "a refused key is not retried"


def test_a_hosted_store_runs_the_ltm_suite_a_namespace_per_conversation(
    pytester: pytest.Pytester, hosted: tuple[Hosted, LoopbackState], model: LLMServer
) -> None:
    product, server = hosted
    results = two_scenarios(pytester, product.spec(server, model.openai_url))
    assert results["totals"]["evidence_recall"]["mean"] > 0.5
    namespaces = {namespace for r in server.requests if (namespace := server.namespace(r))}
    assert len(namespaces) >= len(results["conversations"]) + 1, "one for each conversation, and the check's"
    added = {server.namespace(r) for r in server.requests if server.adds(r)}
    searched = {server.namespace(r) for r in server.requests if "search" in r.path}
    assert searched <= added, "a conversation searches only where it added"


def _sessions(count: int, size: int) -> list[Message]:
    """`count` sessions of `size` messages, a day apart."""
    return [
        Message(
            f"Session {s} note {n}: the locker code was {s}{n}.",
            WHEN + timedelta(days=s, minutes=n),
            "user",
            None,
            f"s{s}",
        )
        for s in range(count)
        for n in range(size)
    ]


@pytest.mark.asyncio
async def test_a_fault_part_way_through_an_add_stores_each_session_once_with_its_own_date(
    hosted: tuple[Hosted, LoopbackState],
) -> None:
    product, server = hosted
    client = store_client(parse_agent_spec(product.spec(server)), AgentOptions())
    adds_before = sum(server.adds(r) for r in server.requests)
    original = server.route
    calls = 0

    def fail_the_second_add(request: Any) -> tuple[int, Any]:
        nonlocal calls
        if server.adds(request):
            calls += 1
            if calls == 2:
                return 500, server.error("Server error", "injected after the first session")
        return original(request)

    server.route = fail_the_second_add  # type: ignore[method-assign]
    await client.add(_sessions(3, 4), "conv-a")
    await client.wait("conv-a")
    adds = [r for r in server.requests if server.adds(r)][adds_before:]
    assert len(adds) == 4, "three sessions, the second sent again after its 500"
    found = await client.search("locker code session note", "conv-a", 20)
    texts = [hit.text for hit in found]
    for s in range(3):
        for n in range(4):
            assert sum(f"Session {s} note {n}:" in text for text in texts) == 1, (
                f"session {s} note {n} stored once"
            )
    for s in range(3):
        day = f"2024-05-0{s + 1}"
        assert all(day in hit.line.split("]")[0] for hit in found if f"Session {s} " in hit.text), (
            f"session {s}'s hits are dated by session {s}, not by the add's first message"
        )
    await client.close()


@pytest.mark.asyncio
async def test_zep_gets_what_it_accepts_and_a_superseded_fact_reads_as_ended(zep: ZepServer) -> None:
    client = store_client(parse_agent_spec(HOSTED["zep"].spec(zep)), AgentOptions())
    long_turn = " ".join(["The recipe needs flour, butter and a patient oven."] * 180)  # ~9,400 characters
    chat = [Message(long_turn, WHEN, "assistant"), *(Message(f"Note {n}.", WHEN) for n in range(29))]
    await client.add(chat, "conv-a")  # the fake answers 400 to a naive time, a long message or 31 messages
    added = [r.body["messages"] for r in zep.requests if zep.adds(r)]
    assert [len(part) for part in added] == [30, 2], "the long turn in three pieces: 32 messages, two calls"
    assert "".join(m["content"] for m in added[0][:3]).replace(" ", "") == long_turn.replace(" ", "")
    store = client.store
    store.add(chat[-1:], "conv-a")
    store.add(chat[-1:], "conv-a")  # the same call again, as a retry whose answer was lost sends it
    assert sum(zep.adds(r) for r in zep.requests) == 4 and len(zep.tasks) == 3, "the repeat stored nothing"
    zep.superseded["Note 3."] = "2024-06-01T00:00:00Z"
    await client.wait("conv-a")
    lines = [hit.line for hit in await client.search("note 3", "conv-a", 3)]
    assert "[valid 2024-05-01 → 2024-06-01] Note 3." in lines
    await client.close()


@pytest.mark.asyncio
async def test_zep_is_told_who_said_each_message_so_facts_attach_to_the_right_person(zep: ZepServer) -> None:
    """Zep's ingestion requires a sender `name` (getzep/zep ingestion/src/zep_ingest/threads.py): a
    LoCoMo speaker by name, whichever role the harness gave them, the user made with theirs."""
    client = store_client(parse_agent_spec(HOSTED["zep"].spec(zep)), AgentOptions())
    said = [
        Message("Caroline: I adopted a cat.", WHEN, "user", 0, "session_1", "Caroline"),
        Message("Melanie: Lovely, what is its name?", WHEN, "assistant", 1, "session_1", "Melanie"),
    ]
    await client.add(said, "conv-a")
    (added,) = [r.body["messages"] for r in zep.requests if zep.adds(r)]
    assert [(m["role"], m["name"]) for m in added] == [("user", "Caroline"), ("assistant", "Melanie")]
    made = next(r.body for r in zep.requests if r.path.endswith("/users"))
    assert made == {"user_id": "conv-a", "first_name": "Caroline"}, "the user is the user-role speaker"
    await client.close()


@pytest.mark.asyncio
async def test_zep_as_its_vendor_runs_it_facts_and_entities_cross_encoder_reranked(zep: ZepServer) -> None:
    spec = parse_agent_spec(HOSTED["zep"].spec(zep).replace("zep(", "zep(profile=vendor,"))
    assert spec.store is not None and spec.store.profile == "vendor"
    assert (spec.store.settings.reranker, spec.store.settings.nodes) == ("cross_encoder", 5)
    terms = store_terms(spec, AgentOptions())
    assert (terms.k, terms.profile) == (20, "vendor"), "the vendor's 15 facts and 5 entities reach the prompt"
    client = store_client(spec, AgentOptions())
    await client.add([Message(f"Note {n} about the locker.", WHEN) for n in range(3)], "conv-a")
    await client.wait("conv-a")
    found = await client.search("locker", "conv-a", terms.k)
    searches = [(r.path.rsplit("/", 1)[-1], r.query["page_size"]) for r in zep.requests if "search" in r.path]
    assert searches == [("edges", "15"), ("nodes", "5")]
    assert len(found) == 6 and found[0].validity is not None and found[-1].validity is None
    explicit = parse_agent_spec(HOSTED["zep"].spec(zep).replace("zep(", "zep(profile=vendor,reranker=rrf,"))
    assert explicit.store is not None and explicit.store.settings.reranker == "rrf", "a setting given wins"
    await client.close()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("graphiti(profile=vendor):openai:m@http://127.0.0.1:9/v1", "graphiti has no published harness"),
        ("zep(profile=best):openai:m@http://127.0.0.1:9/v1", "profile must be equal or vendor, got 'best'"),
    ],
)
def test_a_profile_a_store_cannot_take_is_one_line(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_agent_spec(spec)


@pytest.mark.asyncio
async def test_a_zep_task_that_ends_partial_is_a_store_error(zep: ZepServer) -> None:
    zep.partial = True
    client = store_client(parse_agent_spec(HOSTED["zep"].spec(zep)), AgentOptions())
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    with pytest.raises(StoreError, match=r"Zep could not process task .* \(status partial\)"):
        await client.wait("conv-a")


@pytest.mark.asyncio
async def test_a_supermemory_document_that_never_finishes_dreaming_errors_at_the_timeout(
    supermemory: SupermemoryServer,
) -> None:
    supermemory.stalled = True
    client = store_client(parse_agent_spec(_spec(supermemory)), AgentOptions(timeout=1))
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    try:
        with pytest.raises(
            StoreError, match=r"store supermemory: wait\(\) took longer than 1 s \(--mb-timeout\)"
        ):
            await client.wait("conv-a")
    finally:
        for documents in supermemory.namespaces.values():  # let the abandoned poll finish
            for document in documents:
                document.stalled = False
