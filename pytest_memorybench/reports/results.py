"""results.json, schema `memorybench.results/1` (DESIGN.md): run, totals, suites, scenarios, items.

Item records are built where the item ran (an xdist worker, perhaps) and travel to the controller
on the test report; the controller alone assembles and writes the file, atomically, at the end.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_memorybench import __version__
from pytest_memorybench.conversation.scheduler import ConversationStats
from pytest_memorybench.records import TestOutcome
from pytest_memorybench.run import BenchmarkRun, PlannedTest, write_atomically

SCHEMA = "memorybench.results/1"


def item_record(nodeid: str, test: PlannedTest, outcome: TestOutcome, passed: bool) -> dict[str, Any]:
    definition = outcome.definition
    return {
        "nodeid": nodeid,
        "suite": definition.suite,
        "scenario": definition.scenario,
        "test_id": definition.test_id,
        "score": outcome.score.value,
        "threshold": test.threshold,
        "passed": passed,
        "reasons": list(outcome.score.reasons),
        "span_tokens": outcome.span_tokens,
        "span_target": outcome.span_target,
        "span_overrun": outcome.overrun,
        "conversation": test.group,
        "skills": list(definition.skills),
        "questions": definition.questions,
        "expected": list(definition.ideal_answers),
        "responses": outcome.responses,
        "error": outcome.error,
        "usage": dataclasses.asdict(outcome.usage),
    }


def conversation_record(stats: ConversationStats) -> dict[str, Any]:
    record = dataclasses.asdict(stats)
    record["span_ratio"] = stats.span_ratio
    return record


def build_results(
    run: BenchmarkRun,
    items: Iterable[dict[str, Any]],
    conversations: Iterable[dict[str, Any]],
    judge_stats: Iterable[dict[str, Any]],
    agent_name: str | None,
) -> dict[str, Any]:
    records = sorted(items, key=lambda record: record["nodeid"])
    conversation_list = sorted(conversations, key=lambda record: record["group"])
    usage: dict[str, float] = defaultdict(float)
    for source in [r["usage"] for r in records] + [c["overhead_usage"] for c in conversation_list]:
        for name, value in source.items():
            usage[name] += value
    settings = run.settings
    judging = _merge_judge_stats(list(judge_stats))
    return {
        "schema": SCHEMA,
        "run": {
            "id": run.run_id,
            "agent": agent_name,
            "judge": judging["name"],
            "span": {name: str(span) for name, span in run.spans.items()},
            "seed": settings.seed,
            "profile": settings.profile,
            "suites": [suite.name for suite in run.suites],
            "started": run.started.isoformat(),
            "finished": datetime.now(timezone.utc).isoformat(),
            "package_version": __version__,
            "token_counter": run.counter.name,
            "conversations_per_suite": run.conversation_count,
            "resumed": settings.resume is not None,
            "replayed_from": str(settings.replay) if settings.replay else None,
            "judge_prompt_hashes": judging["prompt_hashes"],
        },
        "totals": {
            "score": round(sum(record["score"] for record in records), 6),
            "max": len(records),
            "passed": sum(record["passed"] for record in records),
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
        },
        "conversations": conversation_list,
        "suites": _means(records, "suite"),
        "scenarios": _means(records, "scenario"),
        "items": records,
    }


def _merge_judge_stats(per_process: list[dict[str, Any]]) -> dict[str, Any]:
    """Add up the judging of the controller and every worker."""
    merged: dict[str, Any] = {"name": per_process[0]["name"], "prompt_hashes": {}}
    for stats in per_process:
        merged["prompt_hashes"].update(stats["prompt_hashes"])
        for key in ("calls", "cache_hits", "unparseable", "input_tokens", "output_tokens", "cost_usd"):
            merged[key] = merged.get(key, 0) + stats[key]
    return merged


def _means(records: list[dict[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[float]] = defaultdict(list)
    for record in records:
        groups[record[field]].append(record["score"])
    return {
        name: {"mean": round(sum(scores) / len(scores), 6), "ci95": None, "n": len(scores)}
        for name, scores in sorted(groups.items())
    }


def write_results(path: Path, results: dict[str, Any]) -> None:
    write_atomically(path, json.dumps(results, indent=2, ensure_ascii=False) + "\n")
