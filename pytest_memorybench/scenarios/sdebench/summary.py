"""sde-bench's figures over a run's items: the solve rate, first-time solves, and the corrections
histogram (sde-bench's primary metric), with the layer that failed the unsolved tasks.

A pure function of the item records (results.json), so it runs after an xdist run and in a replay.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.scenarios.sdebench.task import LAYERS


def summarize(records: Sequence[Mapping[str, Any]]) -> JsonObject:
    """Solved, solved first time, mean corrections of the solved, and how many took each count."""
    corrections: Counter[int] = Counter()
    failed: Counter[str] = Counter()
    tasks = 0
    for record in records:
        scoring = ((record.get("details") or {}).get("scoring")) or {}
        if record.get("score") is None or record.get("error") or "solved" not in scoring:
            continue
        tasks += 1
        if scoring["solved"]:
            corrections[int(scoring["corrections"])] += 1
        else:
            failed[str(scoring.get("failed_layer") or "no module")] += 1
    if not tasks:
        return {}
    solved = sum(corrections.values())
    metrics: JsonObject = {
        "solved": round(solved / tasks, 4),
        "solved first time": round(corrections[0] / tasks, 4),
    }
    if solved:
        metrics["mean corrections (solved)"] = round(sum(n * c for n, c in corrections.items()) / solved, 4)
    for count in range(max(corrections, default=0) + 1):
        metrics[f"tasks solved after {count} corrections"] = corrections[count]
    metrics["tasks unsolved"] = tasks - solved
    for layer in LAYERS:
        if failed[layer]:
            metrics[f"unsolved: {layer} layer failed"] = failed[layer]
    if failed["no module"]:
        metrics["unsolved: no module in the last reply"] = failed["no module"]
    return metrics


__all__ = ["summarize"]
