"""memU for real: its engine (memu-py 1.5.1) in process over its in-memory store, its chat model and
embedder the scripted model server (`tests/support/memory_model.py` answers memU's extraction with
the session's statements as its XML items).  memu-py needs Python 3.13: skipped elsewhere, and
without the `memu` extra (CI runs this file in an environment of its own on Python 3.13)."""

from __future__ import annotations

import json
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
    with scripted_in_process("memu.app") as served:
        yield served


def _spec(server: LLMServer, settings: str = "") -> str:
    return f"memu{settings}:openai:fake-model@{server.openai_url}"


@pytest.mark.asyncio
async def test_memu_memorizes_each_session_dated_searches_at_k_lists_and_clears(
    model: tuple[LLMServer, MemoryModelScript],
) -> None:
    server, script = model
    client = store_client(parse_agent_spec(_spec(server)), AgentOptions())
    may = [Message("My locker code is 4512.", MAY, session=1), Message("Noted.", MAY, "assistant", session=1)]
    june = [Message(f"The bike shed has {n} racks.", JUNE, session=2) for n in range(7)]
    june.append(Message("I repaint bikes.", JUNE, "assistant", session=2, speaker="Melanie"))
    await client.add([*may, *june], "conv-a")
    assert script.asked["memu"] == 4, "memU's two memory types, extracted once a session"
    extractions = [
        json.dumps(r.body)
        for r in server.requests_to("/v1/chat/completions")
        if "<resource>" in json.dumps(r.body)
    ]
    assert "[0] 2024-05-01T09:00:00+00:00 [user]: My locker code is 4512." in extractions[0]
    assert all("2024-06-03T18:30:00+00:00" in text for text in extractions[-2:]), "June's messages dated"
    assert "[7] 2024-06-03T18:30:00+00:00 [assistant]: Melanie: I repaint bikes." in extractions[-1], "named"
    found = await client.search("What is my locker code?", "conv-a", 5)
    assert len(found) == 5 and found[0].line == "[2024-05-01 09:00] My locker code is 4512.", found
    assert all(hit.timestamp == JUNE for hit in found[1:]), [hit.line for hit in found]
    assert len(await client.search("What is my locker code?", "conv-a", 2)) == 2, "k is the harness's"
    stored = await client.stored("conv-a")
    assert sorted(stored or []) == sorted(
        [
            "My locker code is 4512.",
            *(f"The bike shed has {n} racks." for n in range(7)),
            "Melanie: I repaint bikes.",
        ]
    )
    assert await client.search("locker code", "conv-b", 5) == [], "another namespace holds nothing"
    await client.clear("conv-a")
    assert await client.stored("conv-a") == [] and await client.search("locker code", "conv-a", 5) == []
    summaries = script.asked["memu_category"]
    await client.add([Message("My bike is teal.", JUNE, session=1)], "conv-b")
    assert script.asked["memu_category"] == summaries + 1, "conv-b's items filed under its own categories"
    assert [hit.text for hit in await client.search("bike", "conv-b", 5)] == ["My bike is teal."]
    assert client.store.usage.calls >= 6 and client.store.usage.input_tokens > 0, "its model calls counted"
    await client.close()


@pytest.mark.e2e
def test_memu_runs_the_ltm_suite_end_to_end(
    pytester: pytest.Pytester, model: tuple[LLMServer, MemoryModelScript]
) -> None:
    in_process_run(pytester, _spec(model[0]), "memu-py", "1.5.1")


def test_memu_settings_no_vendor_profile_and_a_missing_extra_are_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(UsageError, match="memu has no published harness"):
        parse_agent_spec("memu(profile=vendor):openai:fake-model@http://127.0.0.1:9/v1")
    with pytest.raises(UsageError, match="memory_types takes profile"):
        parse_agent_spec("memu(memory_types=profile+diary):openai:fake-model@http://127.0.0.1:9/v1")
    monkeypatch.setattr("pytest_memorybench.agents.stores.memu.NEEDS_PYTHON", (99, 0))
    with pytest.raises(UsageError, match=r"needs Python 99\.0 or later and this is Python 3\.\d+;"):
        store_client(parse_agent_spec("memu:openai:fake-model@http://127.0.0.1:9/v1"), AgentOptions())
    monkeypatch.setattr("pytest_memorybench.agents.stores.memu.NEEDS_PYTHON", (3, 0))
    monkeypatch.setitem(sys.modules, "memu", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "memu.app", None)
    with pytest.raises(UsageError, match=r"pip install 'pytest-memorybench\[memu\]'"):
        store_client(parse_agent_spec("memu:openai:fake-model@http://127.0.0.1:9/v1"), AgentOptions())
