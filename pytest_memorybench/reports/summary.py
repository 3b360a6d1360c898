"""The end-of-session table: suites, scenarios and categories, narrow enough for an 80-column log.

CI logs are read in a browser pane or a terminal that wraps at 80 columns; a wrapped table is
unreadable, so every table line stays within `WIDTH` (free text such as paths may run longer).
The total row adds what the conversations spent around the tests (`table.py`), so it can exceed
the sum of the rows.  A run with items that errored (no score: the agent, its provider or the judge
failed) gets an `err` column and a `strict` one (the mean over every item, an error as 0), narrowing
the names, and says how to retry them on its last line.  Without errors the strict mean is the mean
on every row, so its column would only repeat it: it is shown where it can differ.  A category
above its ceiling (`ceilings.py`) is said under the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_memorybench.reports.ceilings import ceiling_lines
from pytest_memorybench.reports.judging import judging_lines
from pytest_memorybench.reports.latency_budget import budget_lines
from pytest_memorybench.reports.table import table_rows
from pytest_memorybench.results.losses import split_compact, split_text
from pytest_memorybench.results.schema import (
    ConcurrencyRecord,
    RecallRecord,
    ResultsRecord,
    ScenarioFigures,
    StoreRecord,
    WrittenRecord,
)
from pytest_memorybench.results.stale import stale_lines

WIDTH = 79
LABEL = 30
ERRORS_LABEL = 18  # with the strict and err columns: the names give them room


def summary_lines(
    results: ResultsRecord, results_path: str, report_path: str | None = None, markdown: Sequence[str] = ()
) -> list[str]:
    """The terminal summary: the table, what the agent and judge spent, the conversations, the files."""
    totals = results["totals"]
    lines = [
        *_table_lines(results),
        *ceiling_lines(results),
        *_spending_lines(results),
        *_conversation_lines(results),
    ]
    overruns = [item["nodeid"] for item in results["items"] if item.get("span_overrun")]
    if overruns:
        lines.append(f"span overrun in {len(overruns)} test(s): {', '.join(overruns[:5])}")
    lines.append(f"results: {results_path}")
    if report_path:
        lines.append(f"report:  {report_path}")
    lines.extend(f"markdown: {target}" for target in markdown)
    if totals.get("errors", 0):
        lines.append(errors_line(totals, str(Path(results_path).parent)))
    return lines


def _table_lines(results: ResultsRecord) -> list[str]:
    """Suites, scenarios and categories with their means, intervals and costs, then the total."""
    totals = results["totals"]
    errors = totals.get("errors", 0)
    rows = list(table_rows(results))
    widest = max(
        [len(f"{row.passed}/{row.scored}") for row in rows] + [len(f"{totals['passed']}/{totals['max']}")]
    )
    table = _Table(errors > 0, widest)
    lines = [table.header()]
    indent = {"suite": "", "scenario": "  ", "category": "    · "}
    for row in rows:
        lines.extend(
            table.row(
                indent[row.level] + row.label,
                row.stats["mean"],
                row.strict,
                row.stats.get("ci95"),
                f"{row.passed}/{row.scored}",
                row.errors,
                row.tokens,
                row.seconds,
                row.cost,
            )
        )
        if row.level == "scenario":
            lines.extend(metric_lines(row.stats.get("metrics"), indent=4))
    lines.extend(
        table.row(
            "total",
            totals.get("mean"),
            totals.get("mean_strict"),
            totals.get("ci95"),
            f"{totals['passed']}/{totals['max']}",
            errors,
            totals["agent_tokens_in"] + totals["agent_tokens_out"],
            totals["agent_seconds"],
            totals["cost_usd"],
        )
    )
    return lines


def _spending_lines(results: ResultsRecord) -> list[str]:
    """What the agent, its memory and the judge spent, evidence recall, and the concurrency reached."""
    totals = results["totals"]
    lines = [
        f"agent: {totals['agent_tokens_in']:,} tokens in, {totals['agent_tokens_out']:,} out, "
        f"{totals['agent_calls']:,} calls, {totals['agent_seconds']:.1f} s, ${totals['cost_usd']:.4f}"
    ]
    lines += [line for line in (efficiency_text(totals), memory_text(totals)) if line]
    lines += budget_lines(totals.get("latency_budget"))
    lines += store_text(totals.get("store"))
    written = written_text(totals.get("written"))
    if written:
        lines.append(written)
    recall = totals.get("evidence_recall")
    if recall:
        lines += retrieval_lines(recall) + scenario_retrieval_lines(results)
    lines += stale_lines(totals.get("stale_facts"))
    losses = split_text(totals.get("losses"))
    if losses:
        lines.append(losses)
        lines += _category_losses(results)
    lines.append(
        f"judge {results['run']['judge']}: {totals['judge_calls']:,} calls, {totals['judge_cache_hits']:,}"
        f" cache hits, {totals['judge_tokens_in'] + totals['judge_tokens_out']:,} tokens,"
        f" ${totals['judge_cost_usd']:.4f}"
    )
    lines += judging_lines(totals.get("judging"))
    concurrency = concurrency_line(results["run"].get("concurrency"))
    return [*lines, concurrency] if concurrency else lines


def _category_losses(results: ResultsRecord) -> list[str]:
    """Where each suite's (of several) and each category's answers were lost, a short line each."""
    lines = []
    suites = results.get("suites", {})
    for name, suite in suites.items():
        text = split_compact(suite.get("losses"))
        if text and len(suites) > 1:
            lines.append(f"  {name}: {text}")
    for scenario in results.get("scenarios", {}).values():
        for category, stats in (scenario.get("categories") or {}).items():
            text = split_compact(stats.get("losses"))
            if text:
                lines.append(f"  · {category}: {text}")
    return lines


def recall_text(recall: RecallRecord) -> str:
    """Evidence recall in a line: what search found and, where the agent says, what its prompts held."""
    k = recall["k"]
    line = f"evidence recall@{k}: {recall['mean']:.2f} retrieved"
    if "context_mean" in recall:
        line += f", {recall['context_mean']:.2f} in the answering prompt"
    line += (
        f" over {recall['questions']} questions (the share of what each question rests on that memory found)"
    )
    if recall.get("over_k"):
        line += f"; retrieve returned more than {k} for {recall['over_k']}: only the first {k} counted"
    return line


def precision_text(recall: RecallRecord) -> str | None:
    """Precision in a line, beside recall: how much of what the memory returned (and, where the agent
    says, of what its prompts held) is evidence, by memories and by tokens; None for a run without."""
    if "precision_mean" not in recall:
        return None
    k = recall["k"]
    line = f"precision@{k}: {recall['precision_mean']:.2f} of the memories retrieved hold evidence"
    if "share_mean" in recall:
        line += f", evidence {recall['share_mean']:.0%} of their tokens"
    if "context_precision_mean" in recall:
        line += f"; {recall['context_precision_mean']:.2f} of the memories in the answering prompt"
        if "context_share_mean" in recall:
            line += f", {recall['context_share_mean']:.0%} of its memory tokens"
    return line + f" (over {recall['precision_questions']} questions that got memories back)"


def retrieval_lines(recall: RecallRecord) -> list[str]:
    """Evidence recall and, beside it, precision: the terminal's and report.html's lines."""
    precision = precision_text(recall)
    return [recall_text(recall), precision] if precision else [recall_text(recall)]


def scenario_retrieval_lines(results: ResultsRecord) -> list[str]:
    """Each scenario's recall / precision / share and stale-fact rate, where a run measured them in
    more than one scenario (the run's own lines say it for one)."""
    measured = {
        name: scenario
        for name, scenario in results.get("scenarios", {}).items()
        if "evidence_recall" in scenario or "stale_facts" in scenario
    }
    if len(measured) < 2:
        return []
    lines = []
    for name, scenario in measured.items():
        parts = []
        recall = scenario.get("evidence_recall")
        if recall:
            precision, share = recall.get("precision_mean"), recall.get("share_mean")
            parts.append(
                f"recall {recall['mean']:.2f}"
                + ("" if precision is None else f", precision {precision:.2f}")
                + ("" if share is None else f", share {share:.0%}")
            )
        stale = scenario.get("stale_facts")
        if stale:
            parts.append(f"stale asserted {stale['asserted_rate']:.0%}")
        lines.append(f"  · {name}: {'; '.join(parts)}")
    return lines


def _conversation_lines(results: ResultsRecord) -> list[str]:
    """Each conversation's length and filler; the probe families' contexts, delivered whole, in sum."""
    lines = []
    contexts = []
    for conversation in results.get("conversations", []):
        if conversation["span"]:
            lines.append(
                f"conversation {conversation['group']}: {conversation['tokens']:,} tokens, "
                f"{conversation['filler_messages']} filler messages ({conversation['saved_filler_messages']} "
                f"observed), {conversation['span_ratio']:.2f} × repetitions × span"
                + (f"; {conversation['error']}" if conversation.get("error") else "")
            )
        else:
            contexts.append(conversation)
    if 0 < len(contexts) <= 3:
        lines.extend(f"context {c['group']}: {c['tokens']:,} tokens delivered to the agent" for c in contexts)
    elif contexts:
        delivered = sum(c["tokens"] for c in contexts)
        lines.append(f"{len(contexts)} contexts: {delivered:,} tokens delivered to the agent")
    if results.get("run", {}).get("no_context"):
        lines.append(NO_CONTEXT)
    return lines


NO_CONTEXT = (
    "no context (--mb-no-context): every question was asked with nothing delivered first; each right"
    " answer is one the model knew without being told"
)


def concurrency_line(record: ConcurrencyRecord | None) -> str | None:
    """What `--mb-concurrency auto` chose for each provider it measured (each worker's, under -n)."""
    providers = record.get("providers", []) if record is not None else []
    if not providers:
        return None
    parts = []
    for provider in providers:
        level = provider["level"]
        what = "one request at a time" if level == 1 else f"{level} requests at once"
        parts.append(
            f"{'settled at' if provider['settled'] else 'at'} {level} ({provider['provider']}: {what})"
        )
    return "concurrency auto " + "; ".join(parts)


def efficiency_text(totals: Mapping[str, Any]) -> str:
    """Reply latency (p50, p95) and what a passed test cost: `agent replies: p50 0.41 s, p95 1.90 s · $0.0123
    per passed test`."""
    parts = []
    latency = totals.get("latency") or {}
    if latency.get("p50") is not None:
        parts.append(f"agent replies: p50 {latency['p50']:.2f} s, p95 {latency['p95']:.2f} s")
    if totals.get("passed") and totals.get("cost_usd"):
        parts.append(f"${totals['cost_usd'] / totals['passed']:.4f} per passed test")
    return " · ".join(parts)


def memory_text(totals: Mapping[str, Any]) -> str:
    """A memory system's model calls by phase: `memory write: 120 calls, 45,210 tokens, 3.1 s, $0.0021 · read:
    …`."""
    phases = totals.get("memory") or {}
    parts = [
        f"{phase}: {usage['calls']:,} calls, {usage['input_tokens'] + usage['output_tokens']:,} tokens, "
        f"{usage['seconds']:.1f} s, ${usage['cost_usd']:.4f}"
        for phase, usage in phases.items()
    ]
    return f"memory {' · '.join(parts)}" if parts else ""


def store_text(figures: StoreRecord | None) -> list[str]:
    """The store's figures for the terminal and the Markdown summary, and what must not pass unseen."""
    if not figures:
        return []
    store, k = figures["store"], figures["k"]
    parts = [f"store {store}: k {k}"]
    if figures.get("profile") == "vendor":
        parts[0] += " (its vendor's harness settings, not the equal terms)"
    if figures["ingest_ms_per_message"] is not None:
        parts.append(f"ingest {figures['ingest_ms_per_message']:.1f} ms a message ({figures['messages']:,})")
    if figures["search_p50_ms"] is not None:
        parts.append(
            f"search p50 {figures['search_p50_ms']:.1f} ms, p95 {figures['search_p95_ms']:.1f} ms"
            f" ({figures['searches']:,})"
        )
    if figures["context_tokens_per_answer"] is not None:
        parts.append(f"{figures['context_tokens_per_answer']:,.0f} context tokens an answer")
    if figures["native_answers"]:
        native = figures["native_answers"]
        parts.append(
            f"{native:,} question{'s' if native != 1 else ''} answered by the store itself, not the harness"
        )
    lines = [" · ".join(parts)]
    if figures["over_k"]:
        lines.append(
            f"{store} returned more than {k} hits for {figures['over_k']} of {figures['searches']} searches"
            f" (up to {figures['returned_max']}); {k} used"
        )
    if store != "none" and figures["searches"] and figures["empty"] == figures["searches"]:
        lines.append(
            f"every search of {store} came back empty ({figures['searches']}): the scores are not the"
            " store's memory; check that it indexes what it is given"
        )
    return lines


def written_text(figures: WrittenRecord | None) -> str | None:
    """What the memory held at the conversations' ends against the evidence, in a line: "written:
    1,412 memories kept (3 duplicates) · evidence coverage 51.2% of 410 pieces · 88.0% carry no
    question's evidence"."""
    if not figures:
        return None
    parts = [f"written: {figures['memories']:,} memories kept ({figures['duplicates']:,} duplicates)"]
    if figures["coverage"] is not None:
        parts.append(f"evidence coverage {figures['coverage']:.1%} of {figures['evidence']:,} pieces")
    if figures["without_evidence_share"] is not None:
        parts.append(f"{figures['without_evidence_share']:.1%} carry no question's evidence")
    if figures["unlisted"]:
        parts.append(f"{figures['unlisted']:,} conversations not listed")
    return " · ".join(parts)


def errors_line(totals: Mapping[str, Any], folder: str) -> str:
    """What errored, by whose failure, and how to retry it: the run's last word when it has errors."""
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(totals.get("errors_by_kind", {}).items()))
    count = totals["errors"]
    return (
        f"{count} item{'s' if count != 1 else ''} errored ({kinds}): no score, left out of every mean but"
        f" the strict one; --mb-resume={folder} retries them"
    )


def metric_lines(metrics: ScenarioFigures | None, indent: int) -> list[str]:
    """A scenario's own metrics, a line each with the values aligned: scalars as they are, curves by
    their size (drawn in the HTML); records (a table of intervals) are left to the report."""
    if not metrics:
        return []
    parts: list[tuple[str, str]] = []
    for name, value in metrics.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, str, dict)):
            continue
        if isinstance(value, dict):
            if isinstance(value.get("curve"), list):
                parts.append((name, f"curve of {len(value['curve'])} points (report.html)"))
        elif isinstance(value, float):
            parts.append((name, f"{value:.3f}"))
        else:
            parts.append((name, str(value)))
    width = max((len(name) for name, _ in parts), default=0)
    return [f"{' ' * indent}{name:<{width}}  {value}" for name, value in parts]


class _Table:
    """The columns, each a space apart from the next whatever the counts; `strict` (the mean with
    an error as 0) and `err` (items with no score) only in a run that has some, and `passed` as wide
    as its widest count."""

    def __init__(self, with_errors: bool, passed_width: int = 7) -> None:
        self.with_errors = with_errors
        self.label = ERRORS_LABEL if with_errors else LABEL
        self.passed = max(passed_width, 7)

    def _columns(
        self,
        mean: str,
        strict: str,
        ci: str,
        passed: str,
        errors: str,
        tokens: str,
        seconds: str,
        cost: str,
    ) -> str:
        fields = [(mean, 5)]  # each a space, then right-aligned
        if self.with_errors:
            fields.append((strict, 6))
        fields += [(ci, 12), (passed, self.passed)]
        if self.with_errors:
            fields.append((errors, 4))
        fields += [(tokens, 6), (seconds, 6), (cost, 7)]
        return "".join(f" {text:>{width}}" for text, width in fields)

    def header(self) -> str:
        columns = self._columns("mean", "strict", "95% CI", "passed", "err", "tokens", "secs", "cost")
        return f"{'suite / scenario':<{self.label}}{columns}"

    def row(
        self,
        label: str,
        mean: float | None,
        strict: float | None,
        ci: list[float] | None,
        passed: str,
        errors: int,
        tokens: int,
        seconds: float,
        cost: float,
    ) -> list[str]:
        """One row; a label too long for its column gets a line of its own, so names are never cut."""
        numbers = self._columns(
            f"{mean:.3f}" if mean is not None else "-",
            f"{strict:.3f}" if strict is not None else "-",
            f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "-",
            passed,
            str(errors or "-"),
            compact_count(tokens),
            _seconds(seconds),
            _money(cost),
        )
        if len(label) > self.label - 1:
            return [label, " " * self.label + numbers]
        return [f"{label:<{self.label}}{numbers}"]


def compact_count(value: float) -> str:
    """943, 5.5k, 12k, 1.2M: a token count in at most five characters."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= size:
            scaled = value / size
            return f"{scaled:.1f}{suffix}" if scaled < 10 else f"{scaled:.0f}{suffix}"
    return f"{value:.0f}"


def _seconds(value: float) -> str:
    if value >= 3600:
        return f"{value / 3600:.1f}h"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _money(value: float) -> str:
    return f"${value:.4f}" if value < 100 else f"${value:.0f}"
