"""Accuracy under a latency budget as the reports say it: a few short lines.

The figures are `results/latency_budget.py`'s; here they become the terminal's footer lines (and
report.html's, and the Markdown summary's).  The curve of accuracy against the budget, one line per
run, is `compare/svg.budget_curves`: report.html draws the run's own, compare runs side by side.
"""

from __future__ import annotations

from pytest_memorybench.results.latency_budget import T_MAX, T_MIN
from pytest_memorybench.results.schema import LatencyBudgetRecord

SHOWN = (1.0, 3.0, 5.0, 30.0, 200.0)  # the budgets a line names: DialSim's 1, 3, 5 s, and LAFS's range


def within_text(record: LatencyBudgetRecord) -> str:
    """`accuracy within 1 / 3 / 5 / 30 / 200 s: 0.412 / 0.530 / …`: the mean score had every answer
    had to come within each budget (a later one counting 0)."""
    pairs = dict(zip(record["budgets"], record["accuracy"], strict=False))
    shown = [budget for budget in SHOWN if budget in pairs]
    budgets = " / ".join(f"{budget:g}" for budget in shown)
    return f"accuracy within {budgets} s: " + " / ".join(f"{pairs[budget]:.3f}" for budget in shown)


def lafs_text(record: LatencyBudgetRecord) -> str:
    """`LAFS 1-200 s: 0.471 item by item, 0.455 as one point at mean answer 12.3 s`."""
    return (
        f"LAFS {T_MIN:g}-{T_MAX:g} s: {record['lafs']:.3f} item by item, {record['lafs_operating_point']:.3f}"
        f" as one point at mean answer {_seconds(record['mean_seconds'])}"
    )


def budget_lines(record: LatencyBudgetRecord | None) -> list[str]:
    """What a run's latency-budget figures say, a line each within 80 columns; none without figures."""
    if not record:
        return []
    lines = [within_text(record), lafs_text(record)]
    if "deadline" in record:
        lines.append(
            f"answer deadline {record['deadline']:g} s: {record.get('late', 0)} of {record['items']}"
            " answers came later and scored 0"
        )
    if record["unmeasured"]:
        lines.append(
            f"left out: {record['unmeasured']} scored item(s) with no known answer time"
            " (re-scored, older log)"
        )
    return lines


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"


BUDGET_COLUMNS = (*(f"{budget:g} s" for budget in SHOWN), "LAFS", "as a point")


def budget_cells(record: LatencyBudgetRecord | None) -> list[str]:
    """A run's row of the comparison's latency-budget table, under `BUDGET_COLUMNS`: its accuracy
    within each budget shown, LAFS item by item and as one point; dashes without figures."""
    if not record:
        return ["-"] * len(BUDGET_COLUMNS)
    pairs = dict(zip(record["budgets"], record["accuracy"], strict=False))
    within = [f"{pairs[budget]:.3f}" if budget in pairs else "-" for budget in SHOWN]
    return [*within, f"{record['lafs']:.3f}", f"{record['lafs_operating_point']:.3f}"]
