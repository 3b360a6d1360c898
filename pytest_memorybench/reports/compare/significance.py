"""Is run B better than run A? Paired tests over the items two runs share, as Huet et al. compare models.

The episodic-memory paper ranks models by their average rank and joins, in a critical-difference
diagram, the pairs that a Wilcoxon signed-rank test over the same questions cannot tell apart
once Holm's method has corrected for the number of pairs (Demšar 2006; Benavoli et al. 2016).
The same tools answer a release gate's question: a paired test on the items both runs scored,
Holm-corrected across every pair compared, and the mean difference with its 95 % bootstrap
interval (resampled within each scenario, as a run's own intervals are).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_memorybench.core.heavy import heavy_import

ALPHA = 0.05
EQUAL = 1e-12  # a paired difference smaller than this is none
EXACT_PAIRS = 13  # up to this many pairs with ties or zeros, SciPy's p is an exact permutation test


@dataclass(frozen=True)
class PairedTest:
    """Run B against run A on the items both scored: B − A, its interval, and the test's verdict."""

    a: str
    b: str
    n: int  # items both runs scored
    difference: float | None  # mean of B − A
    ci95: list[float] | None
    p: float | None  # two-sided Wilcoxon signed-rank p; None with no item in common
    p_holm: float | None = None

    @property
    def significant(self) -> bool:
        return self.p_holm is not None and self.p_holm < ALPHA

    def verdict(self, a: str | None = None, b: str | None = None) -> str:
        """The answer in words: which run is better, or that the items cannot tell (runs named `a`, `b`
        when given, e.g. by the letters of a table)."""
        if self.p is None or self.difference is None:
            return "no item in common"
        if not self.significant:
            return f"no significant difference ({p_text(self.p_holm)}, Holm)"
        better = (b or self.b) if self.difference > 0 else (a or self.a)
        return f"{better} is better ({p_text(self.p_holm)}, Holm)"


def wilcoxon_p(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided p of the Wilcoxon signed-rank test on paired scores (pairs with no difference left
    out, as Wilcoxon's own rule does); 1.0 when no pair differs, None with no pair at all."""
    if not a:
        return None
    differences = [y - x for x, y in zip(a, b, strict=True)]
    if all(abs(difference) < EQUAL for difference in differences):
        return 1.0
    signed = [x - y for x, y in zip(a, b, strict=True)]  # as SciPy takes them
    magnitudes = [abs(difference) for difference in signed if difference]
    if len(signed) <= EXACT_PAIRS and (
        len(magnitudes) < len(signed) or len(set(magnitudes)) < len(magnitudes)
    ):
        return _exact_signed_rank_p(signed)
    stats = heavy_import("scipy.stats")
    result = stats.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided")
    p = float(result.pvalue)
    return 1.0 if math.isnan(p) else p


def _exact_signed_rank_p(differences: Sequence[float]) -> float:
    """The exact two-sided p of the signed-rank statistic with tied or zero differences, as recent
    SciPy's `wilcoxon` gives it for up to `EXACT_PAIRS` pairs (a permutation test over every flip of
    the differences' signs, zeros left out, ties given their mean rank), counted instead of
    enumerated: SciPy computes the statistic for each of the 2**n flips in turn, a second or two a
    pair, which made comparing runs of a few items take a minute.  Older SciPy (our lowest) took
    the normal approximation here; counted, the p is the same on every SciPy."""
    nonzero = sorted((abs(difference), difference > 0) for difference in differences if difference)
    doubled: list[int] = []  # each difference's rank, doubled to be whole: a tie's mean rank is i + j
    start = 0
    while start < len(nonzero):
        end = start
        while end + 1 < len(nonzero) and nonzero[end + 1][0] == nonzero[start][0]:
            end += 1
        doubled += [start + end + 2] * (end - start + 1)
        start = end + 1
    observed = sum(rank for rank, (_, positive) in zip(doubled, nonzero, strict=True) if positive)
    ways = {0: 1}  # doubled rank sum of the positive differences -> sign flips giving it
    for rank in doubled:
        shifted = dict(ways)
        for total, count in ways.items():
            shifted[total + rank] = shifted.get(total + rank, 0) + count
        ways = shifted
    flips = 1 << len(doubled)
    below = sum(count for total, count in ways.items() if total <= observed) / flips
    above = sum(count for total, count in ways.items() if total >= observed) / flips
    return min(1.0, 2 * min(below, above))


def mcnemar_p(first: Sequence[bool], second: Sequence[bool]) -> float | None:
    """Two-sided exact McNemar p on paired yes / no outcomes: a binomial test of the pairs where they
    differ (1.0 when none differs, None with no pair at all)."""
    if not first:
        return None
    only_first = sum(a and not b for a, b in zip(first, second, strict=True))
    only_second = sum(b and not a for a, b in zip(first, second, strict=True))
    if not only_first + only_second:
        return 1.0
    stats = heavy_import("scipy.stats")
    return float(stats.binomtest(only_first, only_first + only_second, 0.5).pvalue)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of the p-values of a family of tests (None stays None)."""
    indexed = sorted((p, index) for index, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(indexed):
        running = max(running, min(1.0, (len(indexed) - rank) * p))
        adjusted[index] = running
    return adjusted


def average_ranks(scores: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """Each run's rank among the runs on every shared item (1: best, ties share their mean rank), averaged."""
    names = list(scores)
    if not names:
        return {}
    stats = heavy_import("scipy.stats")
    count = len(scores[names[0]])
    totals = dict.fromkeys(names, 0.0)
    for index in range(count):
        ranks = stats.rankdata([-scores[name][index] for name in names])
        for name, rank in zip(names, ranks, strict=True):
            totals[name] += float(rank)
    return {name: round(total / count, 6) if count else math.nan for name, total in totals.items()}


def cliques(order: Sequence[str], tests: Sequence[PairedTest]) -> list[list[str]]:
    """The groups a critical-difference diagram joins: maximal runs of neighbours (in rank order)
    no pair of which the Holm-corrected test tells apart; single runs are not groups."""
    different = {frozenset((test.a, test.b)) for test in tests if test.significant}
    groups: list[list[str]] = []
    for start in range(len(order)):
        end = start
        while end + 1 < len(order) and all(
            frozenset((order[i], order[end + 1])) not in different for i in range(start, end + 1)
        ):
            end += 1
        group = list(order[start : end + 1])
        if len(group) > 1 and not any(set(group) <= set(other) for other in groups):
            groups.append(group)
    return groups


def p_text(value: float | None) -> str:
    """A p-value as the tables print it."""
    if value is None:
        return "p -"
    return "p < 0.001" if value < 0.001 else f"p = {value:.3f}"
