"""The 95 % bootstrap intervals: deterministic for a seed, resampled within scenarios, honest at n < 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from pytest_memorybench.results.breakdown import scenario_stats, suite_stats
from pytest_memorybench.results.statistics import bootstrap_ci

MIXED = [[1.0, 0.0, 1.0, 0.5, 0.0, 1.0], [0.0, 0.25, 1.0]]


def test_same_seed_same_interval_and_another_seed_another() -> None:
    first = bootstrap_ci(MIXED, seed=7, label="suite:ltm")
    assert first == bootstrap_ci(MIXED, seed=7, label="suite:ltm")
    assert first != bootstrap_ci(MIXED, seed=8, label="suite:ltm")
    assert first != bootstrap_ci(MIXED, seed=7, label="suite:other"), "rows draw independent replicates"


def test_the_interval_does_not_depend_on_the_process_hash_seed() -> None:
    """Python's str hash changes per process; xdist workers and re-runs must still agree."""
    code = (
        "import json; from pytest_memorybench.results.statistics import bootstrap_ci; "
        f"print(json.dumps(bootstrap_ci({MIXED!r}, seed=3, label='scenario:ltm.colours')))"
    )
    intervals = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        intervals.add(out.stdout.strip())
    assert len(intervals) == 1
    assert json.loads(intervals.pop()) == bootstrap_ci(MIXED, seed=3, label="scenario:ltm.colours")


def test_the_interval_holds_the_mean_and_stays_in_range() -> None:
    low, high = bootstrap_ci(MIXED, seed=0, label="total") or (None, None)
    mean = sum(map(sum, MIXED)) / sum(map(len, MIXED))
    assert 0.0 <= low < mean < high <= 1.0


def test_scenarios_are_never_mixed_when_resampling() -> None:
    """One scenario always right and one always wrong: the suite mean cannot move from 0.5.

    Resampling items across the whole suite would give a wide interval here; resampling within
    each scenario (as GoodAI resamples each scenario's results) gives none.
    """
    assert bootstrap_ci([[1.0] * 3, [0.0] * 3], seed=0, label="suite:ltm") == [0.5, 0.5]
    assert bootstrap_ci([[1.0] * 3 + [0.0] * 3], seed=0, label="one stratum") != [0.5, 0.5]


def test_fewer_than_two_results_have_no_interval() -> None:
    assert bootstrap_ci([[0.7]], seed=0, label="x") is None
    assert bootstrap_ci([], seed=0, label="x") is None


def record(suite: str, scenario: str, score: float, category: str | None = None) -> dict:
    item = {"suite": suite, "scenario": scenario, "score": score}
    return {**item, "category": category} if category else item


def test_results_rows_carry_mean_interval_n_and_categories() -> None:
    records = [
        record("beam", "beam.probes", 1.0, "abstention"),
        record("beam", "beam.probes", 0.0, "abstention"),
        record("beam", "beam.probes", 1.0, "temporal"),
        record("beam", "beam.probes", 0.5, "temporal"),
        record("ltm", "ltm.colours", 1.0),
    ]
    scenarios = scenario_stats(records, seed=0)
    probes = scenarios["beam.probes"]
    assert probes["mean"] == 0.625 and probes["n"] == 4 and probes["ci95"] is not None
    assert probes["categories"]["abstention"]["mean"] == 0.5
    assert probes["categories"]["temporal"]["n"] == 2
    assert "categories" not in scenarios["ltm.colours"] and scenarios["ltm.colours"]["ci95"] is None
    assert suite_stats(records, seed=0)["ltm"] == {
        "mean": 1.0,
        "mean_strict": 1.0,
        "ci95": None,
        "n": 1,
        "errors": 0,
    }
    assert scenario_stats(records, seed=0) == scenarios, "deterministic"


def test_items_that_errored_are_counted_and_left_out_of_mean_interval_and_n_but_not_the_strict_mean() -> None:
    records = [
        record("beam", "beam.probes", 1.0, "abstention"),
        record("beam", "beam.probes", None, "abstention"),  # errored: no score
        record("beam", "beam.probes", 0.0, "temporal"),
        record("beam", "beam.probes", None, "temporal"),
    ]
    probes = scenario_stats(records, seed=0)["beam.probes"]
    assert (probes["mean"], probes["n"], probes["errors"]) == (0.5, 2, 2)
    assert probes["mean_strict"] == 0.25, "1 + 0 over the four items, the two errors as 0"
    assert probes["categories"]["abstention"] == {
        "mean": 1.0,
        "mean_strict": 0.5,
        "ci95": None,
        "n": 1,
        "errors": 1,
    }
    assert probes["categories"]["temporal"]["mean_strict"] == 0.0
    assert suite_stats(records, seed=0)["beam"]["mean"] == 0.5
    assert suite_stats(records, seed=0)["beam"]["mean_strict"] == 0.25
