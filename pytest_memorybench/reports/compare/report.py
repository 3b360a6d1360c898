"""`pytest --mb-compare RUN...`: the command, and the files a comparison leaves behind.

No agent is called and no test collected.  The comparison is printed (`text.py`), and its
folder (`--mb-output`, default `.memorybench/comparisons/<time>`) gets compare.json (every figure,
recomputable from the runs' files), compare.html (the same look as report.html), and each figure
as an SVG file of its own: bars.svg, span.svg when the runs differ only in span, cd.svg with three
runs or more, latency_budget.svg when the runs' answer times are known.  `--mb-markdown FILE` (and
`$GITHUB_STEP_SUMMARY`) get the Markdown table.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from markupsafe import Markup

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.files import write_atomically
from pytest_memorybench.reports.compare.board import Board, BoardRow, board, pareto_front
from pytest_memorybench.reports.compare.comparison import ERRORED, Comparison, Row, compare
from pytest_memorybench.reports.compare.gold import above_gold, comparison_ceiling_lines
from pytest_memorybench.reports.compare.questions import Outcome, QuestionRow, question_rows, questions_view
from pytest_memorybench.reports.compare.runs import FinishedRun, load_runs
from pytest_memorybench.reports.compare.scale import MEASURES, scale
from pytest_memorybench.reports.compare.svg import (
    budget_curves,
    critical_difference,
    grouped_bars,
    pareto_panels,
    span_curves,
)
from pytest_memorybench.reports.compare.text import comparison_lines, shown_lines
from pytest_memorybench.reports.html import css, environment, page_script
from pytest_memorybench.reports.latency_budget import BUDGET_COLUMNS, budget_cells
from pytest_memorybench.reports.markdown import comparison_markdown, publish
from pytest_memorybench.results.schema import RecallRecord

DEFAULT_FOLDER = Path(".memorybench") / "comparisons"


def run_comparison(config: pytest.Config, say: Callable[[str], None]) -> int:
    """The `--mb-compare` command: 0 when it compared, a UsageError (exit 4) for bad input."""
    option = config.option
    runs = load_runs(option.mb_compare, option.mb_label or ())
    outcome = Outcome.parse(option.mb_show, len(runs)) if option.mb_show else None
    comparison = compare(
        runs, compare_to=option.mb_compare_to, anyway=option.mb_compare_anyway, seed=option.mb_seed
    )
    folder = Path(option.mb_output) if option.mb_output else config.rootpath / DEFAULT_FOLDER / _stamp()
    rows = question_rows(comparison)
    written = write_comparison(folder, comparison, rows)
    say("=" * 30 + " memorybench comparison " + "=" * 25)
    for line in comparison_lines(comparison):
        say(line)
    curves = scale(comparison.runs)
    for line in curves.lines() if curves is not None else ():
        say(line)
    say("")
    if outcome is not None:
        for line in shown_lines(rows, outcome):
            say(line)
        say("")
    say(f"comparison: {written[0]}")
    say(f"figures:    {', '.join(str(path) for path in written[1:])}")
    for target in publish(comparison_markdown(comparison), option.mb_markdown):
        say(f"markdown:   {target}")
    return 0


def write_comparison(
    folder: Path, comparison: Comparison, rows: list[QuestionRow] | None = None
) -> list[Path]:
    """compare.html, compare.json and the figures; the page first in the list."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise usage_error(
            f"--mb-output {folder}: cannot write there ({exc.strerror or exc}); give a folder you can"
            " write to"
        ) from None
    ranked = board(comparison)
    figures = comparison_figures(comparison, ranked)
    page = folder / "compare.html"
    curves = scale(comparison.runs)
    record = {
        **comparison.to_json(),
        "above_ceiling": comparison_ceiling_lines(comparison),
        "above_gold": [flag.to_json() for flag in above_gold(comparison)],
        "board": board_json(ranked),
        **({"scale": curves.to_json()} if curves is not None else {}),
    }
    write_atomically(folder / "compare.json", json.dumps(record, indent=2, default=str) + "\n")
    questions = rows if rows is not None else question_rows(comparison)
    write_atomically(page, comparison_page(comparison, figures, ranked, questions, folder))
    paths = [page]
    for name, svg in figures.items():
        write_atomically(folder / f"{name}.svg", svg)
        paths.append(folder / f"{name}.svg")
    return paths


def comparison_figures(comparison: Comparison, ranked: Board) -> dict[str, str]:
    """bars (always), span (runs that differ only in span), cd and board (three runs or more)."""
    labels = [run.label for run in comparison.runs]
    figures: dict[str, str] = {}
    rows = [
        (
            row.label if row.level != "suite" else f"{row.label} (all)",
            [(cell.mean, cell.ci95) for cell in row.cells],
        )
        for suite, table in comparison.tables.items()
        if suite != "total"
        for row in table
        if row.level in ("suite", "scenario")
    ]
    figures["bars"] = grouped_bars(
        rows, labels, title="mean score per scenario and run, 95% CI, shared items"
    )
    curves = scale(comparison.runs)
    if curves is not None:
        marks = [
            (crossing.size, f"{crossing.ahead.split(':')[0]} overtakes") for crossing in curves.crossings()
        ]
        for name, measure, y_max in (
            ("span", "score", 1.0),
            ("span_cost", "cost", None),
            ("span_latency", "latency", None),
        ):
            figures[name] = span_curves(
                curves.curves(measure),
                title=f"{MEASURES[measure]} against {curves.unit} (each run's own items)",
                x_label=curves.unit,
                y_label=MEASURES[measure],
                y_max=y_max,
                marks=marks if measure == "score" else (),
            )
    budgets = {
        label: record for label, record in zip(labels, comparison.latency_budgets, strict=False) if record
    }
    if budgets:
        figures["latency_budget"] = budget_curves(
            budgets, title="accuracy within a latency budget, shared items (each run's answer times)"
        )
    if comparison.ranks:
        figures["cd"] = critical_difference(
            comparison.ranks,
            comparison.groups,
            title="average rank; a bar joins runs no Holm-corrected Wilcoxon test tells apart",
        )
        figures["board"] = board_figure(ranked, labels)
    return figures


def board_figure(ranked: Board, labels: list[str]) -> str:
    """Score against cost and against reply latency, the Pareto front of each marked."""
    by_letter = {row.letter: row for row in ranked.rows}
    rows = [by_letter[chr(65 + index)] for index in range(len(labels))]
    panels = []
    for axis, value in ((ranked.cost_axis, ranked.cost_of), ("reply latency p50 (s)", _latency)):
        points: list[tuple[float, float] | None] = []
        for row in rows:
            x = value(row)
            points.append(None if row.mean is None or x is None else (x, row.mean))
        panels.append((axis, points, pareto_front(points)))
    return pareto_panels(panels, labels, title="mean score against what it cost and how fast it answered")


def _latency(row: BoardRow) -> float | None:
    return row.p50


def comparison_page(
    comparison: Comparison,
    figures: dict[str, str],
    ranked: Board,
    questions: list[QuestionRow],
    folder: Path,
) -> str:
    """compare.html: the runs, a table per suite, the paired tests, the figures, the board, and every
    question side by side."""
    runs = comparison.runs
    letter = {run.label: chr(65 + index) for index, run in enumerate(runs)}
    view: dict[str, Any] = {
        "runs": [_run_view(run, letter[run.label]) for run in runs],
        "board": [_board_view(row) for row in ranked.rows],
        "board_chart": Markup(figures["board"]) if "board" in figures else None,
        "questions": questions_view(questions, runs, folder),
        "keyed_by": comparison.keyed_by,
        "shared": len(comparison.shared),
        "left_out": comparison.left_out,
        "notes": comparison.notes,
        "ceilings": comparison_ceiling_lines(comparison),
        "strict": bool(comparison.left_out.get(ERRORED)),
        "tables": [
            {
                "name": suite,
                "chart": Markup(figures["bars"]) if suite == "total" else None,
                "rows": [_row_view(row, several=len(runs) > 1) for row in rows],
            }
            for suite, rows in comparison.tables.items()
        ],
        "pairs": [
            {
                "name": f"{letter[pair.b]} − {letter[pair.a]}",
                "difference": pair.difference,
                "ci95": pair.ci95,
                "n": pair.n,
                "p": pair.p,
                "p_holm": pair.p_holm,
                "significant": pair.significant,
                "verdict": pair.verdict(letter[pair.a], letter[pair.b]),
            }
            for pair in comparison.pairs
        ],
        "judge_orders": [
            {"robust": order.robust, "text": order.text(letter[order.a], letter[order.b])}
            for order in comparison.judge_orders
        ],
        "judged": any(row.judging for row in ranked.rows),
        "golds": any(row.to_gold is not None for row in ranked.rows),
        "losses": None
        if comparison.losses is None
        else {
            "table": comparison.losses.table(),
            "pairs": comparison.losses.pair_texts(letter),
        },
        "cd": Markup(figures["cd"]) if "cd" in figures else None,
        "span": Markup(
            "".join(figures[name] for name in ("span", "span_cost", "span_latency") if name in figures)
        )
        if "span" in figures
        else None,
        "stores": any(spend.store for spend in comparison.spending),
        "recalls": any(spend.recall for spend in comparison.spending),
        "stales": any(spend.stale for spend in comparison.spending),
        "latency_budget": None
        if "latency_budget" not in figures
        else {
            "chart": Markup(figures["latency_budget"]),
            "columns": BUDGET_COLUMNS,
            "rows": [
                {"letter": chr(65 + index), "cells": budget_cells(record)}
                for index, record in enumerate(comparison.latency_budgets)
            ],
        },
    }
    script, script_hash = page_script("compare_questions.js")
    return (
        environment()
        .get_template("compare.html.j2")
        .render(view=view, css=css(), script=script, script_hash=script_hash)
    )


def _board_view(row: BoardRow) -> dict[str, Any]:
    spend = row.spending
    return {
        **row.__dict__,
        "tokens_in": spend.tokens_in,
        "tokens_out": spend.tokens_out,
        "calls": spend.calls,
        "cost": spend.cost,
        "cost_per_passed": spend.cost_per_passed,
        "memory_text": spend.memory_text,
        "store_texts": (spend.ingest_text, spend.search_text, spend.context_text),
        "retrieval_text": spend.retrieval_text,
        "stale_text": spend.stale_text,
    }


def board_json(ranked: Board) -> list[dict[str, Any]]:
    """The board as compare.json keeps it: rank, run, mean and interval, and what it spent."""
    return [
        {
            "rank": row.rank,
            "run": row.letter,
            "label": row.label,
            "mean": row.mean,
            "ci95": row.ci95,
            "passed": row.passed,
            "n": row.n,
            "tokens": row.tokens,
            "cost_usd": row.spending.cost,
            "cost_per_passed": row.spending.cost_per_passed,
            "reply_p50_s": row.p50,
            "reply_p95_s": row.p95,
            "judging": row.judging,
            "to_gold": row.to_gold,
            **_retrieval_json(row.spending.recall),
            **({"stale_facts": row.spending.stale} if row.spending.stale else {}),
            "lafs": row.lafs,
        }
        for row in ranked.rows
    ]


def _retrieval_json(recall: RecallRecord | None) -> dict[str, float | None]:
    """A run's evidence recall and, beside it, precision and the evidence's share of the retrieved tokens."""
    if not recall:
        return {}
    return {
        "evidence_recall": recall["mean"],
        "precision": recall.get("precision_mean"),
        "evidence_share": recall.get("share_mean"),
    }


def _run_view(run: FinishedRun, letter: str) -> dict[str, Any]:
    spans = ", ".join(f"{suite}={span}" for suite, span in (run.info.get("span") or {}).items())
    return {
        "letter": letter,
        "label": run.label,
        "agent": run.info.get("agent"),
        "profile": run.info.get("profile"),
        "judge": run.info.get("judge"),
        "source": str(run.source),
        "span": spans or "-",
    }


def _row_view(row: Row, *, several: bool) -> dict[str, Any]:
    cells = [{**cell.__dict__, "best": index in row.best and several} for index, cell in enumerate(row.cells)]
    return {"level": row.level, "label": row.label, "cells": cells}


def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
