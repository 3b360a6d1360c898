"""results.json's `totals`: the run's score and errors over every item, and what it spent.

The mean, its interval and the strict mean are `statistics.py`'s; what the agent spent is each
item's usage plus each conversation's overhead (delivering a context, filler); the memory's
spending by phase, the store's figures and the reply latency are pooled from the conversations'
records; the judge's from every process's (`judge_stats.py`).  The roll-ups some runs have
(judging, losses, stale facts, what the memory wrote, the latency budget) come from their own
modules and are spread in where they stand.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, cast

from pytest_memorybench.agents.stores.figures import pooled as pooled_store_figures
from pytest_memorybench.conversation.evidence import mean_recall
from pytest_memorybench.core.timings import pooled_percentile
from pytest_memorybench.results.judge_robustness import judging_part
from pytest_memorybench.results.judge_stats import ProcessJudging
from pytest_memorybench.results.latency_budget import latency_budget_part
from pytest_memorybench.results.losses import losses_part, written_part
from pytest_memorybench.results.schema import (
    ConversationRecord,
    ItemRecord,
    LatencyRecord,
    RecallRecord,
    StoreRecord,
    TotalsRecord,
)
from pytest_memorybench.results.stale import stale_part
from pytest_memorybench.results.statistics import bootstrap_ci, by_scenario, mean_score, scores, strict_mean


def totals(
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
        **judging_part(records),
        **losses_part(records),
        **stale_part(records),
        **written_part(conversations),
        **latency_budget_part(records, deadline),
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
