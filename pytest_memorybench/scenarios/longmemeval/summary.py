"""LongMemEval's results table: accuracy per question type (abstention apart, as the paper reports
it), task-averaged accuracy, and turn- and session-level evidence recall."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.scenarios.longmemeval.data import ABSTENTION


def summarize(records: Sequence[Mapping[str, Any]]) -> JsonObject:
    """LongMemEval's summary: task-averaged accuracy, abstention accuracy, turn and session recall."""
    by_type: dict[str, list[float]] = defaultdict(list)
    turns: list[float] = []
    sessions: list[float] = []
    for record in records:
        if record.get("score") is None or record.get("error"):
            continue
        by_type[str(record.get("category"))].append(float(record["score"]))
        evidence = (record.get("details") or {}).get("evidence") or {}
        if evidence.get("recall") is not None:
            turns.append(float(evidence["recall"]))
        if evidence.get("groups"):
            sessions.append(evidence["groups_recalled"] / evidence["groups"])
    metrics: JsonObject = {}
    answerable = [name for name in by_type if name != ABSTENTION]
    if answerable:
        metrics["task-averaged accuracy"] = round(fmean(fmean(by_type[name]) for name in answerable), 4)
    if by_type.get(ABSTENTION):
        metrics["abstention accuracy"] = round(fmean(by_type[ABSTENTION]), 4)
    if turns:
        metrics["turn recall@10"] = round(fmean(turns), 4)
    if sessions:
        metrics["session recall@10"] = round(fmean(sessions), 4)
    return metrics


__all__ = ["summarize"]
