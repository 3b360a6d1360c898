"""The rubric band: the same answers judged under a stricter, the official and a more generous rubric.

How generous the grading prompt is can move a score more than the memory does (the same answers
score 91 % under one prompt and 35 % under another), so `--mb-judge-band` reports a run's score
as `[strict, official, generous]` beside its headline, which stays the official rubric's.

A rubric changes a task in one of two ways:
  * a prompt of its own: the `answer` task is asked again under another rule.  LoCoMo's J
    (`generous`) is bracketed by `topic` (right as long as it touches the subject) and `complete`
    (every element of the expected answer, no hedging); LongMemEval's rules by `complete` and the
    J rule, except `days`, whose strict reading is `contains` (no count one off), and `abstention`,
    which has one reading.
  * a reading of the same verdict, with no further call: a BEAM nugget's or an episodic item's
    half credit (0.5) counts as 0 strictly and 1 generously; GoodAI's reference check counts a
    reply that refers to the expected answer without its number generously.
Every other task (sentences, routes, orders, coded clues, equivalent facts) has one reading: its
band is a point.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.base import JudgeTask

STRICT, OFFICIAL, GENEROUS = "strict", "official", "generous"
BAND = (STRICT, OFFICIAL, GENEROUS)

# The `answer` task's rule → its (strict, generous) rules.
ANSWER_BAND: dict[str, tuple[str, str]] = {
    "generous": ("complete", "topic"),
    "contains": ("complete", "generous"),
    "days": ("contains", "generous"),
    "update": ("complete", "generous"),
    "preference": ("complete", "topic"),
    "abstention": ("abstention", "abstention"),
}


def asked_under(rubric: str, task: JudgeTask) -> JudgeTask:
    """The task as the rubric asks it (the same task when the rubric only reads the verdict)."""
    if rubric == OFFICIAL or task.kind != "answer":
        return task
    rule = str(task.payload["rule"])
    strict, generous = ANSWER_BAND.get(rule, (rule, rule))
    wanted = strict if rubric == STRICT else generous
    return task if wanted == rule else JudgeTask(task.kind, {**task.payload, "rule": wanted}, task.scorer)


def read_under(rubric: str, kind: str, data: Mapping[str, Any]) -> JsonObject:
    """A verdict as the rubric reads it."""
    if rubric == OFFICIAL:
        return dict(data)
    half = 0 if rubric == STRICT else 1
    if kind == "nugget" and data["score"] == 0.5:
        return {**data, "score": half}
    if kind == "items":
        return {**data, "matching": [half if value == 0.5 else value for value in data["matching"]]}
    if kind == "reference" and rubric == GENEROUS and data["refers"]:
        return {**data, "expected_is_number": False, "numbers_match": None}
    return dict(data)
