"""Accuracy under a latency budget (`results/latency_budget.py`), checked against a hand computation
and against LAFS taken the long way: the best accuracy each budget allows, averaged over many
budgets spread log-uniformly from 1 to 200 s."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.contract.deadline import answer_latency, on_time
from pytest_memorybench.core.records import Score
from pytest_memorybench.reports.compare.comparison import compare
from pytest_memorybench.reports.compare.runs import FinishedRun
from pytest_memorybench.reports.compare.text import comparison_lines
from pytest_memorybench.reports.latency_budget import budget_lines
from pytest_memorybench.reports.markdown import comparison_markdown
from pytest_memorybench.results.latency_budget import BUDGETS, budget_share, latency_budget


def item(name: str, score: float | None, seconds: float | None) -> dict[str, Any]:
    return {
        "nodeid": f"s::{name}",
        "suite": "s",
        "scenario": "s.t",
        "test_id": name,
        "definition": name,
        "score": score,
        "passed": bool(score),
        "reasons": [],
        "answer_seconds": seconds,
    }


# Four answers: right in half a second, right in 10 s, wrong in 2 s, half right after 300 s; an
# error (no score) and a re-scored answer (no time) beside them.
ITEMS = [
    item("fast", 1.0, 0.5),
    item("slow", 1.0, 10.0),
    item("wrong", 0.0, 2.0),
    item("late", 0.5, 300.0),
    item("errored", None, 1.0),
    item("untimed", 1.0, None),
]


def by_integration(timed: list[tuple[float, float]], steps: int = 20_000) -> float:
    """LAFS the long way: accuracy under each of `steps` budgets, log-uniform in [1, 200] s, averaged."""
    total = 0.0
    for step in range(steps):
        budget = math.exp(math.log(200) * (step + 0.5) / steps)
        total += sum(score for score, seconds in timed if seconds <= budget) / len(timed)
    return total / steps


def test_the_curve_and_lafs_agree_with_a_hand_computation() -> None:
    record = latency_budget(ITEMS)
    assert record is not None
    assert (record["items"], record["unmeasured"]) == (4, 1), "the error left out, the untimed counted"
    within = dict(zip(record["budgets"], record["accuracy"], strict=True))
    assert within[0.3] == 0.0, "nothing came that fast"
    assert within[1.0] == 0.25, "only the half-second answer"
    assert within[3.0] == 0.25, "the wrong answer at 2 s adds nothing"
    assert within[10.0] == 0.5 and within[200.0] == 0.5, "the 300 s answer never counts"
    expected = (1.0 + 1.0 * math.log(200 / 10) / math.log(200)) / 4
    assert record["lafs"] == pytest.approx(expected, abs=1e-6)
    assert record["lafs"] == pytest.approx(
        by_integration([(1.0, 0.5), (1.0, 10.0), (0.0, 2.0), (0.5, 300.0)]), abs=1e-4
    )
    assert record["mean_seconds"] == pytest.approx(312.5 / 4)
    assert record["lafs_operating_point"] == pytest.approx(
        0.625 * math.log(200 / 78.125) / math.log(200), abs=1e-6
    )
    assert list(BUDGETS) == record["budgets"] and {1.0, 3.0, 5.0} <= set(BUDGETS), "DialSim's limits"


def test_one_operating_point_scores_as_longmemeval_v2s_leaderboard() -> None:
    """LME-V2's `compute_lafs.lafs` of one point (accuracy, latency): the accuracy over the budgets at
    or above its latency; their AgentRunbook-C (74.9 at 108.3 s) keeps ln(200/108.3)/ln 200 of it."""
    share = budget_share(108.3)
    assert 74.9 * share == pytest.approx(74.9 * by_integration([(1.0, 108.3)]), abs=1e-2)
    assert share == pytest.approx(0.1157, abs=1e-4)
    assert budget_share(0.2) == 1.0 and budget_share(200.0) == 0.0 and budget_share(500.0) == 0.0


def test_no_known_latency_is_no_figure_and_a_deadline_counts_what_came_after_it() -> None:
    assert latency_budget([item("untimed", 1.0, None), item("errored", None, 3.0)]) is None
    record = latency_budget(ITEMS, deadline=5.0)
    assert record is not None and record["deadline"] == 5.0 and record["late"] == 2
    assert budget_lines(record) == [
        "accuracy within 1 / 3 / 5 / 30 / 200 s: 0.250 / 0.250 / 0.250 / 0.500 / 0.500",
        "LAFS 1-200 s: 0.391 item by item, 0.111 as one point at mean answer 78.1 s",
        "answer deadline 5 s: 2 of 4 answers came later and scored 0",
        "left out: 1 scored item(s) with no known answer time (re-scored, older log)",
    ]
    assert all(len(line) <= 79 for line in budget_lines(record)), "an 80-column CI log"


def test_an_answer_after_the_deadline_scores_zero_and_says_why() -> None:
    right = Score(1.0, ("matched 'blue'",))
    late = on_time(right, 6.2, 5.0)
    assert late.value == 0.0
    assert late.reasons == (
        "late: answered in 6.2 s, over the 5 s answer deadline (--mb-answer-deadline); on time it would"
        " have scored 1",
        "matched 'blue'",
    )
    assert on_time(right, 5.0, 5.0) is right, "at the deadline is in time"
    assert on_time(right, None, 5.0) is right, "an answer of unknown time is not held to it"
    assert on_time(right, 60.0, None) is right, "no deadline"
    assert answer_latency([0.4, 2.5, 1.0]) == 2.5, "a test is answered when its last answer is in"
    assert answer_latency([0.4, None]) is None and answer_latency([]) is None


def test_compare_sets_the_runs_curves_side_by_side_over_the_shared_items() -> None:
    fast = [item("a", 1.0, 0.5), item("b", 1.0, 0.8), item("c", 0.0, 0.9)]
    slow = [item("a", 1.0, 40.0), item("b", 1.0, 45.0), item("c", 1.0, 50.0), item("only", 1.0, 1.0)]
    runs = [
        FinishedRun("fast", Path("fast"), {"items": fast, "run": {}}),  # type: ignore[typeddict-item]
        FinishedRun("slow", Path("slow"), {"items": slow, "run": {}}),  # type: ignore[typeddict-item]
    ]
    comparison = compare(runs)
    first, second = comparison.latency_budgets
    assert first is not None and second is not None
    assert second["items"] == 3, "over the shared items only"
    assert first["lafs"] == pytest.approx(2 / 3) and first["accuracy"][-1] == pytest.approx(2 / 3)
    assert second["accuracy"][BUDGETS.index(30.0)] == 0.0 and second["accuracy"][-1] == 1.0
    assert second["lafs"] == pytest.approx(
        sum(math.log(200 / s) for s in (40, 45, 50)) / 3 / math.log(200), abs=1e-6
    )
    lines = comparison_lines(comparison)
    at = lines.index("within a latency budget (shared items); LAFS 1-200 s by item and as a point")
    assert lines[at + 2].split() == ["A", "0.667", "0.667", "0.667", "0.667", "0.667", "0.667", "0.667"]
    assert lines[at + 3].split()[:5] == ["B", "0.000", "0.000", "0.000", "0.000"]
    assert all(len(line) <= 79 for line in lines[at : at + 4])
    assert "| A | 0.667 | 0.667 | 0.667 | 0.667 | 0.667 | 0.667 | 0.667 |" in comparison_markdown(comparison)
    assert comparison.to_json()["latency_budgets"] == [first, second]


def test_runs_under_different_answer_deadlines_are_compared_only_when_told() -> None:
    fast = [item("a", 1.0, 0.5)]
    runs = [
        FinishedRun("a", Path("a"), {"items": fast, "run": {"answer_deadline": 1.0}}),  # type: ignore[typeddict-item]
        FinishedRun("b", Path("b"), {"items": fast, "run": {}}),  # type: ignore[typeddict-item]
    ]
    with pytest.raises(Exception, match="different answer_deadlines"):
        compare(runs)
    assert (
        compare(runs, anyway=True)
        .notes[0]
        .startswith("compared anyway (--mb-compare-anyway): different answer_deadlines")
    )
