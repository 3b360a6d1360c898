"""A store's run of two LTM scenarios (colours and name_list, three conversations each, isolated):
the products' end-to-end tests share it; and a store's retries without the harness's back-off."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

import pytest

from tests.support.loopback import LoopbackState

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
