"""Two runs in one process, in either order, give the results each gives alone.

A worker of the project's own test session runs many benchmark runs in process, one after the
other; one run's state (a module global, a cache, a registry, a module imported anew) must never
change the next one's results.  Each run here is in process (pytester's inner run), as those are.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from pytest_memorybench.models.provider_pool import serving
from tests.support.runs import results_in

SELECTION = ("--span=isolated", "-k", "colours or jokes or prospective_memory or restaurant")
RUNS = {"oracle": "--agent=oracle", "recall": "--agent=recall"}


def _run(pytester: pytest.Pytester, name: str, order: int) -> dict[str, Any]:
    folder = pytester.path / f"{name}-{order}"
    pytester.runpytest(
        "--memorybench", "-p", "no:cacheprovider", "-p", "no:randomly", RUNS[name], *SELECTION,
        f"--mb-output={folder}",
    )  # fmt: skip
    results = results_in(folder)
    return {
        item["nodeid"]: (item["score"], item["error"], bool((item.get("details") or {}).get("evidence")))
        for item in results["items"]
    }


def test_runs_in_one_process_in_both_orders_give_the_same_results(pytester: pytest.Pytester) -> None:
    first = {name: _run(pytester, name, 0) for name in ("oracle", "recall")}
    second = {name: _run(pytester, name, 1) for name in ("recall", "oracle")}
    assert first == second
    assert len(first["recall"]) == 12 and all(found for _, _, found in first["recall"].values()), (
        "the recall baseline retrieves: every question's evidence recall is measured"
    )
    assert all(score == 1.0 for score, _, _ in first["oracle"].values())


def test_a_session_that_cannot_start_leaves_nothing_of_its_run_behind(pytester: pytest.Pytester) -> None:
    """Its provider pool stops serving and its event loop's thread ends: the next run starts clean."""
    before, threads = serving(), set(threading.enumerate())
    result = pytester.runpytest("--memorybench", "-p", "no:cacheprovider", "--agent=no_such_module:agent")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert serving() is before
    assert not [thread for thread in set(threading.enumerate()) - threads if thread.is_alive()]
