"""Markdown summaries for where CI shows them: a run, a gate's verdict, a comparison.

`--mb-markdown FILE` writes one; when `$GITHUB_STEP_SUMMARY` is set (a GitHub Actions step), the
same text is appended to it, so the table is on the job's page.  Agent and suite text is put in
code spans or escaped, so a reply or a scenario name cannot break the table.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pytest_memorybench.reports.ceilings import ceiling_lines
from pytest_memorybench.reports.compare.board import board
from pytest_memorybench.reports.compare.comparison import ERRORED, Comparison
from pytest_memorybench.reports.compare.gold import comparison_ceiling_lines
from pytest_memorybench.reports.judging import judging_lines
from pytest_memorybench.reports.latency_budget import BUDGET_COLUMNS, budget_cells, budget_lines
from pytest_memorybench.reports.summary import efficiency_text, memory_text, store_text, written_text
from pytest_memorybench.reports.table import table_rows
from pytest_memorybench.results.losses import split_text
from pytest_memorybench.results.schema import GateRecord, ResultsRecord

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def run_markdown(results: ResultsRecord, gate: GateRecord | None) -> str:
    """The run's table as Markdown, for a CI job summary."""
    run, totals = results["run"], results["totals"]
    spans = ", ".join(f"{suite}={span}" for suite, span in run.get("span", {}).items()) or "-"
    lines = [
        f"### memorybench: {_text(run.get('agent'))}",
        "",
        f"judge {_text(run.get('judge'))} · span {_text(spans)} · profile {_text(run.get('profile'))} · seed"
        f" {run.get('seed')} · run `{run.get('id')}`" + (" · **partial**" if run.get("partial") else ""),
        "",
        "| suite / scenario | mean | strict | 95% CI | passed | errors | tokens | cost |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    indent = {"suite": "", "scenario": "&nbsp;&nbsp;", "category": "&nbsp;&nbsp;&nbsp;&nbsp;· "}
    for row in table_rows(results):
        label = indent[row.level] + _text(row.label)
        if row.level == "suite":
            label = f"**{label}**"
        lines.append(
            f"| {label} | {_mean(row.stats['mean'])} | {_mean(row.strict)} | {_ci(row.stats.get('ci95'))} |"
            f" {row.passed}/{row.scored} | {row.errors or '-'} | {row.tokens:,} | ${row.cost:.4f} |"
        )
    lines.append(
        f"| **total** | **{_mean(totals.get('mean'))}** | {_mean(totals.get('mean_strict'))} |"
        f" {_ci(totals.get('ci95'))} |"
        f" {totals['passed']}/{totals['max']} | {totals.get('errors') or '-'} |"
        f" {totals['agent_tokens_in'] + totals['agent_tokens_out']:,} | ${totals['cost_usd']:.4f} |"
    )
    ceilings = ceiling_lines(results)
    if ceilings:
        lines += ["", *(f"- ⚠️ {_text(line)}" for line in ceilings)]
    efficiency = efficiency_text(totals)
    lines += [
        "",
        f"agent: {totals['agent_tokens_in']:,} tokens in, {totals['agent_tokens_out']:,} out, "
        f"{totals['agent_calls']:,} calls, ${totals['cost_usd']:.4f}"
        + (f" · {efficiency}" if efficiency else ""),
    ]
    if memory_text(totals):
        lines += ["", memory_text(totals)]
    budget = budget_lines(totals.get("latency_budget"))
    lines += ["", *(f"- {_text(line)}" for line in budget)] if budget else []
    lines += [line for text in store_text(totals.get("store")) for line in ("", text)]
    written = written_text(totals.get("written"))
    if written:
        lines += ["", _text(written)]
    losses = split_text(totals.get("losses"))
    if losses:
        lines += ["", _text(losses)]
    judging = judging_lines(totals.get("judging"))
    if judging:
        lines += ["", *(f"- {_text(line.strip())}" for line in judging)]
    if totals.get("errors"):
        kinds = ", ".join(
            f"{kind} {count}" for kind, count in sorted(totals.get("errors_by_kind", {}).items())
        )
        lines += [
            "",
            (
                f"⚠️ {totals['errors']} item(s) errored ({kinds}): no score, left out of every mean but"
                " the strict one; `--mb-resume` retries them."
            ),
        ]
    if gate is not None:
        lines += ["", gate_markdown(gate)]
    return "\n".join(lines) + "\n"


def gate_markdown(gate: GateRecord) -> str:
    """The gate's verdict and rows as Markdown."""
    verdict = "✅ gate passed" if gate["passed"] else "❌ gate FAILED"
    lines = [f"**{verdict}**" + (f" against `{gate['baseline']}`" if gate.get("baseline") else "")]
    lines += [f"- {_text(failure)}" for failure in gate.get("failures", [])]
    lines += [f"- note: {_text(note)}" for note in gate.get("notes", [])]
    return "\n".join(lines)


def comparison_markdown(comparison: Comparison) -> str:
    """The comparison's tables and tests as Markdown, for a CI job summary."""
    runs = comparison.runs
    lines = ["### memorybench comparison", ""]
    lines += [
        f"- **{chr(65 + index)}** = {_text(run.label)} (`{run.source}`)" for index, run in enumerate(runs)
    ]
    left = comparison.left_out
    lines += [
        "",
        f"Paired by {comparison.keyed_by} on {len(comparison.shared)} item(s) every run scored"
        + (
            f"; left out: {', '.join(f'{len(keys)} {reason}' for reason, keys in left.items())}."
            if left
            else "."
        ),
        "",
        "| suite / scenario | " + " | ".join(chr(65 + index) for index in range(len(runs))) + " |",
        "| --- |" + " ---: |" * len(runs),
    ]
    for rows in comparison.tables.values():
        for row in rows:
            label = _text(row.label)
            label = (
                f"**{label}**"
                if row.level in ("suite", "total")
                else ("&nbsp;&nbsp;" if row.level == "scenario" else "&nbsp;&nbsp;&nbsp;&nbsp;· ") + label
            )
            cells = [
                (f"**{_mean(cell.mean)}**" if index in row.best and len(runs) > 1 else _mean(cell.mean))
                + f" {_ci(cell.ci95)}"
                + (f" · strict {_mean(cell.strict)}" if any(other.errors for other in row.cells) else "")
                for index, cell in enumerate(row.cells)
            ]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if comparison.left_out.get(ERRORED):
        lines += [
            "",
            f"strict: the mean over the shared items and the {len(comparison.left_out[ERRORED])} that errored"
            " in a run, an error counting 0.",
        ]
    flags = comparison_ceiling_lines(comparison)
    lines += ["", *(f"- ⚠️ {_text(line)}" for line in flags)] if flags else []
    lines += ["", "| pair | difference | 95% CI | verdict |", "| --- | ---: | ---: | --- |"]
    for pair in comparison.pairs:
        a, b = (chr(65 + [run.label for run in runs].index(name)) for name in (pair.a, pair.b))
        difference = f"{pair.difference:+.3f}" if pair.difference is not None else "-"
        lines.append(f"| {b} − {a} | {difference} | {_ci(pair.ci95)} | {pair.verdict(a, b)} |")
    letters = {run.label: chr(65 + index) for index, run in enumerate(runs)}
    orders = [order.text(letters[order.a], letters[order.b]) for order in comparison.judge_orders]
    lines += ["", *(f"- by judge: {_text(text)}" for text in orders)] if orders else []
    losses = comparison.losses
    if losses is not None:
        lines += [
            "",
            "| where answers were lost | " + " | ".join(letters[label] for label in losses.labels) + " |",
            "| --- |" + " ---: |" * len(losses.labels),
            *(
                f"| {words} | " + " | ".join(f"{share:.1%}" for share in shares) + " |"
                for words, shares in losses.table()
            ),
            "",
            *(f"- {_text(text)}" for text in losses.pair_texts(letters)),
        ]
    store = any(spend.store for spend in comparison.spending)
    recall = any(spend.recall for spend in comparison.spending)  # recall / precision / share
    stale = any(spend.stale for spend in comparison.spending)  # stale asserted / reached
    lines += [
        "",
        "The board, ranked by the mean over the shared items:",
        "",
        "| rank | run | mean | passed | tokens in / out | calls | memory write / read | reply p50 / p95 |"
        " cost | $ per passed |"
        + (" store ingest / message | search p50 / p95 | context tokens |" if store else "")
        + (" recall / precision / share |" if recall else "")
        + (" stale asserted / reached |" if stale else ""),
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        + (" ---: | ---: | ---: |" if store else "")
        + (" ---: |" if recall else "")
        + (" ---: |" if stale else ""),
    ]
    for entry in board(comparison).rows:
        spend = entry.spending
        latency = (
            f"{entry.p50:.2f} / {entry.p95:.2f} s" if entry.p50 is not None and entry.p95 is not None else "-"
        )
        per = f"${spend.cost_per_passed:.4f}" if spend.cost_per_passed is not None else "-"
        lines.append(
            f"| {entry.rank} | {entry.letter} {_text(entry.label)} | {_mean(entry.mean)} {_ci(entry.ci95)} |"
            f" {entry.passed}/{entry.n} | {spend.tokens_in:,} / {spend.tokens_out:,} | {spend.calls:,} |"
            f" {spend.memory_text} | {latency} | ${spend.cost:.4f} | {per} |"
            + (f" {spend.ingest_text} | {spend.search_text} | {spend.context_text} |" if store else "")
            + (f" {spend.retrieval_text} |" if recall else "")
            + (f" {_text(spend.stale_text)} |" if stale else "")
        )
    if any(comparison.latency_budgets):
        lines += [
            "",
            "Accuracy within a latency budget on the shared items, and LAFS over 1-200 s (item by item;"
            " as one point at the mean answer time):",
            "",
            "| run | " + " | ".join(BUDGET_COLUMNS) + " |",
            "| --- |" + " ---: |" * len(BUDGET_COLUMNS),
            *(
                f"| {chr(65 + index)} | " + " | ".join(budget_cells(record)) + " |"
                for index, record in enumerate(comparison.latency_budgets)
            ),
        ]
    ranked = board(comparison).rows
    below = [entry for entry in ranked if entry.to_gold is not None and entry.to_gold > 0]
    judged = [entry for entry in ranked if entry.judging]
    lines += [""] if below or judged else []
    lines += [
        f"- {entry.letter}: {entry.to_gold:.3f} below the gold store with its answering model"
        for entry in below
    ]
    lines += [f"- {entry.letter} judged: {_text(entry.judging)}" for entry in judged]
    lines += ["", *[f"- note: {_text(note)}" for note in comparison.notes]]
    return "\n".join(lines).rstrip() + "\n"


def publish(text: str, path: str | None) -> list[str]:
    """Write `text` to `path` (if given) and append it to the GitHub job summary (if in one); where it
    went."""
    written = []
    if path:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(str(target))
    summary = os.environ.get(STEP_SUMMARY)
    if summary:
        with open(summary, "a", encoding="utf-8") as out:
            out.write(text + "\n")
        written.append(f"${STEP_SUMMARY}")
    return written


def _mean(value: float | None) -> str:
    return f"{value:.3f}" if value is not None else "-"


def _ci(value: list[float] | None) -> str:
    return f"[{value[0]:.2f}, {value[1]:.2f}]" if value else "-"


def _text(value: Any) -> str:
    """Text from runs and suites, safe in a table cell: no pipes, no markup, one line."""
    text = " ".join(str(value).split())
    for char in ("\\", "|", "*", "_", "`", "<", ">", "[", "]"):
        text = text.replace(char, "\\" + char)
    return text
