"""Accuracy under a latency budget: what a run would have scored had every answer had to come in time.

A memory that answers well in three minutes and one that answers nearly as well in a second are not
the same memory to a user waiting.  LongMemEval-V2 ranks memories by LAFS, the best accuracy a
latency budget T allows, averaged over T log-uniform from 1 to 200 seconds; DialSim asks for an
answer within 1, 3 or 5 seconds.  Every run records, from each item's answer latency (the reply
that answered it, `ItemRecord.answer_seconds`), two readings of that rule:

- **item by item** (`accuracy`, `lafs`): under a budget of T seconds an item keeps its score when its
  answer came within T, else counts 0; `accuracy` is that mean for each T of `BUDGETS`.  `lafs` is the
  mean of the same curve over T log-uniform in [1, 200] s, computed exactly: an item answered in
  L seconds counts for the budgets from L to 200, a share ln(200 / max(L, 1)) / ln 200 of them.
- **the run as one operating point** (`lafs_operating_point`): LongMemEval-V2's leaderboard
  (`leaderboard/compute_lafs.py`) gives a method's overall accuracy at its *mean* query latency as
  one point, whose LAFS is that accuracy times the same share at the mean latency.  The item reading
  credits a run whose fast answers are right; the point reading is the one their published numbers
  use (in percentage points there; their LAFS gain is against their own reference frontier,
  which is theirs to publish and not repeated here).

Both read only the items' scores and latencies, so compare recomputes them over the items two runs
share.  Items without a score (an error) are left out, as from the mean; items whose latency is not
known (published results re-scored, a log from before latencies were kept) are counted as
`unmeasured` and left out of the curve.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from typing_extensions import TypedDict

from pytest_memorybench.results.schema import LatencyBudgetRecord

T_MIN, T_MAX = 1.0, 200.0  # LongMemEval-V2's LAFS range, seconds
BUDGETS = (0.1, 0.3, 1.0, 3.0, 5.0, 10.0, 30.0, 60.0, 100.0, 200.0)  # DialSim's 1, 3, 5 s among them


class LatencyBudgetPart(TypedDict, total=False):
    """`latency_budget` where it stands in a record of results.json (the totals, a suite)."""

    latency_budget: LatencyBudgetRecord


def budget_share(seconds: float) -> float:
    """The share of budgets T, log-uniform in [T_MIN, T_MAX], that an answer taking `seconds` meets."""
    if seconds >= T_MAX:
        return 0.0
    return math.log(T_MAX / max(seconds, T_MIN)) / math.log(T_MAX / T_MIN)


def timed_scores(records: Iterable[Mapping[str, Any]]) -> tuple[list[tuple[float, float]], int]:
    """(score, answer seconds) of each scored item whose latency is known, and how many scored items
    have none."""
    timed, unmeasured = [], 0
    for record in records:
        score = record.get("score")
        if score is None:
            continue
        seconds = record.get("answer_seconds")
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds >= 0:
            timed.append((float(score), float(seconds)))
        else:
            unmeasured += 1
    return timed, unmeasured


def accuracy_within(timed: Sequence[tuple[float, float]], budget: float) -> float:
    """The mean score had every answer had to come within `budget` seconds (a later one counts 0)."""
    return sum(score for score, seconds in timed if seconds <= budget) / len(timed)


def lafs(timed: Sequence[tuple[float, float]]) -> float:
    """The mean of `accuracy_within(T)` over T log-uniform in [1, 200] s, exactly: each item's score
    weighed by the share of those budgets its answer met."""
    return sum(score * budget_share(seconds) for score, seconds in timed) / len(timed)


def latency_budget(
    records: Iterable[Mapping[str, Any]], deadline: float | None = None
) -> LatencyBudgetRecord | None:
    """The latency-budget figures of these items, or None when none has a known answer latency.

    `deadline` (`--mb-answer-deadline`), when the run had one, is recorded with how many answers
    came after it (`contract.deadline` scored them 0: the curve shows what the deadline left)."""
    timed, unmeasured = timed_scores(records)
    if not timed:
        return None
    mean_score = sum(score for score, _ in timed) / len(timed)
    mean_seconds = sum(seconds for _, seconds in timed) / len(timed)
    record: LatencyBudgetRecord = {
        "items": len(timed),
        "unmeasured": unmeasured,
        "budgets": list(BUDGETS),
        "accuracy": [round(accuracy_within(timed, budget), 6) for budget in BUDGETS],
        "lafs": round(lafs(timed), 6),
        "mean_seconds": round(mean_seconds, 6),
        "lafs_operating_point": round(mean_score * budget_share(mean_seconds), 6),
    }
    if deadline is not None:
        record["deadline"] = deadline
        record["late"] = sum(1 for _, seconds in timed if seconds > deadline)
    return record


def latency_budget_part(records: Iterable[Mapping[str, Any]], deadline: float | None) -> LatencyBudgetPart:
    """`latency_budget`, when some of these items' answer latencies are known."""
    figures = latency_budget(records, deadline)
    return {"latency_budget": figures} if figures is not None else {}
