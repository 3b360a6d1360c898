"""What a probe's definition says of its question: when it is asked, and what it rests on.

A question is asked after some of its context's turns (`ask_points`, default: all of them), at a
simulated time its scenario may give (`asked_at`); the turns it rests on, and the unit (a session)
each belongs to, are its scenario's to name (`evidence_ids`, `evidence_groups`), and evidence recall
is measured against them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from pytest_memorybench.contract.scenario import Scenario
from pytest_memorybench.core.records import TestDefinition


def ask_points(definition: TestDefinition, total: int | None) -> list[int]:
    """After how many context turns the question is asked (each point gets one response)."""
    ask_at = definition.params.get("ask_at")
    if ask_at is None:
        return [total if total is not None else -1]  # -1: after the last turn, however many there are
    if isinstance(ask_at, (list, tuple)):
        return [int(point) for point in ask_at if isinstance(point, (int, float, str))]
    return [int(ask_at)] if isinstance(ask_at, (int, float, str)) else [total if total is not None else -1]


def asked_at(definition: TestDefinition) -> datetime | None:
    """When the question is asked on the simulated clock, if its scenario says (LongMemEval's
    `question_date`, `params["asked_at"]` in ISO form); else right after the context's last turn."""
    stamp = definition.params.get("asked_at")
    return datetime.fromisoformat(stamp) if isinstance(stamp, str) and stamp else None


def evidence_ids(scenario: Scenario, definition: TestDefinition, profile: str | None = None) -> list[int]:
    """The context turns (`Message.id`) a probe's question rests on, if its `scenario` names them;
    a profile that corrects the gold may correct these too (`params["evidence_by_profile"]`, e.g.
    the LoCoMo audit's citations under `audited`)."""
    by_profile = definition.params.get("evidence_by_profile")
    corrected = by_profile.get(profile) if isinstance(by_profile, Mapping) and profile is not None else None
    if isinstance(corrected, Sequence):
        return [int(number) for number in corrected if isinstance(number, (int, float, str))]
    named = getattr(scenario, "evidence_ids", None)
    return list(named(definition)) if named is not None else []


def evidence_groups(scenario: Scenario, definition: TestDefinition) -> dict[int, str]:
    """The unit (a session) each evidence turn belongs to, if the scenario names them: evidence
    recall then also counts the units found (`evidence_groups(definition) -> {turn id: unit}`)."""
    named = getattr(scenario, "evidence_groups", None)
    return dict(named(definition)) if named is not None else {}
