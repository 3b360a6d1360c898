"""`pytest --mb-compare RUN...`: the command, and the files a comparison leaves behind.

No agent is called and no test collected.  The comparison is printed (`compare_text.py`), and its
folder (`--mb-output`, default `.memorybench/comparisons/<time>`) gets compare.json (every figure,
recomputable from the runs' files), compare.html (the same look as report.html), and each figure
as an SVG file of its own: bars.svg, span.svg when the runs differ only in span, cd.svg with three
runs or more.  `--mb-markdown FILE` (and `$GITHUB_STEP_SUMMARY`) get the Markdown table.
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
from pytest_memorybench.core.spans import parse_span
from pytest_memorybench.reports.compare import IDENTITY, Comparison, Row, Run, compare, load_runs
from pytest_memorybench.reports.compare_svg import critical_difference, grouped_bars, span_curves
from pytest_memorybench.reports.compare_text import comparison_lines
from pytest_memorybench.reports.html import css, environment
from pytest_memorybench.reports.markdown import comparison_markdown, publish
from pytest_memorybench.runner.folder import write_atomically

DEFAULT_FOLDER = Path(".memorybench") / "comparisons"


def run_comparison(config: pytest.Config, say: Callable[[str], None]) -> int:
    """The `--mb-compare` command: 0 when it compared, a UsageError (exit 4) for bad input."""
    option = config.option
    runs = load_runs(option.mb_compare, option.mb_label or ())
    comparison = compare(
        runs, compare_to=option.mb_compare_to, anyway=option.mb_compare_anyway, seed=option.mb_seed
    )
    folder = Path(option.mb_output) if option.mb_output else config.rootpath / DEFAULT_FOLDER / _stamp()
    written = write_comparison(folder, comparison)
    say("=" * 30 + " memorybench comparison " + "=" * 25)
    for line in comparison_lines(comparison):
        say(line)
    say("")
    say(f"comparison: {written[0]}")
    say(f"figures:    {', '.join(str(path) for path in written[1:])}")
    for target in publish(comparison_markdown(comparison), option.mb_markdown):
        say(f"markdown:   {target}")
    return 0


def write_comparison(folder: Path, comparison: Comparison) -> list[Path]:
    """compare.html, compare.json and the figures; the page first in the list."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise usage_error(
            f"--mb-output {folder}: cannot write there ({exc.strerror or exc}); give a folder you can"
            " write to"
        ) from None
    figures = comparison_figures(comparison)
    page = folder / "compare.html"
    write_atomically(folder / "compare.json", json.dumps(comparison.to_json(), indent=2, default=str) + "\n")
    write_atomically(page, comparison_page(comparison, figures))
    paths = [page]
    for name, svg in figures.items():
        write_atomically(folder / f"{name}.svg", svg)
        paths.append(folder / f"{name}.svg")
    return paths


def comparison_figures(comparison: Comparison) -> dict[str, str]:
    """bars (always), span (runs that differ only in span), cd (three runs or more)."""
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
    series = span_series(comparison.runs)
    if series:
        figures["span"] = span_curves(
            series, title="score against memory span (each run's own items and mean)"
        )
    if comparison.ranks:
        figures["cd"] = critical_difference(
            comparison.ranks,
            comparison.groups,
            title="average rank; a bar joins runs no Holm-corrected Wilcoxon test tells apart",
        )
    return figures


def span_series(runs: list[Run]) -> dict[str, list[tuple[float, float, list[float] | None]]]:
    """Runs that differ only in memory span, as curves (one per everything-but-span); empty when none do."""
    groups: dict[str, list[Run]] = {}
    for run in runs:
        identity = {key: run.info.get(key) for key in IDENTITY if key not in ("span", "seed")}
        groups.setdefault(json.dumps(identity, sort_keys=True, default=str), []).append(run)
    series = {}
    for members in groups.values():
        points = []
        for run in members:
            spans = [str(span) for span in (run.info.get("span") or {}).values()]
            tokens = parse_span(spans[0]).tokens if len(set(spans)) == 1 else None
            totals = run.results.get("totals", {})
            if tokens and totals.get("mean") is not None:
                points.append((float(tokens), float(totals["mean"]), totals.get("ci95")))
        if len({span for span, _, _ in points}) >= 2:
            series[str(members[0].info.get("agent") or members[0].label)] = points
    return series


def comparison_page(comparison: Comparison, figures: dict[str, str]) -> str:
    """compare.html: the runs, a table per suite, the paired tests, the figures and the spending."""
    runs = comparison.runs
    letter = {run.label: chr(65 + index) for index, run in enumerate(runs)}
    view: dict[str, Any] = {
        "runs": [_run_view(run, letter[run.label]) for run in runs],
        "keyed_by": comparison.keyed_by,
        "shared": len(comparison.shared),
        "left_out": comparison.left_out,
        "notes": comparison.notes,
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
        "cd": Markup(figures["cd"]) if "cd" in figures else None,
        "span": Markup(figures["span"]) if "span" in figures else None,
        "stores": any(spend.store for spend in comparison.spending),
        "spending": [
            {
                "letter": chr(65 + index),
                **spend.__dict__,
                "cost_per_passed": spend.cost_per_passed,
                "memory_text": spend.memory_text,
                "store_texts": (spend.ingest_text, spend.search_text, spend.context_text),
            }
            for index, spend in enumerate(comparison.spending)
        ],
    }
    return environment().get_template("compare.html.j2").render(view=view, css=css())


def _run_view(run: Run, letter: str) -> dict[str, Any]:
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
