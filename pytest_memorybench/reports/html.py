"""HTML reports: the standalone `report.html` of a run, and the pieces pytest-html shows.

Agent replies, judge reasons, suite and scenario names are untrusted text: a reply containing
`<script>` must show as those characters.  So the markup lives in Jinja templates with autoescape
on, and Python only builds plain data for them; the one exception, SVG charts, is built by
`svg.py`, which escapes its labels itself.  The standalone page's Content-Security-Policy lets
its own script run (by hash) and no other, so even a templating mistake could not run anything;
that script puts every text in with `textContent`.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader, StrictUndefined
from jinja2.bccache import Bucket
from markupsafe import Markup

from pytest_memorybench.judges.identity import describe_identity, identity_of
from pytest_memorybench.reports.agreement import agreement_rows, disagreements
from pytest_memorybench.reports.ceilings import ceiling_lines
from pytest_memorybench.reports.compare.svg import budget_curves
from pytest_memorybench.reports.judging import judging_lines
from pytest_memorybench.reports.latency_budget import budget_lines
from pytest_memorybench.reports.report_items import item_view, items_view
from pytest_memorybench.reports.summary import (
    NO_CONTEXT,
    compact_count,
    retrieval_lines,
    scenario_retrieval_lines,
    written_text,
)
from pytest_memorybench.reports.svg import line_chart, score_chart
from pytest_memorybench.reports.table import table_rows
from pytest_memorybench.reports.transcript import Entry
from pytest_memorybench.reports.words import excerpt, plain
from pytest_memorybench.results.losses import split_text
from pytest_memorybench.results.schema import GateRecord, ItemRecord, ResultsRecord
from pytest_memorybench.results.stale import stale_lines

TEMPLATES = Path(__file__).parent / "templates"


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The templates, autoescaped, with the report's formatting helpers."""
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES),
        bytecode_cache=_compiled_templates(),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.globals.update(fmt=_fmt, ci=_ci, count=compact_count, pval=_pval)
    environment.filters["excerpt"] = excerpt
    return environment


class _CompiledTemplates(FileSystemBytecodeCache):
    """Jinja's own cache of compiled templates, in its folder of the system's temporary directory,
    keyed by each template's text: compiling the report's templates took a tenth of a second of
    every run's end.  A cache that cannot be written is no error of the run's."""

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _compiled_templates() -> FileSystemBytecodeCache | None:
    """The cache, or None where its folder cannot be made (the templates compiled each time)."""
    try:
        return _CompiledTemplates()
    except (OSError, RuntimeError):
        return None


def _pval(value: float | None) -> str:
    if value is None:
        return "-"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def css() -> Markup:
    """report.html's style sheet, inlined so the page stands alone."""
    return Markup((TEMPLATES / "report.css").read_text(encoding="utf-8"))


def summary_fragment(results: ResultsRecord, gate: GateRecord | None = None) -> str:
    """Score cards, the gate and each suite's chart and table, with the styles they need."""
    macros = environment().get_template("macros.html.j2").module
    return str(Markup("<style>") + css() + Markup("</style>") + macros.summary(summary_view(results, gate)))  # type: ignore[attr-defined]


def item_fragment(record: ItemRecord, transcript: list[Entry] | None) -> str:
    """One item: score bar, expected and given answers, reasons, and its own transcript."""
    macros = environment().get_template("macros.html.j2").module
    return str(macros.item(item_view(record, transcript)))  # type: ignore[attr-defined]


def report_page(
    results: ResultsRecord,
    transcripts: Mapping[str, list[Entry] | None],
    gate: GateRecord | None = None,
    facts: Mapping[str, str] | None = None,
) -> str:
    """The standalone report.html: no external resource, readable offline, one script of our own
    (the items' list) and no other."""
    view = summary_view(results, gate)
    items = items_view(results["items"], transcripts)
    view["item_list"] = {**items, "data": json_block(items["data"])}
    run = results["run"]
    view["span"] = (
        ", ".join(f"{name}={span}" for name, span in run.get("span", {}).items()) or "- (no interleaving)"
    )
    view["facts"] = [
        (name, str(value))
        for name, value in {
            "run id": run.get("id"),
            "agent": run.get("agent"),
            "judge": describe_identity(identity_of(run)),
            "seed": run.get("seed"),
            "profile": run.get("profile"),
            "started": run.get("started"),
            "finished": run.get("finished"),
            "pytest-memorybench": run.get("package_version"),
            "token counter": run.get("token_counter"),
            "resumed": run.get("resumed"),
            "replayed from": run.get("replayed_from"),
            "re-scored from": run.get("rescored_from"),
            "no context": NO_CONTEXT if run.get("no_context") else None,
            **(facts or {}),
        }.items()
        if value is not None
    ]
    view["agreement"] = {
        "rows": agreement_rows(results["items"]),
        "disagreements": disagreements(results["items"]),
        "skipped": run.get("rescore_skipped", []),
    }
    script, script_hash = page_script("report_items.js")
    return (
        environment()
        .get_template("report.html.j2")
        .render(view=view, css=css(), script=script, script_hash=script_hash)
    )


def json_block(data: Any) -> Markup:
    """Data for a page's `<script type="application/json">`: compact, and no `<` that could end it."""
    return Markup(json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c"))


def page_script(name: str) -> tuple[Markup, str]:
    """A page's own script (the paged list, then the page's part), and its hash for the page's
    Content-Security-Policy: this script runs, no other (an agent's reply that holds one stays text)."""
    script = "\n".join((TEMPLATES / part).read_text(encoding="utf-8") for part in ("paged_list.js", name))
    return Markup(script), base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


# -- plain data for the templates ------------------------------------------------------------------


def summary_view(results: ResultsRecord, gate: GateRecord | None) -> dict[str, Any]:
    """What report.html's summary shows, as the template reads it."""
    return {
        "totals": results["totals"],
        "run": results["run"],
        "gate": gate,
        "suites": _suites(results),
        "judging": judging_lines(results["totals"].get("judging")),
        "losses": _loss_lines(results),
        "retrieval": _retrieval_lines(results),
        "ceilings": ceiling_lines(results),
        "latency_budget": _latency_budget(results),
    }


def _retrieval_lines(results: ResultsRecord) -> list[str]:
    """Evidence recall, precision beside it, and the stale-fact rate, where the run measured them."""
    recall = results["totals"].get("evidence_recall")
    stale = stale_lines(results["totals"].get("stale_facts"))
    scenarios = [line.strip() for line in scenario_retrieval_lines(results)] if recall else []
    return [*(retrieval_lines(recall) if recall else []), *scenarios, *(line.strip() for line in stale)]


def _latency_budget(results: ResultsRecord) -> dict[str, Any] | None:
    """The run's accuracy under a latency budget: its lines, and its curve."""
    record = results["totals"].get("latency_budget")
    if not record:
        return None
    curve = budget_curves({"this run": record}, title="accuracy within a latency budget")
    return {"lines": budget_lines(record), "chart": Markup(curve)}


def _loss_lines(results: ResultsRecord) -> list[str]:
    """Where the answers were lost: the run's split and what the memory wrote, then each suite's and
    scenario category's split."""
    lines = [split_text(results["totals"].get("losses")), written_text(results["totals"].get("written"))]
    for name, suite in results.get("suites", {}).items():
        text = split_text(suite.get("losses"))
        lines.append(f"{name}: {text}" if text and len(results["suites"]) > 1 else None)
    for name, scenario in results.get("scenarios", {}).items():
        for category, stats in (scenario.get("categories") or {}).items():
            text = split_text(stats.get("losses"))
            lines.append(f"{name} · {category}: {text}" if text else None)
    return [line for line in lines if line]


# Columns a scenario's per-category metric table adds to its category rows, with what they mean
# (LoCoMo's Wilson intervals); a column not named here shows under its own name.
CATEGORY_COLUMNS = {
    "wilson": ("Wilson 95%", "Wilson's score interval of the category's mean"),
    "separable": (
        "resolves ±",
        "half the Wilson interval: the smallest difference between two runs this category can tell apart",
    ),
}


def _suites(results: ResultsRecord) -> list[dict[str, Any]]:
    suites: list[dict[str, Any]] = []
    chart_rows: list[tuple[str, float | None, list[float] | None]] = []
    by_category: dict[str, dict[str, Any]] = {}  # the current scenario's per-category metric columns
    for row in table_rows(results):
        if row.level == "suite":
            chart_rows = []
            suites.append({"name": row.name, "rows": [], "chart_rows": chart_rows, "curves": [], "extra": []})
        suite = suites[-1]
        every = (row.stats.get("metrics") or {}) if row.level == "scenario" else {}
        metrics = every
        if row.level == "scenario":
            metrics, by_category = _category_columns(every, set(row.stats.get("categories") or {}))
            for column in dict.fromkeys(column for values in by_category.values() for column in values):
                if column not in suite["extra"]:
                    suite["extra"].append(column)
        extra = by_category.get(row.name, {}) if row.level == "category" else {}
        suite["rows"].append(
            {
                "extra": extra,
                "label": row.label,
                "level": row.level,
                "mean": row.stats["mean"],
                "strict": row.strict,
                "ci95": row.stats.get("ci95"),
                "n": row.scored,
                "errors": row.errors,
                "passed": row.passed,
                "score": row.score,
                "tokens": row.tokens,
                "seconds": row.seconds,
                "cost": row.cost,
                "metrics": _metric_text(metrics, tables=every),
                "grids": [
                    {"name": name, **grid} for name, value in metrics.items() if (grid := _grid(value))
                ],
            }
        )
        if row.level == "scenario":
            chart_rows.append((row.label, row.stats["mean"], row.stats.get("ci95")))
            suite["curves"].extend(
                Markup(
                    line_chart(
                        value["curve"],
                        title=f"{row.name}: {name}",
                        x_label=str(value.get("x_label", "")),
                        y_label=str(value.get("y_label", "")),
                    )
                )
                for name, value in metrics.items()
                if isinstance(value, dict) and isinstance(value.get("curve"), list)
            )
    for suite in suites:
        rows = suite.pop("chart_rows")
        suite["chart"] = Markup(score_chart(rows, title=f"{suite['name']}: mean score per scenario, 95% CI"))
        names = suite.pop("extra")
        suite["extra"] = [
            {
                "name": name,
                "label": CATEGORY_COLUMNS.get(name, (name, ""))[0],
                "means": CATEGORY_COLUMNS.get(name, ("", ""))[1],
            }
            for name in names
        ]
        for line in suite["rows"]:
            line["extra"] = [_cell(line["extra"].get(name)) for name in names]
    return suites


def _category_columns(
    metrics: Mapping[str, Any], categories: set[str]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A scenario's metrics without the table that is one row per category (LoCoMo's Wilson
    intervals), and that table's columns by category, for its category rows: each category is
    shown once, its mean and n where the other rows have them."""
    rest, columns = dict(metrics), {}
    for name, value in metrics.items():
        if categories and _grid(value) and set(value) <= categories:
            del rest[name]
            columns = {
                category: {column: cell for column, cell in row.items() if column not in ("mean", "n")}
                for category, row in value.items()
            }
    return rest, columns


def _metric_text(metrics: Mapping[str, Any], tables: Mapping[str, Any]) -> str:
    """A scenario's metrics as one line of words; a text metric that names a cell of one of its
    `tables` ("multi_hop Wilson", the terminal's line for that interval) is left to the table, and
    a table is drawn on its own."""
    in_tables = {
        f"{row} {column}".lower()
        for value in tables.values()
        if _grid(value)
        for row, columns in value.items()
        for column in columns
    }
    parts = []
    for name, value in metrics.items():
        if isinstance(value, bool) or value is None:
            parts.append(f"{name}: {value}")
        elif isinstance(value, float):
            parts.append(f"{name}: {value:.3f}")
        elif isinstance(value, str) and name.lower() in in_tables:
            continue
        elif isinstance(value, (int, str)):
            parts.append(f"{name}: {value}")
        elif isinstance(value, dict) and "curve" in value:
            parts.append(f"{name}: curve (chart above)")
        elif _grid(value):
            continue  # drawn as a table of its own, captioned with its name
        else:
            parts.append(f"{name}: {plain(value)}")
    return " · ".join(parts)


def _cell(value: Any) -> Any:
    """A grid's cell: a number, an interval ([low, high]: LoCoMo's Wilson bounds) as text, or
    anything else as it is (and the grid refused)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        return f"[{value[0]:.2f}, {value[1]:.2f}]"
    return value


def _grid(value: Any) -> dict[str, Any] | None:
    """A metric that is a table ({row: {column: number}}, as BEAM's size × ability), as a grid."""
    if not isinstance(value, dict) or not value or not all(isinstance(row, dict) for row in value.values()):
        return None
    names = [str(name) for name in value]
    columns = list(dict.fromkeys(str(column) for row in value.values() for column in row))
    cells = [[_cell(row.get(column)) for column in columns] for row in value.values()]
    if not all(cell is None or isinstance(cell, (int, float, str)) for line in cells for cell in line):
        return None
    if len(columns) > len(names):  # long side down: a page has more room for rows than columns
        names, columns, cells = columns, names, [list(line) for line in zip(*cells, strict=False)]
    return {
        "columns": columns,
        "rows": [{"name": name, "cells": line} for name, line in zip(names, cells, strict=True)],
    }


def _fmt(value: int | float | str | None) -> str:
    """A number as the tables print it (whole numbers as counts), or text as it is."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return f"{value:,}"
    return "-" if value is None else f"{value:.3f}"


def _ci(value: list[float] | None) -> str:
    return f"[{value[0]:.2f}, {value[1]:.2f}]" if value else "-"
