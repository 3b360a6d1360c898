"""LoCoMo's results table: per category, with Wilson 95 % intervals, and the totals people publish.

The common pipelines publish accuracy over categories 1-4 (1,540 questions; category 5 left
out), the paper's table includes category 5: both totals are given.  Each category's interval is
Wilson's score interval for a proportion (exact in kind for the `official` and `audited`
profiles' right/wrong verdicts; for the paper's F1 it treats the mean F1 as the proportion, a
rough guide).  The intervals say what the audit showed: a category of 96 questions cannot tell
apart two systems a few points apart, so `separable` gives, per category, the smallest
difference its interval can resolve (the half-width of the interval at the observed score).
Evidence recall and audit figures come from the records' details.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist, fmean
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.scenarios.locomo.data import CATEGORIES
from pytest_memorybench.scenarios.locomo.plus import COGNITIVE

Z95 = NormalDist().inv_cdf(0.975)


def wilson_interval(mean: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion `mean` observed over `n` trials."""
    if n <= 0:
        return (0.0, 1.0)
    centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class _Row:
    """A category's mean over its items, and its Wilson interval (rounded as the summary shows them)."""

    mean: float
    n: int
    low: float
    high: float
    separable: float  # the interval's half-width: how far apart two means must be to tell apart

    @classmethod
    def of(cls, scores: Sequence[float]) -> _Row:
        mean = fmean(scores)
        low, high = wilson_interval(mean, len(scores))
        return cls(round(mean, 4), len(scores), round(low, 4), round(high, 4), round((high - low) / 2, 4))

    def to_json(self) -> JsonObject:
        return {"mean": self.mean, "n": self.n, "wilson": [self.low, self.high], "separable": self.separable}


def summarize(records: Sequence[Mapping[str, Any]]) -> JsonObject:
    """LoCoMo's summary: the mean over categories 1-4 and 1-5, and each category's Wilson interval."""
    by_category: dict[str, list[float]] = defaultdict(list)
    for record in records:
        if (
            record.get("score") is None
            or record.get("error")
            or record.get("category") not in CATEGORIES.values()
        ):
            continue
        by_category[str(record["category"])].append(float(record["score"]))
    table = {name: _Row.of(by_category[name]) for name in CATEGORIES.values() if by_category.get(name)}
    metrics: JsonObject = {}
    for name, row in table.items():
        metrics[f"{name} Wilson"] = f"[{row.low:.2f}, {row.high:.2f}] n={row.n}"
    without = [score for name, scores in by_category.items() if name != CATEGORIES[5] for score in scores]
    if without:
        metrics["categories 1-4"] = round(fmean(without), 4)
    every = [score for scores in by_category.values() for score in scores]
    if every and len(every) != len(without):
        metrics["categories 1-5"] = round(fmean(every), 4)
    narrow = [row.separable for row in table.values()]
    if narrow:
        metrics["category resolution (Wilson half-width)"] = f"±{min(narrow):.2f} to ±{max(narrow):.2f}"
    cognitive = [
        float(r["score"]) for r in records if r.get("category") == COGNITIVE and r.get("score") is not None
    ]
    if cognitive:  # LoCoMo-Plus's category 6, apart from the five of the paper
        metrics["category 6 (cognitive)"] = round(fmean(cognitive), 4)
    metrics["table"] = {name: row.to_json() for name, row in table.items()}
    return metrics


__all__ = ["summarize", "wilson_interval"]
