"""Every store's hits reach the answering prompt dated by the session they came from, and no add
holds two sessions: LoCoMo conversations of our own generator, run through each store on the
scripted model (the hosted products through their SDKs against their loopback servers)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pytest

from pytest_memorybench.scenarios.locomo.data import load_samples
from pytest_memorybench.scenarios.locomo.generator import write_locomo
from tests.support.agentcore_server import MEMORY_ID, agentcore_environment, agentcore_server
from tests.support.evermemos_server import EverMemOSServer, evermemos_server
from tests.support.everos_server import everos_cloud
from tests.support.everos_service import everos_service
from tests.support.hindsight_server import hindsight_server
from tests.support.loopback import LoopbackState
from tests.support.mcp_server import reference_store, require_reference_mcp_server
from tests.support.mem0_platform_server import mem0_platform_server
from tests.support.memmachine_server import memmachine_server
from tests.support.memobase_server import memobase_server
from tests.support.memory_model import MemoryModelScript, scripted_memory_server
from tests.support.redis_ams_server import redis_ams_server
from tests.support.runs import first_by_default, results_in
from tests.support.supermemory_server import supermemory_server
from tests.support.vertex_server import LOADED_FIRST, use_credentials, vertex_server
from tests.support.zep_server import zep_server

pytest_plugins = ["pytester"]

# A memory line of the answering prompt: "- [2023-05-08 13:56] text", or a fact's "[valid 2023-05-08 → …]";
# of a context a product packs (Memobase's), its own dated lines "[2023/05/08 13:56] NAME: text".
_LINE = re.compile(r"^(?:- )?\[(?:valid )?(?P<day>\d{4}[-/]\d{2}[-/]\d{2})[^\]]*\] (?P<text>.+)$")
_MEMORY_LINE = re.compile(r"^(?:- |\[)")
_HEADING = "## Memories retrieved for this message"


Started = tuple[str, LoopbackState | None]  # the store's settings, and its loopback server if hosted


def _hosted(
    serve: Callable[[], AbstractContextManager[LoopbackState]],
    variable: str,
    sdk: str,
    settings: str = ",poll=0.01",
) -> Any:
    """A product on its loopback server, its key in `variable`; `settings` after its url."""

    def start(stack: ExitStack, monkeypatch: pytest.MonkeyPatch) -> Started:
        pytest.importorskip(sdk)
        server = stack.enter_context(serve())
        monkeypatch.setenv(variable, server.key)
        return f"(url={server.base_url}{settings})", server

    return start


def _local(sdk: str | None, settings: str = "") -> Any:
    def start(stack: ExitStack, monkeypatch: pytest.MonkeyPatch) -> Started:
        if sdk:
            pytest.importorskip(sdk)
        return settings, None

    return start


def _agentcore(stack: ExitStack, monkeypatch: pytest.MonkeyPatch) -> Started:
    pytest.importorskip("bedrock_agentcore")
    server = stack.enter_context(agentcore_server())
    agentcore_environment(server, monkeypatch)
    return f"(memory_id={MEMORY_ID},poll=0.01,settle=0.05)", server


def _vertex(stack: ExitStack, monkeypatch: pytest.MonkeyPatch) -> Started:
    pytest.importorskip("vertexai")
    server = stack.enter_context(vertex_server())
    folder = stack.enter_context(TemporaryDirectory())
    use_credentials(server, Path(folder), monkeypatch)
    return f"(engine=4242,url={server.url},poll=0.01)", server


def _everos(stack: ExitStack, monkeypatch: pytest.MonkeyPatch) -> Started:
    """A real open-source EverOS server, extracting with a scripted model of its own (the answerer's
    is the run's)."""
    pytest.importorskip("everos_cloud")
    extraction, _ = stack.enter_context(scripted_memory_server())
    url = stack.enter_context(everos_service(extraction.openai_url))
    return f"(url={url},poll=0.2)", None


def _mcp(stack: ExitStack, monkeypatch: pytest.MonkeyPatch) -> Started:
    require_reference_mcp_server()
    return reference_store().removeprefix("mcp"), None


def _added_texts(server: LoopbackState) -> list[list[str]]:
    """The texts each add carried, as the product's server received them."""
    adds = [request.body for request in server.requests if server.adds(request)]
    if adds and "content" in adds[0]:  # Supermemory: a document, a line a message
        return [[line.split(": ", 1)[-1] for line in str(add["content"]).splitlines()] for add in adds]
    if adds and "items" in adds[0]:  # Hindsight: retained items, a line a message
        return [
            [line.split(": ", 1)[-1] for item in add["items"] for line in str(item["content"]).splitlines()]
            for add in adds
        ]
    if adds and "payload" in adds[0]:  # AgentCore: an event's conversational messages
        return [[str(part["conversational"]["content"]["text"]) for part in add["payload"]] for add in adds]
    if adds and "directContentsSource" in adds[0]:  # Vertex AI Memory Bank: an event a message
        events = [add["directContentsSource"]["events"] for add in adds]
        return [[str(e["content"]["parts"][0]["text"]).split(": ", 1)[-1] for e in each] for each in events]
    if adds and "blob_data" in adds[0]:  # Memobase: a chat blob
        return [[str(message["content"]) for message in add["blob_data"]["messages"]] for add in adds]
    if adds and "long_term_memory_strategy" in adds[0]:  # Agent Memory Server: labelled messages
        return [
            [str(m["content"]).split(": ", 1)[-1] for m in add["messages"] if m["role"] != "system"]
            for add in adds
        ]
    return [[str(message["content"]) for message in add["messages"]] for add in adds]


STORES = {
    "bm25": _local(None),
    "mem0": _local("mem0", "(infer=false)"),
    "graphiti": _local("graphiti_core"),
    "langmem": _local("langmem"),
    "memu": _local("memu.app"),
    "mcp": _mcp,
    "supermemory": _hosted(supermemory_server, "SUPERMEMORY_API_KEY", "supermemory"),
    "mem0-platform": _hosted(mem0_platform_server, "MEM0_API_KEY", "mem0"),
    "zep": _hosted(zep_server, "ZEP_API_KEY", "zep_cloud"),
    "memobase": _hosted(memobase_server, "MEMOBASE_API_KEY", "memobase", ""),
    "hindsight": _hosted(hindsight_server, "HINDSIGHT_API_KEY", "hindsight_client"),
    "redis-ams": _hosted(redis_ams_server, "REDIS_AMS_API_KEY", "agent_memory_client", ",poll=0.01,stable=0"),
    "evermemos": _hosted(evermemos_server, "EVERMEMOS_API_KEY", "evermemos"),
    "agentcore": _agentcore,
    "memmachine": _hosted(
        memmachine_server, "MEMMACHINE_API_KEY", "memmachine_client", ",poll=0.01,settle=0.05"
    ),
    "vertex": _vertex,
    "everos": _everos,
    "everos-cloud": _hosted(everos_cloud, "EVEROS_API_KEY", "everos_cloud"),  # the `everos` store on the fake
}
AGENTS = {"everos-cloud": "everos"}  # an entry's agent, where it is not the entry's name


@pytest.fixture
def model() -> Iterator[tuple[Any, MemoryModelScript]]:
    with scripted_memory_server() as served:
        yield served


def _session_days(data: Path) -> dict[str, str]:
    """Each turn's text said in one session only → that session's day (small talk repeats: left out)."""
    said: dict[str, set[str]] = {}
    for sample in load_samples(data):
        for session in sample.sessions:
            for turn in session.turns:
                said.setdefault(turn.text, set()).add(f"{session.when:%Y-%m-%d}")
    return {text: next(iter(days)) for text, days in said.items() if len(days) == 1}


@pytest.mark.parametrize(
    "store",
    first_by_default(
        sorted(STORES, key=lambda name: name not in ("bm25", "zep")), keep=2, marks={"vertex": LOADED_FIRST}
    ),
)
def test_every_hit_in_the_answering_prompt_carries_its_sessions_date(
    pytester: pytest.Pytester,
    model: tuple[Any, MemoryModelScript],
    store: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, script = model
    data, _ = write_locomo(pytester.path / "data", seed=3, conversations=1, sessions=4)
    days = _session_days(data)
    with ExitStack() as stack:
        settings, product = STORES[store](stack, monkeypatch)
        run = pytester.path / "run"
        result = pytester.runpytest(
            "--memorybench", "--mb-suite=locomo", f"--mb-data=locomo={data}", "-p", "no:cacheprovider",
            f"--agent={AGENTS.get(store, store)}{settings}:openai:fake-model@{server.openai_url}",
            f"--mb-output={run}",
        )  # fmt: skip
        totals = results_in(run)["totals"]
        assert not totals["errors"] and totals["max"] >= 10, result.stdout.str()[-3000:]
    prompts = [prompt for prompt in script.answer_prompts if _HEADING in prompt]
    lines = [
        line for p in prompts for line in p.split(_HEADING, 1)[1].splitlines() if _MEMORY_LINE.match(line)
    ]
    assert lines, "the stores found something for the questions"
    checked: Counter[str] = Counter()
    for line in lines:
        dated = _LINE.match(line)
        assert dated, f"{store}: a hit without its date reached the prompt: {line!r}"
        session_day = next((day for text, day in days.items() if text in dated["text"]), None)
        if session_day is not None:
            assert dated["day"].replace("/", "-") == session_day, (
                f"{store}: {line!r} is dated {dated['day']}, said {session_day}"
            )
            checked["matched"] += 1
    assert checked["matched"] >= len(prompts) // 2, (
        f"{store}: too few hits traced to their session: {checked}"
    )
    if product is not None:  # what the product received: never two sessions in one add
        adds = _added_texts(product)[1:]  # the first is the health check's sentence
        traced = [{day for text in texts for said, day in days.items() if said in text} for texts in adds]
        assert sum(bool(sessions) for sessions in traced) >= 4, f"{store}: the adds were not traced"
        for sessions in traced:
            assert len(sessions) <= 1, f"{store}: one add held sessions of {sorted(sessions)}"
    if isinstance(product, EverMemOSServer):  # a message an add: its episodes hold one session each
        episodes, open_ = [], {}  # each group's messages up to and with a flush (cleared since)
        for add in (r.body for r in product.requests if product.adds(r)):
            open_.setdefault(add["group_id"], []).append(add["content"])
            if add.get("flush"):
                episodes.append("\n".join(open_.pop(add["group_id"])))
        assert not open_, f"{store}: messages left waiting for a boundary: {open_}"
        traced = [{day for said, day in days.items() if said in episode} for episode in episodes]
        assert sum(bool(sessions) for sessions in traced) >= 4, f"{store}: the episodes were not traced"
        assert all(len(sessions) <= 1 for sessions in traced), f"{store}: an episode spans sessions"
    if store == "agentcore":  # an AgentCore session holds one of the benchmark's sessions
        held: dict[str, set[str]] = {}
        for request in product.requests:
            if product.adds(request) and not request.body["actorId"].endswith("-check"):
                text = request.body["payload"][0]["conversational"]["content"]["text"]
                held.setdefault(request.body["sessionId"], set()).update(
                    day for said, day in days.items() if said in text
                )
        assert len(held) >= 4 and all(len(days) <= 1 for days in held.values()), held
    if store == "zep":  # LoCoMo's speakers reach Zep by name, whichever role each was cast in
        names = {m["name"] for r in product.requests if product.adds(r) for m in r.body["messages"]}
        assert len(names - {"User", "Assistant"}) == 2, names
