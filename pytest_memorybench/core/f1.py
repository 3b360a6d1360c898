"""F1, the one core every rule that scores by overlap shares: LoCoMo's and MemoryAgentBench's token
F1, ROUGE-L, BEAM's ordering and the episodic items.

Each rule keeps what is its own (its normalisation, its tokens, what it does where precision or
recall is undefined) and calls these for the arithmetic, which is the same in every paper.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable


def harmonic_f1(precision: float, recall: float) -> float:
    """2PR / (P + R), and 0 when both are 0."""
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def bag_f1(predicted: Iterable[Hashable], wanted: Iterable[Hashable]) -> float:
    """The F1 of two bags of tokens (SQuAD's rule): a token counts in common as often as both
    sides hold it; 0 when they share none."""
    predicted_bag, wanted_bag = Counter(predicted), Counter(wanted)
    common = sum((predicted_bag & wanted_bag).values())
    if common == 0:
        return 0.0
    return harmonic_f1(common / sum(predicted_bag.values()), common / sum(wanted_bag.values()))
