"""EverOS through its cloud client (everos-cloud, Python 3.12 or later) against a real open-source EverOS
server (everos 1.5.1) on the scripted model, started from the environment MEMORYBENCH_EVEROS_VENV names
(support/everos_service.py): a user per conversation, a session one add, flushed, its tasks waited on,
search dated by episode; and the one-line errors.  The client runs only on Python 3.12 or later
(.ci/run's memU environment): the tests that need it skip where it is not installed.  What only the
cloud does (delete, a flush before the add is processed, the key) is tested against a strict fake of
it in test_stores_everos_cloud.py.  LoCoMo's sample runs through both in test_store_dates.py (every hit
dated, no item an error)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import datetime

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client
from pytest_memorybench.agents.stores.store_protocol import StoreClient, StoreError
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from tests.support.everos_service import everos_service
from tests.support.llm_server import LLMServer
from tests.support.memory_model import UNREADABLE, MemoryModelScript, scripted_memory_server
from tests.support.runs import usage_error_line
from tests.support.store_runs import without_back_off

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)
NO_MODEL = "http://127.0.0.1:9/v1"
needs_client = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="everos-cloud is published for Python 3.12 and later"
)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, LLMServer, MemoryModelScript]]:
    pytest.importorskip("everos_cloud")
    with scripted_memory_server() as (model, script), everos_service(model.openai_url) as url:
        yield url, model, script


def _client(url: str, settings: str = "") -> StoreClient:
    return store_client(
        parse_agent_spec(f"everos(url={url},poll=0.2{settings}):openai:fake-model"), AgentOptions()
    )


def _said(text: str, minute: int, session: int, speaker: str, role: str = "user") -> Message:
    return Message(
        text, WHEN.replace(day=session, minute=minute), role, minute, session=session, speaker=speaker
    )


@needs_client
@pytest.mark.asyncio
async def test_a_session_is_an_episode_of_the_conversations_user_dated_and_searched(
    served: tuple[str, LLMServer, MemoryModelScript],
) -> None:
    url, _, script = served
    client = _client(url)
    first = [
        _said("I adopted a beagle named Biscuit.", 1, 1, "Caroline"),
        _said("Biscuit sounds lovely.", 2, 1, "Melanie", "assistant"),
    ]
    second = [_said("I moved to Lisbon for a new job.", 5, 2, "Caroline")]
    await client.clear("everos-a")
    await client.add(first, "everos-a")
    await client.add(second, "everos-a")
    await client.add([_said("Something else entirely.", 1, 1, "Zed")], "everos-b")
    await client.wait("everos-a")
    hits = await client.search("Where did Caroline move for her job?", "everos-a", 5)
    stored = await client.stored("everos-a")
    await client.clear("everos-a")
    after = await client.search("Lisbon", "everos-a", 5)
    await client.add([_said("I started learning the cello.", 9, 3, "Caroline")], "everos-a")
    await client.wait("everos-a")
    refilled = await client.stored("everos-a")
    await client.close()
    assert len(stored) == 2, "a session an episode"
    assert not any("Biscuit" in text and "Lisbon" in text for text in stored), "none spans the two sessions"
    assert any("Caroline: I adopted a beagle named Biscuit." in text for text in stored)
    assert all("Zed" not in text for text in stored), "another conversation's user is not this one's"
    lisbon = next(hit for hit in hits if "Lisbon" in hit.text)
    assert lisbon.timestamp == WHEN.replace(day=2, minute=5), "dated by the episode's own time"
    assert script.asked.get("everos_episode", 0) >= 2
    assert after == [], "cleared: the namespace starts empty again"
    # the open-source server has no delete route: the namespace goes on as a fresh user
    assert len(refilled) == 1 and "cello" in refilled[0], refilled


@needs_client
@pytest.mark.asyncio
async def test_the_servers_version_is_recorded(served: tuple[str, LLMServer, MemoryModelScript]) -> None:
    client = _client(served[0])
    await client.add([_said("I like tea.", 1, 1, "Ann")], "everos-version")
    assert client.store.server_version == "everos 1.5.1"
    await client.close()


@needs_client
@pytest.mark.asyncio
async def test_a_failed_task_errs_each_wait_with_everos_reason(
    served: tuple[str, LLMServer, MemoryModelScript], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed task is an ERROR, on every wait: never passed over on a retried one."""
    without_back_off(monkeypatch)
    client = _client(served[0])
    # EverOS's boundary detection asks its model again, then fails the task (everalgo/boundary/chat.py)
    await client.add([_said(f"I collect stamps. {UNREADABLE}", 1, 1, "Ann")], "everos-failing")
    for _ in range(2):
        with pytest.raises(StoreError, match="EverOS could not memorize .*No JSON object found"):
            await client.wait("everos-failing")
    await client.close()


@needs_client
def test_the_cloud_without_a_key_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("everos_cloud")
    monkeypatch.delenv("EVEROS_API_KEY", raising=False)
    with pytest.raises(UsageError, match="set EVEROS_API_KEY to your EverOS API key"):
        store_client(parse_agent_spec(f"everos:openai:m@{NO_MODEL}"), AgentOptions())


@needs_client
def test_a_server_that_is_not_there_is_one_line_before_the_run(pytester: pytest.Pytester) -> None:
    pytest.importorskip("everos_cloud")
    with scripted_memory_server() as (model, _):
        agent = f"everos(url=http://127.0.0.1:9):openai:fake-model@{model.openai_url}"
        result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", f"--agent={agent}")
    line = usage_error_line(result)
    assert "Connection refused" in line and "is its server running there?" in line, line


@needs_client
def test_no_vendor_profile_is_published_for_everos_v2_api() -> None:
    pytest.importorskip("everos_cloud")
    with pytest.raises(UsageError, match="everos has no published harness to reproduce"):
        store_client(
            parse_agent_spec(f"everos(profile=vendor,url=http://127.0.0.1:9):openai:m@{NO_MODEL}"),
            AgentOptions(),
        )


def test_a_bad_setting_is_one_line() -> None:
    with pytest.raises(UsageError, match="method"):
        parse_agent_spec(f"everos(method=fuzzy,url=http://127.0.0.1:9):openai:m@{NO_MODEL}")


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the client installs here")
def test_an_older_python_is_told_why() -> None:
    with pytest.raises(UsageError, match="needs Python 3.12 or later and this is Python 3"):
        store_client(parse_agent_spec(f"everos(url=http://127.0.0.1:9):openai:m@{NO_MODEL}"), AgentOptions())
