"""What every process judged, added up for the run: calls, cache hits, tokens, cost, prompt hashes.

The controller and each xdist worker (or each shard of a merge) keep their own judge's statistics
(`RunInstruments.judge_stats`); results.json's run and totals report one judge, so the counts are
summed, the prompt hashes united, and the model, output form and version taken from whichever
process used the judge.  A judge panel's jurors are added up juror by juror.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from pytest_memorybench.results.schema import JudgePanelRecord, JudgeStatsRecord


class ProcessJudging(JudgeStatsRecord, total=False):
    """What one process judged (`RunInstruments.judge_stats`, a shard's run): its judge's stats,
    and the panel's shape when a panel judged."""

    panel: JudgePanelRecord


def merge_judge_stats(per_process: list[Mapping[str, Any]]) -> ProcessJudging:
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
