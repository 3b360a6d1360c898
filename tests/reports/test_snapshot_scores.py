"""syrupy snapshots of a run's score table (with a tolerance) and of its definitions (exactly)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.reports.snapshot import (
    ScoreTableExtension,
    latest_run,
    load_results,
    score_table,
    within,
)
from tests.pytest_integration.test_plugin import COLOURS_SUITE

USER_TESTS = """
from pytest_memorybench.reports.snapshot import DefinitionsExtension, ScoreTableExtension, latest_run

def test_scores_hold(snapshot):
    assert latest_run() == snapshot(extension_class=ScoreTableExtension)

def test_definitions_hold(snapshot):
    assert latest_run() == snapshot(extension_class=DefinitionsExtension)
"""


def benchmark(pytester: pytest.Pytester, *arguments: str) -> None:
    pytester.runpytest(
        "--memorybench",
        "--span=isolated",
        "--mb-suite=colours_only.yaml",
        "-p",
        "no:cacheprovider",
        *arguments,
    ).assert_outcomes(passed=3)


def shift_means(run: Path, by: float) -> None:
    path = run / "results.json"
    results = json.loads(path.read_text())
    results["scenarios"]["ltm.colours"]["mean"] -= by
    path.write_text(json.dumps(results))


def test_a_team_snapshots_its_scores_and_definitions(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", colours_only=COLOURS_SUITE)
    pytester.makepyfile(test_memory_snapshots=USER_TESTS)
    benchmark(pytester, "--agent=oracle")

    missing = pytester.runpytest("test_memory_snapshots.py", "-p", "no:cacheprovider")
    missing.assert_outcomes(failed=2)  # no snapshot yet: syrupy fails until one is accepted
    pytester.runpytest(
        "test_memory_snapshots.py", "--snapshot-update", "-p", "no:cacheprovider"
    ).assert_outcomes(passed=2)
    stored = json.loads(
        next(pytester.path.glob("__snapshots__/test_memory_snapshots/test_scores_hold.json")).read_text()
    )
    assert stored["scenarios"]["ltm.colours"] == {"mean": 1.0, "n": 3}
    assert stored["total"] == {"mean": 1.0, "n": 3} and stored["suites"] == {"ltm": {"mean": 1.0, "n": 3}}

    run = latest_run(pytester.path / ".memorybench" / "runs")
    shift_means(run, 0.015)
    pytester.runpytest("test_memory_snapshots.py", "-p", "no:cacheprovider").assert_outcomes(passed=2)

    shift_means(run, 0.2)
    moved = pytester.runpytest("test_memory_snapshots.py", "-p", "no:cacheprovider")
    moved.assert_outcomes(passed=1, failed=1)
    moved.stdout.fnmatch_lines(["*test_scores_hold*", '*-*"mean": 1.0*', '*+*"mean": 0.785*'])

    benchmark(pytester, "--agent=oracle", "--mb-seed=9")  # other content: the definitions snapshot notices
    reseeded = pytester.runpytest("test_memory_snapshots.py", "-p", "no:cacheprovider")
    reseeded.assert_outcomes(passed=1, failed=1)
    reseeded.stdout.fnmatch_lines(["FAILED test_memory_snapshots.py::test_definitions_hold*"])


def test_the_tolerance_is_on_numbers_only() -> None:
    assert within({"mean": 0.5, "n": 3}, {"mean": 0.52, "n": 3}, 0.02)
    assert not within({"mean": 0.5, "n": 3}, {"mean": 0.53, "n": 3}, 0.02)
    assert not within({"mean": 0.5, "n": 3}, {"mean": 0.5, "n": 4}, 0.02), "counts must match"
    assert not within({"mean": 0.5}, {"mean": 0.5, "extra": 1}, 0.02), "rows must match"
    assert not within({"mean": None}, {"mean": 0.0}, 0.02) and within({"a": "x"}, {"a": "x"}, 0.0)


def test_the_table_keeps_categories_and_scalar_metrics() -> None:
    results = {
        "totals": {"score": 1.5, "max": 3},
        "suites": {"beam": {"mean": 0.5, "ci95": [0.1, 0.9], "n": 3}},
        "scenarios": {
            "beam.probes": {
                "mean": 0.5,
                "ci95": [0.1, 0.9],
                "n": 3,
                "categories": {"abstention": {"mean": 1.0, "ci95": None, "n": 1}},
                "metrics": {"recall@5": 0.75, "curve": {"curve": [[1, 2]]}, "ok": True},
            }
        },
    }
    assert score_table(results) == {
        "total": {"mean": 0.5, "n": 3},
        "suites": {"beam": {"mean": 0.5, "n": 3}},
        "scenarios": {
            "beam.probes": {
                "mean": 0.5,
                "n": 3,
                "categories": {"abstention": {"mean": 1.0, "n": 1}},
                "metrics": {"recall@5": 0.75},
            }
        },
    }
    assert not ScoreTableExtension().matches(serialized_data="{}", snapshot_data=None)


def test_missing_runs_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(
        UsageError, match=r"no finished run \(no \*/results.json\); run pytest --memorybench first"
    ):
        latest_run(tmp_path)
    with pytest.raises(UsageError, match=r"cannot read a results.json"):
        load_results(tmp_path)
