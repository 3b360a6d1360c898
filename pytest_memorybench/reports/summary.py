"""The end-of-session table: one row per suite and scenario, narrow enough for an 80-column log."""

from __future__ import annotations

from typing import Any


def summary_lines(results: dict[str, Any], results_path: str) -> list[str]:
    items = results["items"]
    lines = [f"{'suite / scenario':<40}{'mean':>7}{'passed':>11}{'span tokens':>14}"]
    for suite, stats in results["suites"].items():
        suite_items = [item for item in items if item["suite"] == suite]
        lines.append(_row(suite, stats["mean"], suite_items))
        for scenario in sorted({item["scenario"] for item in suite_items}):
            scenario_items = [item for item in suite_items if item["scenario"] == scenario]
            lines.append(_row("  " + scenario, results["scenarios"][scenario]["mean"], scenario_items))
    for conversation in results.get("conversations", []):
        if conversation["span"]:
            lines.append(
                f"conversation {conversation['group']}: {conversation['tokens']:,} tokens, "
                f"{conversation['filler_messages']} filler messages ({conversation['saved_filler_messages']} "
                f"observed), {conversation['span_ratio']:.2f} × repetitions × span"
            )
    overruns = [item["nodeid"] for item in items if item.get("span_overrun")]
    if overruns:
        lines.append(f"span overrun in {len(overruns)} test(s): {', '.join(overruns[:5])}")
    totals = results["totals"]
    lines.append(
        f"total {totals['score']:g} / {totals['max']}   agent tokens in/out "
        f"{totals['agent_tokens_in']}/{totals['agent_tokens_out']}   "
        f"agent time {totals['agent_seconds']:.1f} s   cost ${totals['cost_usd']:.4f}"
    )
    lines.append(f"results: {results_path}")
    return lines


def _row(label: str, mean: float, items: list[dict[str, Any]]) -> str:
    passed = sum(item["passed"] for item in items)
    spans = [item["span_tokens"] for item in items]
    span = f"{sum(spans) // len(spans)}" if spans else "-"
    return f"{label[:40]:<40}{mean:>7.3f}{f'{passed}/{len(items)}':>11}{span:>14}"
