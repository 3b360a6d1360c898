"""The means results.json reports, with their 95 % bootstrap intervals, deterministic for a run seed.

A mean is over the items that scored: an item that errored has no score and is no measure of
memory.  Beside it stands the strict mean over every item, an error counting 0 (`strict_mean`),
and the counts of both (`stats_of`).  A suite's, a scenario's, a category's and the run's numbers
are all made here, so every level and every reader (the table, compare) counts alike.

The GoodAI paper (§4) estimates how much a benchmark score could move by generating 1,000
possible outcomes, "repeatedly sampling one result from each scenario and adding them together".
We keep its two ideas, 1,000 replicates and resampling *within* each scenario (a suite's results
are never mixed across scenarios), and resample as many results per scenario as the run has, so
the interval is the one of the mean this run reports rather than of a one-repetition run.  The
95 % interval is the 2.5th to 97.5th percentile of the replicate means.

Replicates come from a generator seeded with the run seed and the row's name, so the same
results give the same interval on every machine, in every xdist layout, in every re-run.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Sequence

from pytest_memorybench.results.schema import ItemRecord, StatsRecord

REPLICATES = 1000
CONFIDENCE = 0.95
_CHUNK = 250  # replicates drawn at once: bounds memory for scenarios with many thousand items


def bootstrap_ci(
    strata: Sequence[Sequence[float]], *, seed: int, label: str, replicates: int = REPLICATES
) -> list[float] | None:
    """[low, high] of the 95 % interval of the mean of all values, resampling within each stratum.

    `strata` are the score lists that must not mix (one per scenario for a suite or a total; a
    single list for a scenario).  Fewer than two values give None: one result has no spread to
    resample, and an interval of width zero would claim a certainty the run does not have.
    """
    import numpy as np  # when the report is made, not when the plugin starts

    groups = [np.asarray(values, dtype=float) for values in strata if len(values)]
    count = sum(len(group) for group in groups)
    if count < 2:
        return None
    rng = np.random.default_rng(_seed_material(seed, label))
    means = np.empty(replicates)
    for start in range(0, replicates, _CHUNK):
        size = min(_CHUNK, replicates - start)
        total = np.zeros(size)
        for group in groups:
            picks = rng.integers(0, len(group), size=(size, len(group)))
            total += group[picks].sum(axis=1)
        means[start : start + size] = total / count
    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return [round(float(low), 6), round(float(high), 6)]


def _seed_material(seed: int, label: str) -> list[int]:
    """Entropy for numpy's SeedSequence: the run seed and a stable hash of the row's name.

    Python's `hash()` of a string changes from process to process; sha256 does not.
    """
    digest = hashlib.sha256(label.encode("utf-8")).digest()
    return [seed & 0xFFFFFFFF, seed >> 32 & 0xFFFFFFFF, int.from_bytes(digest[:8], "little")]


def scores(records: Sequence[ItemRecord]) -> list[float]:
    """The scores of items that scored (an errored item's is None)."""
    return [record["score"] for record in records if record["score"] is not None]


def mean_score(records: Sequence[ItemRecord]) -> float | None:
    """The mean over the items that scored, or None when none did."""
    values = scores(records)
    return round(sum(values) / len(values), 6) if values else None


def strict_mean(records: Sequence[ItemRecord]) -> float | None:
    """The mean over every item, one that errored counting 0 (NeMo Gym's `accuracy_strict`).

    The mean leaves an errored item out, as no measure of memory; a system that fails on the hard
    questions would look better for failing.  The strict mean is the score a user of it gets: every
    question asked, an error as a wrong answer.  Skipped items (no data, a budget) are no record,
    so neither mean counts them.
    """
    if not records:
        return None
    return round(sum(record["score"] or 0.0 for record in records) / len(records), 6)


def by_scenario(records: Sequence[ItemRecord]) -> list[list[float]]:
    """Scores grouped by (suite, scenario): the strata a bootstrap resamples within."""
    groups: dict[tuple[str, str], list[ItemRecord]] = defaultdict(list)
    for record in records:
        groups[(record["suite"], record["scenario"])].append(record)
    return [scores(group) for group in groups.values()]


def grouped(
    records: Sequence[ItemRecord], key: Callable[[ItemRecord], str | None]
) -> dict[str, list[ItemRecord]]:
    """The records by `key`, in its order; a record whose key is None is in no group."""
    groups: dict[str, list[ItemRecord]] = defaultdict(list)
    for record in records:
        value = key(record)
        if value is not None:
            groups[value].append(record)
    return dict(sorted(groups.items()))


def stats_of(records: Sequence[ItemRecord], seed: int, label: str) -> StatsRecord:
    """Mean, interval and n of the items that scored; `errors` counts those that did not, and the
    strict mean counts them as wrong."""
    scored = [record for record in records if record["score"] is not None]
    return {
        "mean": mean_score(scored),
        "mean_strict": strict_mean(records),
        "ci95": bootstrap_ci(by_scenario(scored), seed=seed, label=label),
        "n": len(scored),
        "errors": len(records) - len(scored),
    }
