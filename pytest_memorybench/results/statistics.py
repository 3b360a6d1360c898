"""95 % bootstrap confidence intervals for mean scores, deterministic for a run seed.

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
from collections.abc import Sequence

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
