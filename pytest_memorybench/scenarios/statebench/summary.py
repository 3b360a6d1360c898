"""StateBench's metrics from the run's records, as its `MetricsAggregator` computes them.

Over the tracks that test supersession (every track but the `*_maintain` guardrails): decision
accuracy, SFRR (queries that resurrected a superseded value), leakage rate (queries that said
restricted data), fabrication rate, must-mention rate (hits over phrases) and must-not-mention
violation rate (violations over scored phrases).  Over the `*_maintain` tracks alone: the false
supersession rate, the share of queries whose still-valid fact was not affirmed.  Never blended.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memorybench.core.json_values import JsonObject

MAINTAIN = "_maintain"


def summarize(records: Sequence[Mapping[str, Any]]) -> JsonObject:
    """The run's StateBench metrics (rates in [0, 1], rounded to 4 places)."""
    guarded: list[Mapping[str, Any]] = []
    kept: list[Mapping[str, Any]] = []
    for record in records:
        details = (record.get("details") or {}).get("scoring")
        if record.get("score") is None or record.get("error") or not isinstance(details, dict):
            continue
        (guarded if str(record.get("category") or "").endswith(MAINTAIN) else kept).append(details)
    metrics: JsonObject = {}
    if kept:
        count = len(kept)
        mentioned = sum(int(d["must_mention"]) for d in kept)
        forbidden = sum(int(d["must_not_mention"]) for d in kept)
        metrics["decision accuracy"] = _rate(sum(bool(d["decision_correct"]) for d in kept), count)
        metrics["SFRR"] = _rate(sum(bool(d["resurrected"]) for d in kept), count)
        metrics["leakage rate"] = _rate(sum(bool(d["violations"].get("restricted")) for d in kept), count)
        metrics["fabrication rate"] = _rate(sum(bool(d["violations"].get("fabricated")) for d in kept), count)
        if mentioned:
            metrics["must-mention rate"] = _rate(sum(int(d["must_mention_hits"]) for d in kept), mentioned)
        if forbidden:
            violated = sum(len(phrases) for d in kept for phrases in d["violations"].values())
            metrics["must-not-mention violation rate"] = _rate(violated, forbidden)
    if guarded:
        wrong = sum(not d["decision_correct"] for d in guarded)
        metrics["false supersession rate"] = _rate(wrong, len(guarded))
    return metrics


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4)


__all__ = ["summarize"]
