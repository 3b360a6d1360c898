"""MemBench's retrieval metric, and the record its capacity curve is made of.

Recall@k follows `benchmark/Membenenv.py` (`get_recall`): the share of the question's evidence
steps (`target_step_id`) among the step ids the memory retrieved.  Which step id a message gets is
the driver's business: MemBench's data ids are 0-based while a driver that stores the env's
opening instruction at step 0 stores message i under step i + 1, and the paper's driver is not
published, so pass ids already in the data's numbering.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any


def _hashable(step_id: Any) -> Hashable:
    """FirstAgent ids are `[turn, session]` lists; compare them as tuples, as the fork does."""
    if isinstance(step_id, (list, tuple)):
        return tuple(_hashable(part) for part in step_id)
    hashable: Hashable = step_id
    return hashable


def recall_at_k(retrieved_ids: Iterable[Any], target_ids: Iterable[Any], k: int | None = 10) -> float:
    """|set(first k retrieved ids) ∩ set(target ids)| / |set(target ids)|; 0 when nothing is retrieved.

    `retrieved_ids` is in rank order.  MemBench's retrieval memory returns at most 10 ids (fewer
    when its word budget overflows), hence k = 10; full and recent memories return every stored
    id, which `k=None` reproduces.  Duplicates count once.  ValueError when there are no target
    ids (one MemBench item has none), where MemBench would divide by zero.
    """
    if k is not None and k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    targets = {_hashable(t) for t in target_ids}
    if not targets:
        raise ValueError("recall is undefined without target ids")
    retrieved = [_hashable(r) for r in retrieved_ids]
    if k is not None:
        retrieved = retrieved[:k]
    if not retrieved:
        return 0.0
    return len(set(retrieved) & targets) / len(targets)


@dataclass(frozen=True)
class CapacityPoint:
    """One step of MemBench's capacity probe: conversation tokens so far, and whether the answer was right."""

    tokens: int
    correct: bool


def capacity_point(tokens: int, correct: bool) -> CapacityPoint:
    """Record one (tokens so far, correct) step of the capacity curve.

    MemBench asks the question again at every step after the last evidence message and plots
    accuracy against tokens; "capacity" is where that accuracy drops sharply, read off the plot
    rather than defined by a formula.  Producing the steps needs the conversation engine, and
    finding the drop needs the whole curve, so only the record lives here.
    """
    if tokens < 0:
        raise ValueError(f"tokens must be non-negative, got {tokens}")
    return CapacityPoint(int(tokens), bool(correct))
