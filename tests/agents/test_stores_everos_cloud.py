"""EverOS through its cloud client (everos-cloud 1.2.0) against a strict fake of EverOS Cloud
(support/everos_server.py), for what only the cloud does: `clear` deletes the user's memories, a
flush while the add is still queued extracts nothing (then the session is flushed again once its task
is done, and the episodes waited for), the key refused, tasks that fail, errors of the service.  The
client installs only on Python 3.12 or later (.ci/run's memU environment): skipped elsewhere."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client
from pytest_memorybench.agents.stores.store_protocol import StoreClient, StoreError
from pytest_memorybench.core.records import Message
from tests.support.everos_server import ADD, DELETE, FLUSH, GET, SEARCH, EverOSCloud, everos_cloud
from tests.support.memory_model import scripted_memory_server
from tests.support.runs import usage_error_line
from tests.support.store_runs import (
    product_server,
    waits_until_done_within_the_timeout,
)

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)
NO_MODEL = "http://127.0.0.1:9/v1"
KEY = "EVEROS_API_KEY"


@pytest.fixture
def cloud(monkeypatch: pytest.MonkeyPatch) -> Iterator[EverOSCloud]:
    with product_server(everos_cloud, "everos_cloud", KEY, monkeypatch) as server:
        yield server


def _spec(server: EverOSCloud, model_url: str = NO_MODEL) -> str:
    return f"everos(url={server.url},poll=0.01):openai:fake-model@{model_url}"


def _client(server: EverOSCloud) -> StoreClient:
    return store_client(parse_agent_spec(_spec(server)), AgentOptions(timeout=30))


def _session(day: int, *texts: str) -> list[Message]:
    speakers = ("Caroline", "Melanie")
    return [
        Message(
            text,
            WHEN.replace(day=day, minute=n),
            "assistant" if n % 2 else "user",
            n,
            session=f"s{day}",
            speaker=speakers[n % 2],
        )
        for n, text in enumerate(texts)
    ]


@pytest.mark.asyncio
async def test_a_flush_before_the_add_is_processed_is_flushed_again_then_the_episodes_waited_for(
    cloud: EverOSCloud,
) -> None:
    """The cloud extracts only what a session holds: the add still queued, the flush is `no_extraction`
    with no task to poll; the store flushes again once the task is done, then waits for the episode."""
    cloud.process_polls, cloud.extract_reads = 3, 4
    client = _client(cloud)
    await client.add(_session(1, "I adopted a beagle named Biscuit.", "Biscuit sounds lovely."), "conv-a")
    assert cloud.paths("POST") == [ADD, FLUSH] and not cloud.episodes, "nothing extracted yet"
    await client.wait("conv-a")
    stored = await client.stored("conv-a")
    await client.close()
    assert [task.reads for task in cloud.tasks.values()] == [3], "the add's task polled until done"
    assert cloud.paths("POST").count(FLUSH) == 2, "flushed again once the messages were in the session"
    assert cloud.paths("POST").count(GET) >= 5, "the episode waited for until readable"
    assert stored == ["Caroline: I adopted a beagle named Biscuit.\nMelanie: Biscuit sounds lovely."]


@pytest.mark.asyncio
async def test_a_message_is_said_once_by_its_speaker(cloud: EverOSCloud) -> None:
    """LoCoMo's text opens with its speaker ("Caroline: …"): EverOS prints `sender_name: content`,
    so the content goes without the label, never "Caroline: Caroline: …"."""
    client = _client(cloud)
    labelled = Message("Caroline: I paint at dawn.", WHEN, "user", 0, session="s1", speaker="Caroline")
    await client.add([labelled, *_session(1, "", "Dawn light is lovely.")[1:]], "conv-a")
    await client.close()
    sent = [m for r in cloud.requests if cloud.adds(r) for m in r.body["messages"]][-2:]
    assert [(m["sender_name"], m["content"]) for m in sent] == [
        ("Caroline", "I paint at dawn."),
        ("Melanie", "Dawn light is lovely."),
    ]


@pytest.mark.asyncio
async def test_clear_deletes_the_users_memories_on_the_cloud(cloud: EverOSCloud) -> None:
    client = _client(cloud)
    await client.add(_session(1, "I moved to Lisbon for a new job."), "conv-a")
    await client.wait("conv-a")
    before = await client.search("Where did Caroline move?", "conv-a", 5)
    user = cloud.episodes[0]["user_id"]
    await client.clear("conv-a")
    after = await client.search("Lisbon", "conv-a", 5)
    await client.add(_session(2, "I started learning the cello."), "conv-a")
    await client.wait("conv-a")
    refilled = await client.stored("conv-a")
    await client.close()
    assert len(before) == 1 and "Lisbon" in before[0].text
    assert cloud.deleted == [{"app_id": "default", "project_id": "default", "user_id": user}]
    assert after == [], "cleared: nothing of the namespace is searched again"
    assert refilled == ["Caroline: I started learning the cello."], "the same user, deleted, then refilled"
    assert {episode["user_id"] for episode in cloud.episodes} == {user}, "no fresh user where delete works"


@pytest.mark.asyncio
async def test_hits_are_dated_by_their_episode_and_another_conversations_user_kept_apart(
    cloud: EverOSCloud,
) -> None:
    client = _client(cloud)
    await client.add(_session(1, "I adopted a beagle named Biscuit."), "conv-a")
    await client.add(_session(2, "I moved to Lisbon for a new job."), "conv-a")
    await client.add(_session(3, "Biscuit the beagle moved to Lisbon too."), "conv-b")
    for namespace in ("conv-a", "conv-b"):
        await client.wait(namespace)
    hits = await client.search("Where did the beagle Biscuit move, Lisbon?", "conv-a", 5)
    await client.close()
    assert len(hits) == 2 and {hit.timestamp for hit in hits} == {WHEN.replace(day=1), WHEN.replace(day=2)}
    assert all("too" not in hit.text for hit in hits), "conv-b's episode is another user's"
    users = {episode["session_id"]: episode["user_id"] for episode in cloud.episodes}
    assert len(set(users.values())) == 2, "a user per conversation"


@pytest.mark.asyncio
async def test_a_failed_task_errs_each_wait_with_everos_reason(cloud: EverOSCloud) -> None:
    """A failed task is an ERROR on every wait, never passed over on a retried one."""
    cloud.failing = True
    client = store_client(parse_agent_spec(_spec(cloud)), AgentOptions(timeout=10))
    await client.add(_session(1, "I collect stamps."), "conv-a")
    for _ in range(2):
        with pytest.raises(StoreError, match="EverOS could not memorize .*model unavailable"):
            await client.wait("conv-a")
    await client.close()


@pytest.mark.asyncio
async def test_the_wait_lasts_as_long_as_the_task_within_the_timeout(cloud: EverOSCloud) -> None:
    await waits_until_done_within_the_timeout(
        cloud,
        _spec(cloud),
        (_session(1, "I collect stamps."), _session(2, "I collect coins.")),
        lambda: [task.reads for task in cloud.tasks.values()],
    )


@pytest.mark.asyncio
async def test_a_server_error_is_retried_and_one_that_lasts_is_an_error(cloud: EverOSCloud) -> None:
    client = _client(cloud)
    await client.add(_session(1, "I collect stamps."), "conv-a")
    cloud.faults, before = [503], len(cloud.requests)
    await client.add(_session(2, "I collect coins."), "conv-a")
    assert [r.path for r in cloud.requests[before:]] == [ADD, ADD, FLUSH], "the refused add sent again, once"
    cloud.faults = [500] * client.attempts
    with pytest.raises(StoreError, match="500"):
        await client.search("stamps", "conv-a", 5)
    await client.close()


def test_a_refused_key_stops_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester, cloud: EverOSCloud, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY, "revoked")
    with scripted_memory_server() as (model, _):
        agent = _spec(cloud, model_url=model.openai_url)
        result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", f"--agent={agent}")
    assert f"EverOS refused the key (HTTP 401): set {KEY} to a valid key" in usage_error_line(result)


@pytest.mark.asyncio
async def test_a_cloud_without_health_records_no_server_version(cloud: EverOSCloud) -> None:
    client = _client(cloud)
    await client.add(_session(1, "I like tea."), "conv-a")
    cloud.version = "1.6.0"
    versioned = _client(cloud)
    await versioned.add(_session(1, "I like tea."), "conv-b")
    assert client.store.server_version is None, "the cloud's 404 is no version"
    assert versioned.store.server_version == "everos 1.6.0"
    await client.close()
    await versioned.close()


@pytest.mark.asyncio
async def test_the_store_sends_only_what_the_clouds_models_take(cloud: EverOSCloud) -> None:
    """Every request the store makes passes the fake's checks (a 422 would fail the calls above);
    here, that the fake refuses what the cloud does, so those passes mean something."""
    client = _client(cloud)
    api = client.store.client.memory.api_client
    refused = []
    said = {"sender_id": "u", "role": "user", "timestamp": 1714554000000, "content": "hello"}
    for path, body in (
        (ADD, {"session_id": "s", "messages": [said | {"timestamp": 1714554000}]}),  # seconds, not ms
        (ADD, {"session_id": "s", "messages": [said], "mode": "fast"}),  # a field AddInput has not
        (SEARCH, {"user_id": "u", "query": "hello", "top_k": 0}),  # -1 or 1..100
        (SEARCH, {"user_id": "u", "agent_id": "a", "query": "hello"}),  # exactly one owner
        (DELETE, {"app_id": "default"}),  # no scope to delete
        (GET, {"user_id": "u", "memory_type": "agent_case"}),  # an agent's kind
    ):  # fmt: skip
        request = api.param_serialize(
            method="POST", resource_path=path, body=body, auth_settings=["BearerAuth"]
        )
        response = api.call_api(*request)
        response.read()
        refused.append(response.status)
    await client.close()
    assert refused == [422] * 6
