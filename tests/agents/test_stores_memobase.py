"""Memobase through its SDK against a loopback server of its endpoints (tests/support/memobase_server.py),
and the kind of search result it brings: one `Context`, shown as written and capped by tokens, not k.
Skipped where the SDK is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from pytest_memorybench.agents.agent_build import build_agent
from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.memobase import user_id
from pytest_memorybench.agents.stores.memory import MEMORIES_HEADING
from pytest_memorybench.agents.stores.store_build import store_client
from pytest_memorybench.agents.stores.store_protocol import Context
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from tests.support.llm_server import LLMServer
from tests.support.memobase_server import MemobaseServer, memobase_server
from tests.support.memory_model import MemoryModelScript, scripted_memory_server
from tests.support.runs import usage_error_line
from tests.support.store_runs import product_server, two_scenarios

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)
NO_MODEL = "http://127.0.0.1:9/v1"
KEY = "MEMOBASE_API_KEY"


@pytest.fixture
def memobase(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemobaseServer]:
    with product_server(memobase_server, "memobase", KEY, monkeypatch) as server:
        yield server


@pytest.fixture
def model() -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    with scripted_memory_server() as served:
        yield served


def _spec(server: MemobaseServer, model_url: str = NO_MODEL, settings: str = "") -> str:
    return f"memobase(url={server.base_url}{settings}):openai:fake-model@{model_url}"


@pytest.mark.asyncio
async def test_memobase_inserts_a_dated_session_flushes_it_and_answers_with_its_context(
    memobase: MemobaseServer,
) -> None:
    client = store_client(parse_agent_spec(_spec(memobase)), AgentOptions())
    await client.clear("conv-a")
    june = WHEN + timedelta(days=31)
    await client.add(
        [
            Message("My locker code is 4512.", WHEN, session=1),
            Message("Noted.", WHEN, "assistant", session=1),
            Message("The bike shed is blue.", june, session=2),
        ],
        "conv-a",
    )
    inserts = [r for r in memobase.requests if memobase.adds(r)]
    assert len(inserts) == 2 and inserts[0].query == {"wait_process": "True"}, "a blob a session, synced"
    first = inserts[0].body["blob_data"]["messages"]
    assert first[0] == {
        "role": "user",
        "content": "My locker code is 4512.",
        "alias": None,
        "created_at": "2024-05-01T09:00:00+00:00",
    }
    assert memobase.paths("POST").count(f"/api/v1/users/buffer/{user_id('conv-a')}/chat") == 2, "flushed"
    found = await client.search("What is my locker code?", "conv-a", 1)
    assert all(hit.context for hit in found) and len(found) > 1, "one context, its lines, not cut to k"
    assert "[2024/05/01 09:00] user: My locker code is 4512." in [hit.text for hit in found]
    asked = [r.query for r in memobase.requests if "/users/context/" in r.path][-1]
    assert asked["max_token_size"] == "4000" and '"content": "What is my locker code?"' in asked["chats_str"]
    assert sorted(await client.stored("conv-a") or []) == [
        "[2024/05/01 09:00] assistant: Noted.",
        "[2024/05/01 09:00] user: My locker code is 4512.",
        "[2024/06/01 09:00] user: The bike shed is blue.",
    ]
    await client.clear("conv-a")
    assert user_id("conv-a") not in memobase.users
    await client.close()


@pytest.mark.asyncio
async def test_a_context_is_capped_by_tokens_from_its_top_and_never_cut_to_k(
    model: tuple[LLMServer, MemoryModelScript],
) -> None:
    server, script = model
    lines = [f"[2024/05/01 09:{n:02d}] user: The locker in row {n} holds spare ropes." for n in range(60)]
    Packed.context = Context("\n".join(["## Past Events:", *lines]))
    spec = f"store(factory=tests.agents.test_stores_memobase:Packed):openai:fake-model@{server.openai_url}"
    agent = build_agent(parse_agent_spec(spec), AgentOptions(k=2, memory_tokens=200))
    await agent.observe([Message("Rope goes in the lockers.", WHEN)])  # a namespace searched once written
    await agent.reply(Message("Which locker holds spare ropes?", WHEN))
    prompt = script.answer_prompts[-1].split(f"## {MEMORIES_HEADING}\n", 1)[1]
    shown = prompt.splitlines()
    assert shown[0] == "## Past Events:" and shown[1] == lines[0], "as the product wrote it, from its top"
    assert 2 < len(shown) < 61, "more lines than k, fewer than the whole: cut by the token cap"
    retrieved = await agent.retrieve("Which locker holds spare ropes?", 2)
    assert len(retrieved) == 1 and lines[-1] in retrieved[0], "the context is one search result, whole"
    await agent.aclose()


class Packed:
    """A store answering with one context (as Memobase does)."""

    context = Context("")

    def add(self, messages: list[Message], namespace: str) -> None:
        pass

    def search(self, query: str, namespace: str, k: int) -> Context:
        return self.context

    def clear(self, namespace: str) -> None:
        pass


def test_memobase_without_a_key_or_its_package_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("memobase")
    monkeypatch.delenv(KEY, raising=False)
    with pytest.raises(UsageError, match=rf"--agent memobase:…: set {KEY} to your Memobase API key"):
        store_client(parse_agent_spec(f"memobase:openai:fake-model@{NO_MODEL}"), AgentOptions())
    monkeypatch.setitem(__import__("sys").modules, "memobase", None)
    with pytest.raises(UsageError, match=r"pip install 'pytest-memorybench\[memobase\]'"):
        store_client(parse_agent_spec(f"memobase:openai:fake-model@{NO_MODEL}"), AgentOptions())
    with pytest.raises(UsageError, match="memobase has no published harness"):
        parse_agent_spec(f"memobase(profile=vendor):openai:fake-model@{NO_MODEL}")


@pytest.mark.asyncio
async def test_a_5xx_is_retried_and_the_session_inserted_once(memobase: MemobaseServer) -> None:
    client = store_client(parse_agent_spec(_spec(memobase)), AgentOptions())
    memobase.faults = [503]
    await client.add([Message("My locker code is 4512.", WHEN)], "conv-a")
    assert not memobase.faults and len(memobase.users[user_id("conv-a")].events) == 1, "stored once"
    await client.close()


def test_a_refused_key_stops_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester,
    memobase: MemobaseServer,
    monkeypatch: pytest.MonkeyPatch,
    model: tuple[LLMServer, Any],
) -> None:
    monkeypatch.setenv(KEY, "revoked")
    result = pytester.runpytest(
        "--memorybench", "-p", "no:cacheprovider", f"--agent={_spec(memobase, model[0].openai_url)}"
    )
    assert f"refused the key (HTTP 401): set {KEY} to a valid key" in usage_error_line(result)
    assert len(memobase.requests) == 1, "a refused key is not retried"


@pytest.mark.e2e
def test_memobase_runs_the_ltm_suite_a_user_per_conversation(
    pytester: pytest.Pytester, memobase: MemobaseServer, model: tuple[LLMServer, Any]
) -> None:
    results = two_scenarios(pytester, _spec(memobase, model[0].openai_url))
    assert results["totals"]["evidence_recall"]["mean"] > 0.5
    users = {namespace for r in memobase.requests if (namespace := memobase.namespace(r))}
    assert len(users) >= len(results["conversations"]) + 1, "one for each conversation, and the check's"
    assert results["run"]["provenance"]["products"]["memobase"] == "0.0.27"
