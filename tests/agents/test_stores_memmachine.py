"""MemMachine through its client against a loopback server of its endpoints (support/memmachine_server.py):
a project per conversation, a session's messages an episode each in one dated add, the profile
waited on until it stops changing, searches of episodes and features each dated, and its vendor
profile as MemMachine's own LoCoMo harness runs it; and LoCoMo's sample against a real MemMachine server
where one is installed (MEMORYBENCH_MEMMACHINE_VENV).  Skipped where the client is not installed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.memmachine import ORG
from pytest_memorybench.agents.stores.store_build import store_client, store_terms
from pytest_memorybench.agents.stores.store_protocol import StoreError
from pytest_memorybench.core.records import Message
from pytest_memorybench.scenarios.locomo.generator import write_locomo
from tests.support.memmachine_server import MemMachineServer, memmachine_server
from tests.support.memmachine_service import memmachine_service
from tests.support.memory_model import scripted_memory_server
from tests.support.runs import results_in, usage_error_line
from tests.support.store_runs import product_server, two_scenarios

pytest_plugins = ["pytester"]

WHEN = datetime(2024, 5, 1, 9, 0)
NO_MODEL = "http://127.0.0.1:9/v1"
KEY = "MEMMACHINE_API_KEY"


@pytest.fixture
def memmachine(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemMachineServer]:
    with product_server(memmachine_server, "memmachine_client", KEY, monkeypatch) as server:
        yield server


def _spec(server: MemMachineServer, settings: str = "", model_url: str = NO_MODEL) -> str:
    return f"memmachine(url={server.base_url},poll=0.01,settle=0.05{settings}):openai:fake-model@{model_url}"


def _session(day: int, *texts: str, speaker: str = "Ana") -> list[Message]:
    return [
        Message(text, WHEN.replace(day=day, minute=n), "user", n, f"s{day}", speaker)
        for n, text in enumerate(texts)
    ]


@pytest.mark.asyncio
async def test_a_session_is_one_add_of_dated_episodes_found_again_dated(memmachine: MemMachineServer) -> None:
    memmachine.short_term = 0
    client = store_client(parse_agent_spec(_spec(memmachine)), AgentOptions())
    await client.clear("conv-a")
    await client.add(_session(1, "My locker code is 4512.", "The shed is blue."), "conv-a")
    adds = [r.body for r in memmachine.requests if memmachine.adds(r)]
    assert len(adds) == 1 and adds[0]["org_id"] == ORG and adds[0]["project_id"] == "conv-a"
    assert adds[0]["types"] == [], "both memories, as MemMachine reads an empty list"
    assert [(m["content"], m["producer"], m["role"], m["timestamp"]) for m in adds[0]["messages"]] == [
        ("My locker code is 4512.", "Ana", "user", "2024-05-01T09:00:00Z"),
        ("The shed is blue.", "Ana", "user", "2024-05-01T09:01:00Z"),
    ]
    found = await client.search("locker code", "conv-a", 5)
    assert [hit.line for hit in found] == ["[2024-05-01 09:00] Ana: My locker code is 4512."]
    search = [r.body for r in memmachine.requests if r.path.endswith("/search")][-1]
    assert search["top_k"] == 5 and search["types"] == ["episodic", "semantic"]
    await client.clear("conv-a")
    assert f"{ORG}/conv-a" not in memmachine.projects
    await client.clear("conv-a")  # a project no longer there: already clear
    await client.close()


@pytest.mark.asyncio
async def test_the_wait_lasts_until_the_profile_stops_changing_and_features_are_dated_by_what_they_cite(
    memmachine: MemMachineServer,
) -> None:
    memmachine.extract_lists = 3  # the features appear on the third listing, not the first
    memmachine.short_term = 0
    client = store_client(parse_agent_spec(_spec(memmachine)), AgentOptions())
    texts = ("I paint on Sundays.", "My dog is Rex.", "Rex likes the lake.", "I work at a bakery.")
    await client.add(_session(1, *texts), "conv-a")
    await client.add(_session(2, "The bakery opens at six."), "conv-a")
    await client.wait("conv-a")
    project = memmachine.projects[f"{ORG}/conv-a"]
    assert len(project.features) == 5 and not project.queued, "the wait saw the profile made"
    found = await client.search("bakery", "conv-a", 10)
    features = [hit.line for hit in found if hit.text.startswith("conversation:")]
    assert len(features) == 2 and all(line.startswith("[2024-05-0") for line in features), features
    assert any(line.startswith("[2024-05-02 09:00] conversation: note") for line in features)
    stored = await client.stored("conv-a") or []
    assert "Ana: My dog is Rex." in stored and sum(t.startswith("conversation: note") for t in stored) == 5
    await client.close()


@pytest.mark.asyncio
async def test_short_term_episodes_follow_the_long_term_ones_once_each(memmachine: MemMachineServer) -> None:
    client = store_client(parse_agent_spec(_spec(memmachine, ",memory=episodic")), AgentOptions())
    await client.add(_session(1, "The shed is blue.", "My locker code is 4512."), "conv-a")
    await client.wait("conv-a")
    assert [r.body for r in memmachine.requests if memmachine.adds(r)][0]["types"] == ["episodic"]
    found = [hit.text for hit in await client.search("shed", "conv-a", 5)]
    assert found == ["Ana: The shed is blue.", "Ana: My locker code is 4512."], "the newest, not again"
    assert not memmachine.projects[f"{ORG}/conv-a"].queued, "nothing queued for the profile"
    await client.close()


@pytest.mark.asyncio
async def test_a_namespace_never_added_to_finds_nothing_and_a_server_error_is_a_store_error(
    memmachine: MemMachineServer,
) -> None:
    client = store_client(parse_agent_spec(_spec(memmachine)), AgentOptions())
    assert await client.search("anything", "conv-z", 5) == []
    assert await client.stored("conv-z") == []
    await client.add(_session(1, "The shed is blue."), "conv-a")
    memmachine.faults = [500, 500, 500]  # the client hands a POST's status back: the store raises it
    with pytest.raises(StoreError, match=r"add\(\) raised HTTPError: 500 Server Error"):
        await client.add(_session(2, "The shed is red."), "conv-a")
    memmachine.faults = [422, 422, 422]
    with pytest.raises(StoreError, match=r"add\(\) raised HTTPError: 422 Client Error"):
        await client.add(_session(3, "The shed is green."), "conv-a")
    await client.close()


def test_its_settings_are_checked_in_one_line() -> None:
    from pytest_memorybench.agents.stores.memmachine import MemMachineSettings

    with pytest.raises(ValueError, match="memory must be one of both, episodic, semantic, got 'profile'"):
        MemMachineSettings(memory="profile")
    with pytest.raises(ValueError, match="settle must be above 0"):
        MemMachineSettings(settle=0)


@pytest.mark.asyncio
async def test_as_its_vendor_runs_it_fifty_memories_of_both_kinds_uncapped(
    memmachine: MemMachineServer,
) -> None:
    spec = parse_agent_spec(
        f"memmachine(profile=vendor,url={memmachine.base_url},settle=0.05):openai:m@{NO_MODEL}"
    )
    terms = store_terms(spec, AgentOptions())
    assert (terms.k, terms.memory_tokens, terms.profile) == (50, 1_000_000, "vendor")
    client = store_client(spec, AgentOptions())
    await client.add(_session(1, "My locker code is 4512."), "conv-a")
    await client.search("locker", "conv-a", terms.k)
    search = [r.body for r in memmachine.requests if r.path.endswith("/search")][-1]
    assert search["top_k"] == 50 and search["types"] == ["episodic", "semantic"]
    await client.close()


def test_a_refused_key_stops_the_run_before_any_test_in_one_line(
    pytester: pytest.Pytester, memmachine: MemMachineServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY, "revoked")
    with scripted_memory_server() as (model, _):
        agent = _spec(memmachine, model_url=model.openai_url)
        result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", f"--agent={agent}")
    assert f"MemMachine refused the key (HTTP 401): set {KEY} to a valid key" in usage_error_line(result)


def test_no_server_stops_the_run_before_any_test_in_one_line(pytester: pytest.Pytester) -> None:
    pytest.importorskip("memmachine_client")
    with scripted_memory_server() as (model, _):
        agent = f"memmachine(url=http://127.0.0.1:9,poll=0.01):openai:m@{model.openai_url}"
        result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", f"--agent={agent}")
    line = usage_error_line(result)
    assert (
        "the store failed its check before the run: store memmachine: clear() raised ConnectionError" in line
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str(), "the client's own log kept out"


@pytest.mark.e2e
def test_memmachine_runs_the_ltm_suite_a_project_per_conversation(
    pytester: pytest.Pytester, memmachine: MemMachineServer
) -> None:
    with scripted_memory_server() as (model, _):
        results = two_scenarios(pytester, _spec(memmachine, model_url=model.openai_url))
    assert results["totals"]["evidence_recall"]["mean"] > 0.5
    projects = {project for r in memmachine.requests if (project := memmachine.namespace(r))}
    assert len(projects) >= len(results["conversations"]) + 1, "one for each conversation, and the check's"
    provenance = results["run"]["provenance"]
    assert provenance["products"]["memmachine-client"] == "0.4.0"
    assert provenance["servers"]["memmachine"] == "memmachine-server 0.4.0", "the service's own version"


@pytest.mark.e2e
def test_a_real_memmachine_server_runs_the_locomo_sample_every_hit_dated(pytester: pytest.Pytester) -> None:
    pytest.importorskip("memmachine_client")
    data, _ = write_locomo(pytester.path / "data", seed=3, conversations=1, sessions=4)
    with scripted_memory_server() as (model, script), memmachine_service(model.openai_url) as url:
        run = pytester.path / "run"
        result = pytester.runpytest(
            "--memorybench", "--mb-suite=locomo", f"--mb-data=locomo={data}", "-p", "no:cacheprovider",
            f"--agent=memmachine(url={url},poll=0.2,settle=2):openai:fake-model@{model.openai_url}",
            f"--mb-output={run}",
        )  # fmt: skip
        results = results_in(run)
    totals = results["totals"]
    assert not totals["errors"] and totals["max"] >= 10, result.stdout.str()[-3000:]
    assert totals["evidence_recall"]["mean"] > 0.5
    assert totals["store"]["stored"] >= 30, "every message an episode, listed back"
    assert results["run"]["provenance"]["servers"]["memmachine"] == "memmachine-server 0.4.0"
    memories = [line for p in script.answer_prompts for line in p.splitlines() if line.startswith("- [")]
    assert memories and all(re.match(r"- \[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] ", line) for line in memories)
