"""LangMem for real: its memory manager and LangGraph's in-memory store in process, its chat model
and embedder the scripted model server (`tests/support/memory_model.py` answers LangMem's `Memory`
tool calls with the session's statements).  Skipped without the `langmem` extra."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import datetime

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from tests.support.llm_server import LLMServer
from tests.support.memory_model import MemoryModelScript
from tests.support.store_runs import in_process_run, scripted_in_process

pytest_plugins = ["pytester"]

MAY, JUNE = datetime(2024, 5, 1, 9, 0), datetime(2024, 6, 3, 18, 30)


@pytest.fixture
def model() -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    with scripted_in_process("langmem") as served:
        yield served


def _spec(server: LLMServer, settings: str = "") -> str:
    return f"langmem{settings}:openai:fake-model@{server.openai_url}"


@pytest.mark.asyncio
async def test_langmem_extracts_each_session_dated_searches_at_k_lists_and_clears(
    model: tuple[LLMServer, MemoryModelScript],
) -> None:
    server, script = model
    client = store_client(parse_agent_spec(_spec(server)), AgentOptions())
    may = [Message("My locker code is 4512.", MAY, session=1), Message("Noted.", MAY, "assistant", session=1)]
    june = [
        Message("My locker code is 4512.", JUNE, session=2),
        *(Message(f"The bike shed has {n} racks.", JUNE, session=2) for n in range(8)),
    ]
    await client.add([*may, *june], "conv-a")
    assert script.asked["langmem"] == 2, "one extraction a session"
    extractions = [str(r.body) for r in server.requests_to("/v1/chat/completions")]
    assert "said on 2024-05-01 09:00" in extractions[0] and "said on 2024-06-03 18:30" in extractions[1]
    assert "My locker code is 4512." in extractions[1].split("<session_")[0], "the existing memory shown"
    found = await client.search("What is my locker code?", "conv-a", 5)
    assert len(found) == 5 and found[0].text == "My locker code is 4512."
    assert found[0].line == "[2024-05-01 09:00] My locker code is 4512.", "dated by the session that wrote it"
    assert all(hit.timestamp == JUNE for hit in found[1:]), [hit.line for hit in found]
    stored = await client.stored("conv-a")
    assert sorted(stored or []) == sorted(
        ["My locker code is 4512.", *(f"The bike shed has {n} racks." for n in range(8))]
    ), "the repeat in June was not stored twice"
    assert await client.search("locker code", "conv-b", 5) == [], "another namespace holds nothing"
    await client.clear("conv-a")
    assert await client.stored("conv-a") == [] and await client.search("locker code", "conv-a", 5) == []
    assert client.store.usage.calls >= 4 and client.store.usage.input_tokens > 0, "its model calls counted"
    await client.close()


@pytest.mark.e2e
def test_langmem_runs_the_ltm_suite_end_to_end(
    pytester: pytest.Pytester, model: tuple[LLMServer, MemoryModelScript]
) -> None:
    in_process_run(pytester, _spec(model[0]), "langmem", "0.0.30")


def test_langmem_has_no_vendor_profile_and_a_missing_extra_is_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(UsageError, match="langmem has no published harness"):
        parse_agent_spec("langmem(profile=vendor):openai:fake-model@http://127.0.0.1:9/v1")
    monkeypatch.setitem(sys.modules, "langmem", None)  # as if not installed
    with pytest.raises(UsageError, match=r"pip install 'pytest-memorybench\[langmem\]'"):
        store_client(parse_agent_spec("langmem:openai:fake-model@http://127.0.0.1:9/v1"), AgentOptions())
