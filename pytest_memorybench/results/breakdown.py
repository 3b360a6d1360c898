"""results.json's `suites` and `scenarios`: the run's figures for each suite, scenario and category.

Each group carries its mean, interval and counts (`statistics.py`) and the roll-ups its items have
(judging, losses, the latency budget for a suite; losses, evidence recall, stale facts, a
category's ceiling for a scenario).  A scenario that defines `summarize(records) -> dict` gets its
own metrics (recall@k, a capacity curve) computed here, on the controller, where every worker's
records are together.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Sequence
from typing import cast

from typing_extensions import TypedDict

from pytest_memorybench.conversation.evidence import mean_recall
from pytest_memorybench.core.errors import UsageError, describe_exception
from pytest_memorybench.results.ceilings import scenario_ceilings
from pytest_memorybench.results.judge_robustness import judging_part
from pytest_memorybench.results.latency_budget import latency_budget_part
from pytest_memorybench.results.losses import loss_split, losses_part
from pytest_memorybench.results.schema import (
    CategoryRecord,
    CeilingRecord,
    ConversationRecord,
    ItemRecord,
    LossesRecord,
    RecallRecord,
    ScenarioFigures,
    ScenarioRecord,
    StaleRecord,
    SuiteRecord,
)
from pytest_memorybench.results.stale import stale_rate
from pytest_memorybench.results.statistics import grouped, stats_of
from pytest_memorybench.scenarios import get_scenario

# The parts of a record that only some scenarios or categories have, typed so that mypy checks every
# key a record is built with.


class _Ceiling(TypedDict, total=False):
    ceiling: CeilingRecord


class _ScenarioParts(TypedDict, total=False):
    categories: dict[str, CategoryRecord]
    losses: LossesRecord
    evidence_recall: RecallRecord
    metrics: ScenarioFigures
    stale_facts: StaleRecord


def suite_stats(
    records: list[ItemRecord], seed: int, deadline: float | None = None
) -> dict[str, SuiteRecord]:
    """Each suite's mean, interval and counts, over its scored items."""
    return {
        name: {
            **stats_of(group, seed, f"suite:{name}"),
            **judging_part(group),
            **losses_part(group),
            **latency_budget_part(group, deadline),
        }
        for name, group in grouped(records, lambda record: record["suite"]).items()
    }


def _ceiling(ceiling: CeilingRecord | None) -> _Ceiling:
    """`ceiling`, where the scenario knows the most its category can honestly score."""
    return {"ceiling": ceiling} if ceiling is not None else {}


def scenario_stats(
    records: list[ItemRecord],
    seed: int,
    conversations: Sequence[ConversationRecord] = (),
    profile: str = "paper",
) -> dict[str, ScenarioRecord]:
    """Mean, interval and n per scenario; with `categories` (and their ceilings under `profile`)
    and `metrics` when it has them."""
    scenarios: dict[str, ScenarioRecord] = {}
    for name, group in grouped(records, lambda record: record["scenario"]).items():
        parts: _ScenarioParts = {}
        categories = grouped(group, lambda record: record.get("category"))
        if categories:
            stats = {
                category: stats_of(members, seed, f"scenario:{name}:{category}")
                for category, members in categories.items()
            }
            ceilings = scenario_ceilings(name, group, profile, stats)
            parts["categories"] = {
                category: {
                    **stats[category],
                    **losses_part(members),
                    **_ceiling(ceilings.get(category)),
                }
                for category, members in categories.items()
            }
        split = loss_split(group)
        if split is not None:
            parts["losses"] = split
        recall = mean_recall(group)
        if recall is not None:
            parts["evidence_recall"] = cast(RecallRecord, recall)
        stale = stale_rate(group)
        if stale is not None:
            parts["stale_facts"] = stale
        scored = [record for record in group if record["score"] is not None]
        metrics = scenario_metrics(name, scored, conversations)
        if metrics is not None:
            parts["metrics"] = metrics
        scenarios[name] = {**stats_of(group, seed, f"scenario:{name}"), **parts}
    return scenarios


def scenario_metrics(
    name: str, records: list[ItemRecord], conversations: Sequence[ConversationRecord] = ()
) -> ScenarioFigures | None:
    """What the scenario's own `summarize(records)` reports, or None if it defines none.

    A benchmark family knows its metrics (recall@k, a capacity curve); the harness only asks.  A
    summarize that takes `conversations` is given the records of the conversations these items ran
    in (what is measured once a conversation, as a probe context's delivery times).  A summarize
    that raises or returns something results.json cannot hold becomes an `error` metric: the
    session's results must still be written.
    """
    try:
        scenario = get_scenario(name)
    except UsageError:
        return None  # a scenario of a user's own test file, or one no longer registered
    summarize = getattr(scenario, "summarize", None)
    if not callable(summarize):
        return None
    if "conversations" in inspect.signature(summarize).parameters:
        groups = {record.get("conversation") for record in records}
        summarize = functools.partial(
            summarize, conversations=[c for c in conversations if c.get("group") in groups]
        )
    try:
        metrics = summarize(records)
        if not isinstance(metrics, dict):
            raise TypeError(f"returned {type(metrics).__name__}, expected dict")
        json.dumps(metrics, allow_nan=False)
    except Exception as exc:  # noqa: BLE001 - a family's code must not lose the run's results
        return {"error": f"{name}.summarize: {describe_exception(exc)}"}
    return metrics
