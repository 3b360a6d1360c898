"""A store's run of two LTM scenarios (colours and name_list, three conversations each, isolated):
the products' end-to-end tests share it; a store's retries without the harness's back-off; and the
checks of a product whose `wait` polls the work it accepted."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client
from pytest_memorybench.agents.stores.store_protocol import StoreError
from pytest_memorybench.core.records import Message
from tests.support.llm_server import LLMServer
from tests.support.loopback import LoopbackState
from tests.support.memory_model import MemoryModelScript, scripted_memory_server

Served = TypeVar("Served", bound=LoopbackState)


def two_scenarios(pytester: pytest.Pytester, agent: str) -> dict[str, Any]:
    """The run's results.json, asserted complete: its six items scored, none an error."""
    run = pytester.path / "run"
    result = pytester.runpytest(
        "--memorybench", "--span=isolated", "-k", "colours or name_list", "-p", "no:cacheprovider",
        f"--agent={agent}", f"--mb-output={run}",
    )  # fmt: skip
    results: dict[str, Any] = json.loads((run / "results.json").read_text())
    totals = results["totals"]
    assert not totals["errors"] and totals["max"] == 6, result.stdout.str()[-3000:]
    assert totals["store"]["ingest_ms_per_message"] > 0
    return results


async def wait_ends_at_the_timeout(spec: str, messages: list[Message], namespace: str) -> None:
    """A product whose processing never finishes, for `spec`: the harness's timeout (0.3 s) ends the
    store's wait, a StoreError (the item an ERROR), never a pass over what was not processed."""
    slow = store_client(parse_agent_spec(spec), AgentOptions(timeout=60))
    slow.attempts = 1
    await slow.add(messages, namespace)  # within a minute, so a busy machine never fails the add
    slow.timeout = 0.3
    with pytest.raises(StoreError, match=r"wait\(\) took longer than 0.3 s"):
        await slow.wait(namespace)
    await slow.close()


@contextmanager
def scripted_in_process(module: str) -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    """The scripted model server for a product run in process (LangMem, memU): its chat model and
    embedder; skipped where the product's package (`module`) is not installed."""
    pytest.importorskip(module)
    with scripted_memory_server() as served:
        yield served


def in_process_run(pytester: pytest.Pytester, agent: str, distribution: str, version: str) -> None:
    """An in-process product's run of the two LTM scenarios on the scripted model: the colours and
    names found by their words, what it stored and its model's tokens counted, its version recorded."""
    results = two_scenarios(pytester, agent)
    totals = results["totals"]
    assert totals["evidence_recall"]["mean"] > 0.5, "the colours and names are found by their words"
    assert totals["store"]["stored"] and totals["store"]["ingest_tokens"] > 0
    assert results["run"]["provenance"]["products"][distribution] == version


def without_back_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness's exponential back-off between a store's tries (0.5 s, then 1 s) taken to nothing,
    for tests of what is retried, not of how long it waits: a wait a server asks for (Retry-After)
    is still the server's."""
    monkeypatch.setattr(
        "pytest_memorybench.agents.stores.store_protocol.wait_exponential",
        lambda *_, **__: lambda _state: 0.0,
    )


@contextmanager
def product_server(
    serve: Callable[[], AbstractContextManager[Served]],
    sdk: str,
    variable: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Served]:
    """A product's loopback server running, its key in `variable`, the harness's back-off off;
    skipped where the product's SDK (`sdk`, a module) is not installed."""
    pytest.importorskip(sdk)
    without_back_off(monkeypatch)
    with serve() as server:
        monkeypatch.setenv(variable, server.key)
        yield server


async def waits_until_done_within_the_timeout(
    server: Any, spec: str, sessions: tuple[list[Message], list[Message]], polls: Callable[[], list[int]]
) -> None:
    """A product whose `wait` polls work it accepted (its server's `process_polls` reads before done):
    the wait lasts as long as the work takes (40 polls: longer than a fixed short poll would wait),
    and work that is never done ends in the harness's timeout, an ERROR."""
    server.process_polls = 40
    client = store_client(parse_agent_spec(spec), AgentOptions(timeout=30))
    await client.add(sessions[0], "conv-a")
    await client.wait("conv-a")
    assert polls() == [40], "polled until done"
    server.process_polls = 10**9
    await wait_ends_at_the_timeout(spec, sessions[1], "conv-b")
    await client.close()


async def failed_work_errs_each_wait(server: Any, spec: str, session: list[Message], said: str) -> None:
    """Work the product failed (its server `failing`) is a StoreError every time it is waited for,
    never passed over on a retried wait."""
    server.failing = True
    client = store_client(parse_agent_spec(spec), AgentOptions())
    await client.add(session, "conv-a")
    for _ in range(2):
        with pytest.raises(StoreError, match=said):
            await client.wait("conv-a")
    await client.close()
