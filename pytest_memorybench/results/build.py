"""results.json, schema `memorybench.results/1` (`schema.py`): run, totals, suites, scenarios, items.

Item records are built where the item ran (an xdist worker, perhaps) and travel to the controller
on the test report; the controller alone assembles and writes the file, atomically, at the end.
Means and their 95 % bootstrap intervals are `statistics.py`'s; a scenario that defines
`summarize(records) -> dict` gets its own metrics (recall@k, a capacity curve) computed here, on the
controller, where every worker's records are together.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, cast

from typing_extensions import TypedDict

from pytest_memorybench import __version__
from pytest_memorybench.agents.stores.figures import pooled as pooled_store_figures
from pytest_memorybench.conversation.evidence import mean_recall
from pytest_memorybench.conversation.stats import ConversationStats
from pytest_memorybench.conversation.written import pooled_written
from pytest_memorybench.core.errors import UsageError, describe_exception
from pytest_memorybench.core.records import TestOutcome
from pytest_memorybench.core.timings import pooled_percentile
from pytest_memorybench.judges.identity import judge_identity
from pytest_memorybench.results.ceilings import scenario_ceilings
from pytest_memorybench.results.judge_robustness import judging_figures
from pytest_memorybench.results.latency_budget import latency_budget
from pytest_memorybench.results.losses import loss_split
from pytest_memorybench.results.schema import (
    SCHEMA,
    CategoryRecord,
    CeilingRecord,
    ConcurrencyRecord,
    ConversationRecord,
    ItemJudgingRecord,
    ItemRecord,
    JudgePanelRecord,
    JudgeStatsRecord,
    JudgingRecord,
    LatencyBudgetRecord,
    LatencyRecord,
    LossesRecord,
    ProvenanceRecord,
    ProviderLevelRecord,
    RecallRecord,
    ResultsRecord,
    RunRecord,
    ScenarioFigures,
    ScenarioRecord,
    StaleRecord,
    StoreRecord,
    SuiteRecord,
    TotalsRecord,
    UsageRecord,
    WrittenRecord,
)
from pytest_memorybench.results.stale import stale_rate
from pytest_memorybench.results.statistics import (
    bootstrap_ci,
    by_scenario,
    grouped,
    mean_score,
    scores,
    stats_of,
    strict_mean,
)
from pytest_memorybench.scenarios import get_scenario

# The parts of a record that only some runs or items have, typed so that mypy checks every key a
# record is built with; each is spread where its keys stand in results.json.


class _Category(TypedDict, total=False):
    category: str


class _ItemParts(TypedDict, total=False):
    details: ScenarioFigures
    judging: ItemJudgingRecord


class _Judging(TypedDict, total=False):
    judging: JudgingRecord


class _Losses(TypedDict, total=False):
    losses: LossesRecord


class _Stale(TypedDict, total=False):
    stale_facts: StaleRecord


class _Written(TypedDict, total=False):
    written: WrittenRecord


class _LatencyBudget(TypedDict, total=False):
    latency_budget: LatencyBudgetRecord


class _Ceiling(TypedDict, total=False):
    ceiling: CeilingRecord


class _ScenarioParts(TypedDict, total=False):
    categories: dict[str, CategoryRecord]
    losses: LossesRecord
    evidence_recall: RecallRecord
    metrics: ScenarioFigures
    stale_facts: StaleRecord


class _RunParts(TypedDict, total=False):
    rescored_from: str
    rescore_skipped: list[str]
    no_context: bool
    answer_deadline: float


class _Panel(TypedDict, total=False):
    judge_panel: JudgePanelRecord


class ProcessJudging(JudgeStatsRecord, total=False):
    """What one process judged (`RunInstruments.judge_stats`, a shard's run): its judge's stats,
    and the panel's shape when a panel judged."""

    panel: JudgePanelRecord


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
    judging = _merge_judge_stats(list(judge_stats))
    return {
        "schema": SCHEMA,
        "run": _run_facts(run, judging, list(concurrency), conversation_list),
        "totals": _totals(records, conversation_list, judging, run.seed, run.answer_deadline),
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


def _totals(
    records: list[ItemRecord],
    conversations: list[ConversationRecord],
    judging: ProcessJudging,
    seed: int,
    deadline: float | None = None,
) -> TotalsRecord:
    """The run's score, errors, latency and what the agent, its memory and the judge spent."""
    scored = [record for record in records if record["score"] is not None]
    usage: dict[str, float] = defaultdict(float)
    spent: list[Mapping[str, Any]] = [record["usage"] for record in records]
    for source in spent + [conversation["overhead_usage"] for conversation in conversations]:
        for name, value in source.items():
            usage[name] += value
    unscored = Counter(record.get("error_kind") or "agent" for record in records if record["score"] is None)
    return {
        "score": round(sum(scores(scored)), 6),
        "max": len(scored),
        "mean": mean_score(scored),
        "mean_strict": strict_mean(records),
        "ci95": bootstrap_ci(by_scenario(scored), seed=seed, label="total"),
        "passed": sum(record["passed"] for record in scored),
        "errors": len(records) - len(scored),
        "latency": reply_latency(conversations),
        "errors_by_kind": dict(unscored),
        "agent_tokens_in": int(usage["input_tokens"]),
        "agent_tokens_out": int(usage["output_tokens"]),
        "agent_calls": int(usage["calls"]),
        "agent_seconds": round(usage["seconds"], 3),
        "cost_usd": round(usage["cost_usd"], 6),
        "judge_calls": judging["calls"],
        "judge_cache_hits": judging["cache_hits"],
        "judge_unparseable": judging["unparseable"],
        "judge_tokens_in": judging["input_tokens"],
        "judge_tokens_out": judging["output_tokens"],
        "judge_cost_usd": round(judging["cost_usd"], 6),
        "memory": memory_phases(conversations),
        "store": cast(StoreRecord | None, pooled_store_figures(conversations)),
        "evidence_recall": cast(RecallRecord | None, mean_recall(records)),
        **_judging(records),
        **_losses(records),
        **_stale(records),
        **_written(conversations),
        **_latency_budget(records, deadline),
    }


def _written(conversations: list[ConversationRecord]) -> _Written:
    """`written`, when some conversation's memory listed what it held (`conversation/written.py`)."""
    pooled = pooled_written(conversations)
    return {"written": cast(WrittenRecord, pooled)} if pooled is not None else {}


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


def memory_phases(conversations: Sequence[ConversationRecord]) -> dict[str, dict[str, float]] | None:
    """A memory system's spending by phase over the run (MemBench's write and read cost), or None
    for an agent that does not report it."""
    phases: dict[str, dict[str, float]] = {}
    for conversation in conversations:
        for phase, usage in (conversation.get("memory_usage") or {}).items():
            total = phases.setdefault(
                phase, {"calls": 0, "input_tokens": 0, "output_tokens": 0, "seconds": 0.0, "cost_usd": 0.0}
            )
            spent: Mapping[str, Any] = usage
            for name in total:
                total[name] += spent.get(name, 0)
    for total in phases.values():
        total["seconds"], total["cost_usd"] = round(total["seconds"], 3), round(total["cost_usd"], 6)
    return phases or None


def reply_latency(conversations: Sequence[ConversationRecord]) -> LatencyRecord | None:
    """The median and 95th percentile of every agent reply of the run, pooled from each conversation's
    timings."""
    timings = [timing for conversation in conversations if (timing := conversation["reply_timing"])]
    if not timings:
        return None
    return {
        "replies": sum(timing["calls"] for timing in timings),
        "p50": round(pooled_percentile(timings, 0.5), 6),
        "p95": round(pooled_percentile(timings, 0.95), 6),
    }


def _merge_judge_stats(per_process: list[Mapping[str, Any]]) -> ProcessJudging:
    """Add up the judging of the controller and every worker (each process's `judge_stats()`)."""
    merged: ProcessJudging = {
        "name": per_process[0]["name"],
        "calls": 0,
        "cache_hits": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0,
        "unparseable": 0,
        "prompt_hashes": {},
        "model": None,
        "output_form": None,
        "version": None,
    }
    for stats in per_process:
        merged["prompt_hashes"].update(stats["prompt_hashes"])
        # whichever process used the judge knows its model, output form and version
        merged["model"] = merged["model"] or stats.get("model")
        merged["output_form"] = merged["output_form"] or stats.get("output_form")
        merged["version"] = merged["version"] or stats.get("version")
        _add_counts(merged, stats)
        if stats.get("panel"):
            merged["panel"] = _merge_panels(merged.get("panel"), stats["panel"])
    return merged


def _add_counts(total: JudgeStatsRecord, stats: Mapping[str, Any]) -> None:
    """`stats`' calls, cache hits, unparseable replies, tokens and cost added to `total`'s."""
    total["calls"] += stats["calls"]
    total["cache_hits"] += stats["cache_hits"]
    total["unparseable"] += stats["unparseable"]
    total["input_tokens"] += stats["input_tokens"]
    total["output_tokens"] += stats["output_tokens"]
    total["cost_usd"] += stats["cost_usd"]


def _merge_panels(merged: JudgePanelRecord | None, panel: Mapping[str, Any]) -> JudgePanelRecord:
    """A judge panel's shape with each juror's judging added up over the processes."""
    if merged is None:
        return cast(
            JudgePanelRecord, {**panel, "juror_stats": [dict(juror) for juror in panel["juror_stats"]]}
        )
    for total, juror in zip(merged["juror_stats"], panel["juror_stats"], strict=True):
        _add_counts(total, juror)
        total["model"] = total.get("model") or juror.get("model")
    return merged


def suite_stats(
    records: list[ItemRecord], seed: int, deadline: float | None = None
) -> dict[str, SuiteRecord]:
    """Each suite's mean, interval and counts, over its scored items."""
    return {
        name: {
            **stats_of(group, seed, f"suite:{name}"),
            **_judging(group),
            **_losses(group),
            **_latency_budget(group, deadline),
        }
        for name, group in grouped(records, lambda record: record["suite"]).items()
    }


def _latency_budget(records: list[ItemRecord], deadline: float | None) -> _LatencyBudget:
    """`latency_budget`, when some of these items' answer latencies are known."""
    figures = latency_budget(records, deadline)
    return {"latency_budget": figures} if figures is not None else {}


def _losses(records: list[ItemRecord]) -> _Losses:
    """`losses`, when the run measured where its answers were lost (`losses.py`)."""
    split = loss_split(records)
    return {"losses": split} if split is not None else {}


def _stale(records: list[ItemRecord]) -> _Stale:
    """`stale_facts`, where some item's scenario knows what its answer superseded (`stale.py`)."""
    rate = stale_rate(records)
    return {"stale_facts": rate} if rate is not None else {}


def _ceiling(ceiling: CeilingRecord | None) -> _Ceiling:
    """`ceiling`, where the scenario knows the most its category can honestly score."""
    return {"ceiling": ceiling} if ceiling is not None else {}


def _judging(records: list[ItemRecord]) -> _Judging:
    """`judging`, when a judge panel judged some of these items."""
    figures = judging_figures(records)
    return {"judging": figures} if figures is not None else {}


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
                    **_losses(members),
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
