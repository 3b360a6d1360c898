"""Timings of agent calls, summarised per context and pooled across contexts.

A MemBench trajectory delivered one message per `observe` makes thousands of calls; keeping each
call's time in every item record would bloat results.json.  A context keeps its percentiles
instead, from which a summary can pool the 95th percentile of all calls of a run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

QUANTILES = 100  # a timing summary keeps its percentiles 0..100, enough to pool contexts later


def timing_summary(values: list[float]) -> dict[str, Any]:
    """Calls, mean, p95 and the percentiles of a context's timings (seconds).

    The percentiles let a summary pool several contexts (`pooled_percentile`) without keeping
    every call's time: a 100k-token trajectory delivered a message per `observe` has thousands.
    """
    ordered = sorted(values)
    points = [ordered[round(q / QUANTILES * (len(ordered) - 1))] for q in range(QUANTILES + 1)]
    return {
        "calls": len(values),
        "mean": round(sum(values) / len(values), 6),
        "p95": round(points[95 * QUANTILES // 100], 6),
        "percentiles": [round(point, 6) for point in points],
    }


def pooled_percentile(summaries: Sequence[Mapping[str, Any]], share: float) -> float:
    """The `share` percentile of all the calls behind several timing summaries, each percentile
    point standing for its context's calls / 101 (exact up to one percentile step of a context)."""
    weighted = sorted(
        (point, summary["calls"] / len(summary["percentiles"]))
        for summary in summaries
        for point in summary["percentiles"]
    )
    total, running = sum(weight for _, weight in weighted), 0.0
    for point, weight in weighted:
        running += weight
        if running >= share * total - 1e-9:
            return float(point)
    return float(weighted[-1][0])
