"""PrecisionMemBench's results table, from a run's item records, as its report builder sums a run
(`buildRetrievalReport.ts`): active passes over the active cases (the only column a memory cannot
fill by returning everything or nothing), passes by type, mean precision and recall over the cases
that have them (None ones left out), retrieval latency p50 / p95 (its nearest-rank rule), and for
session turns the mean drift score."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.scenarios.precisionmem.scoring import ACTIVE, STRUCTURAL, TRIVIALLY_EMPTY


def _rank(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def summarize(records: Sequence[Mapping[str, Any]]) -> JsonObject:
    """Passes by type, active passes, precision, recall, latency and (session turns) drift."""
    scored = [r for r in records if r.get("score") is not None and not r.get("error")]
    checks = [((r.get("details") or {}).get("scoring") or {}, bool(r.get("passed"))) for r in scored]
    if not checks:
        return {}
    passes = {kind: 0 for kind in (ACTIVE, STRUCTURAL, TRIVIALLY_EMPTY)}
    for check, passed in checks:
        if passed and check.get("pass_type") in passes:
            passes[check["pass_type"]] += 1
    active_cases = sum(1 for check, _ in checks if check.get("pass_type") == ACTIVE)
    precision = [float(c["precision"]) for c, _ in checks if c.get("precision") is not None]
    recall = [float(c["recall"]) for c, _ in checks if c.get("recall") is not None]
    drift = [float(c["drift"]) for c, _ in checks if c.get("drift") is not None]
    seconds = [
        float(value)
        for r in scored
        for value in (r.get("details") or {}).get("retrieve_seconds") or ()
        if value is not None
    ]
    metrics: JsonObject = {
        "active passes": f"{passes[ACTIVE]}/{active_cases}",
        "total passes": f"{sum(passes.values())}/{len(checks)}",
        "structural passes": passes[STRUCTURAL],
        "trivially empty passes": passes[TRIVIALLY_EMPTY],
        "mean precision": round(fmean(precision), 4) if precision else None,
        "mean recall": round(fmean(recall), 4) if recall else None,
    }
    if drift:
        metrics["mean drift"] = round(fmean(drift), 4)
    if seconds:
        metrics["retrieval p50 ms"] = round(1000 * _rank(seconds, 0.5), 2)
        metrics["retrieval p95 ms"] = round(1000 * _rank(seconds, 0.95), 2)
    return metrics


__all__ = ["summarize"]
