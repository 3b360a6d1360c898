"""Several verdicts on one task made into one: what a verdict decides, how much credit it gives,
and the majority.

Two verdicts agree when they decide the same thing, whatever their free text: a `reason`, the
sentence a judge quoted, the words a judge wrote for the items it identified.  The majority is the
most common decision; a tie goes to the decision that gives the answer the least credit (the
rubric's conservative side), and where a task's decisions carry no credit of their own (a route,
an order at the Restaurant) to the decision of the earliest voice, the run's first judge.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from pytest_memorybench.judges.base import JudgeVerdict
from pytest_memorybench.judges.verdict_meaning import reference_correct


def decision(kind: str, data: Mapping[str, Any]) -> Hashable:
    """What a verdict decides, the part a scorer reads, as a hashable value."""
    if kind == "reference":
        return reference_correct(data)
    if kind == "sentence":
        return bool(data["present"])
    if kind == "items":
        return tuple(data["matching"])
    if kind == "order":
        return tuple(data["predicted_indexes"])
    if kind == "nugget":
        return float(data["score"])
    if kind == "restaurant":
        return (tuple(sorted(data["dishes"])), tuple(sorted(data["drinks"])))
    if kind == "directions":
        return json.dumps(data["hops"], sort_keys=True)
    key = {"interpretation": "valid", "equivalence": "equivalent", "answer": "correct"}[kind]
    return bool(data[key])


def credit(kind: str, data: Mapping[str, Any]) -> float | None:
    """How much a verdict gives the answer, where that can be told without the expected answer."""
    if kind == "items":
        return float(sum(data["matching"]))
    if kind == "order":
        return float(sum(index >= 0 for index in data["predicted_indexes"]))
    if kind in ("directions", "restaurant"):
        return None
    return float(decision(kind, data))  # type: ignore[arg-type]


def majority(kind: str, verdicts: Sequence[JudgeVerdict]) -> JudgeVerdict:
    """The verdict of the most common decision among the usable ones (ties: least credit, then the
    earliest voice); the first verdict as it is when none is usable."""
    usable = [verdict for verdict in verdicts if verdict.ok]
    if not usable:
        return verdicts[0]
    groups: dict[Hashable, list[JudgeVerdict]] = {}
    for verdict in usable:
        assert verdict.data is not None
        groups.setdefault(decision(kind, verdict.data), []).append(verdict)
    largest = max(len(group) for group in groups.values())
    tied = [group for group in groups.values() if len(group) == largest]  # in order of first voice
    if len(tied) > 1:
        credits = [credit(kind, group[0].data or {}) for group in tied]
        if all(value is not None for value in credits):
            tied = [tied[credits.index(min(credits))]]  # type: ignore[type-var]
    return tied[0][0]


def unanimous(kind: str, verdicts: Sequence[JudgeVerdict]) -> bool:
    """Whether every usable verdict decides the same."""
    decisions = {decision(kind, verdict.data) for verdict in verdicts if verdict.data is not None}
    return len(decisions) <= 1


def dissenting(kind: str, verdicts: Sequence[JudgeVerdict], chosen: JudgeVerdict) -> int:
    """How many usable verdicts decide otherwise than the chosen one."""
    if chosen.data is None:
        return 0
    agreed = decision(kind, chosen.data)
    return sum(decision(kind, verdict.data) != agreed for verdict in verdicts if verdict.data is not None)
