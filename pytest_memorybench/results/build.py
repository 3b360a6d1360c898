"""results.json, schema `memorybench.results/1` (`schema.py`): run, totals, suites, scenarios, items.

Item records are built where the item ran (an xdist worker, perhaps) and travel to the controller
on the test report; the controller alone assembles and writes the file, atomically, at the end:
the run's facts here, its `totals` (`totals.py`), each suite's and scenario's figures
(`breakdown.py`, where a scenario's own `summarize` is asked) and the judging every process did
(`judge_stats.py`).  Means and their 95 % bootstrap intervals are `statistics.py`'s.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, cast

from typing_extensions import TypedDict

from pytest_memorybench import __version__
from pytest_memorybench.conversation.stats import ConversationStats
from pytest_memorybench.core.records import TestOutcome
from pytest_memorybench.judges.identity import judge_identity
from pytest_memorybench.results.breakdown import scenario_stats, suite_stats
from pytest_memorybench.results.judge_stats import ProcessJudging, merge_judge_stats
from pytest_memorybench.results.schema import (
    SCHEMA,
    ConcurrencyRecord,
    ConversationRecord,
    ItemJudgingRecord,
    ItemRecord,
    JudgePanelRecord,
    ProvenanceRecord,
    ProviderLevelRecord,
    ResultsRecord,
    RunRecord,
    ScenarioFigures,
    UsageRecord,
)
from pytest_memorybench.results.totals import totals

# The parts of a record that only some runs or items have, typed so that mypy checks every key a
# record is built with; each is spread where its keys stand in results.json.


class _Category(TypedDict, total=False):
    category: str


class _ItemParts(TypedDict, total=False):
    details: ScenarioFigures
    judging: ItemJudgingRecord


class _RunParts(TypedDict, total=False):
    rescored_from: str
    rescore_skipped: list[str]
    no_context: bool
    answer_deadline: float


class _Panel(TypedDict, total=False):
    judge_panel: JudgePanelRecord


def item_record(
    nodeid: str, outcome: TestOutcome, *, threshold: float, conversation: str, passed: bool
) -> ItemRecord:
    """One item as results.json lists it; `category` and `details` only when the scenario has them.

    An item whose test errored (`error`: the agent, its provider or the judge failed, or the run
    was cut) has no score: it is no measure of memory, and every mean, interval and pass count
    leaves it out and counts it under `errors`; only the strict mean beside each mean counts it,
    as wrong (`strict_mean`).
    """
    definition = outcome.definition
    category: _Category = {"category": definition.category} if definition.category is not None else {}
    parts: _ItemParts = {}
    if outcome.details:
        parts["details"] = outcome.details
    if outcome.score.judging and outcome.error is None:
        parts["judging"] = cast(ItemJudgingRecord, outcome.score.judging)
    return {
        "nodeid": nodeid,
        "suite": definition.suite,
        "scenario": definition.scenario,
        "test_id": definition.test_id,
        "definition": definition.content_hash(),
        **category,
        "score": None if outcome.error is not None else outcome.score.value,
        "threshold": threshold,
        "passed": passed,
        "reasons": list(outcome.score.reasons),
        "span_tokens": outcome.span_tokens,
        "span_target": outcome.span_target,
        "span_overrun": outcome.overrun,
        "conversation": conversation,
        "skills": list(definition.skills),
        "questions": outcome.questions,
        "expected": list(definition.ideal_answers),
        "responses": outcome.responses,
        "error": outcome.error,
        "error_kind": outcome.error_kind if outcome.error is not None else None,
        "usage": cast(UsageRecord, dataclasses.asdict(outcome.usage)),
        **parts,
        "answer_seconds": outcome.answer_seconds,
    }


def conversation_record(stats: ConversationStats) -> ConversationRecord:
    """A conversation's statistics as results.json lists them: the dataclass's fields, as the
    schema names them (every run's tests check the two agree), and its span ratio."""
    return cast(ConversationRecord, {**dataclasses.asdict(stats), "span_ratio": stats.span_ratio})


@dataclass(frozen=True)
class RunFacts:
    """What ran, as results.json's `run` names it (the pytest face reads it off the run's context)."""

    id: str
    agent: str | None
    embedder: str | None  # what a memory system ranked with (`--mb-embedder`), for a run of one
    span: dict[str, str]  # the interleaved suites' spans
    seed: int
    profile: str
    suites: list[str]
    started: datetime
    token_counter: str
    conversations_per_suite: int
    resumed: bool
    replayed_from: str | None
    fixed_concurrency: int | None  # --mb-concurrency N; None: auto
    # what it ran on, as run.json records it (runner/provenance.py); the models that answered and the
    # services' versions are added here, from every process's record
    provenance: Mapping[str, Any]
    rescored_from: str | None = None
    rescore_skipped: tuple[str, ...] = ()
    no_context: bool = False  # the questions were asked with no context delivered (--mb-no-context)
    answer_deadline: float | None = None  # later answers were scored 0 (--mb-answer-deadline)


def build_results(
    run: RunFacts,
    items: Iterable[ItemRecord],
    conversations: Iterable[ConversationRecord],
    judge_stats: Iterable[Mapping[str, Any]],
    concurrency: Iterable[Mapping[str, Any]] = (),
) -> ResultsRecord:
    """results.json (schema memorybench.results/1): the run, its totals, conversations, stats, items.

    `judge_stats` and `concurrency` are each process's records (`RunInstruments.judge_stats`,
    `Providers.record`), made below this layer; what they add to results.json is typed here."""
    records = sorted(items, key=lambda record: record["nodeid"])
    conversation_list = sorted(conversations, key=lambda record: record["group"])
    judging = merge_judge_stats(list(judge_stats))
    return {
        "schema": SCHEMA,
        "run": _run_facts(run, judging, list(concurrency), conversation_list),
        "totals": totals(records, conversation_list, judging, run.seed, run.answer_deadline),
        "conversations": conversation_list,
        "suites": suite_stats(records, run.seed, run.answer_deadline),
        "scenarios": scenario_stats(records, run.seed, conversation_list, run.profile),
        "items": records,
    }


def _run_facts(
    run: RunFacts,
    judging: ProcessJudging,
    concurrency: list[Mapping[str, Any]],
    conversations: list[ConversationRecord],
) -> RunRecord:
    """What ran: agent, judge, spans, seed, profile, suites, when, and where it came from."""
    parts: _RunParts = {}
    if run.rescored_from is not None:
        parts["rescored_from"] = run.rescored_from
        parts["rescore_skipped"] = list(run.rescore_skipped)
    if run.no_context:
        parts["no_context"] = True
    if run.answer_deadline is not None:
        parts["answer_deadline"] = run.answer_deadline
    panel: _Panel = {"judge_panel": judging["panel"]} if "panel" in judging else {}
    return {
        "id": run.id,
        "agent": run.agent,
        "embedder": run.embedder,
        "judge": judging["name"],
        "span": run.span,
        "seed": run.seed,
        "profile": run.profile,
        "suites": run.suites,
        "started": run.started.isoformat(),
        "finished": datetime.now(timezone.utc).isoformat(),
        "package_version": __version__,
        "token_counter": run.token_counter,
        "conversations_per_suite": run.conversations_per_suite,
        "resumed": run.resumed,
        "partial": None,  # what stopped the run before every selected test ended (finishing.finish)
        "replayed_from": run.replayed_from,
        **parts,
        "judge_prompt_hashes": judging["prompt_hashes"],
        "judge_identity": judge_identity(judging),
        **panel,
        "concurrency": _merge_concurrency(concurrency, run.fixed_concurrency),
        "provenance": _provenance(run.provenance, concurrency, conversations),
    }


def _provenance(
    planned: Mapping[str, Any], processes: list[Mapping[str, Any]], conversations: list[ConversationRecord]
) -> ProvenanceRecord:
    """run.json's provenance with what the run learnt: the models that answered each model asked for
    (every process's providers, and the shards' of a merge) and the versions services reported."""
    models: dict[str, set[str]] = defaultdict(set)
    for source in [planned.get("models") or {}, *(process.get("models") or {} for process in processes)]:
        for asked, answered in source.items():
            models[asked].update(answered)
    servers = dict(planned.get("servers") or {})
    for conversation in conversations:
        store = conversation.get("store")
        if store is not None and store.get("server"):
            servers.setdefault(str(store["store"]), str(store["server"]))
    return cast(
        ProvenanceRecord,
        {
            **{key: value for key, value in planned.items() if key not in ("models", "servers")},
            "servers": dict(sorted(servers.items())),
            "models": {asked: sorted(answered) for asked, answered in sorted(models.items())},
        },
    )


def _merge_concurrency(processes: list[Mapping[str, Any]], fixed: int | None) -> ConcurrencyRecord:
    """Each process's providers under auto (a worker measures its own), or the fixed number."""
    if fixed is not None:
        return {"mode": "fixed", "conversations": fixed}
    return {
        "mode": "auto",
        "providers": [
            cast(ProviderLevelRecord, provider)
            for process in processes
            for provider in process.get("providers", [])
        ],
    }
