"""No raw record on any page or terminal line: every suite's report and table read as words and tables."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from tests.support.runs import QUIET, report_items, run_benchmark

SUITES = ("ltm", "ltm_extended", "locomo", "longmemeval", "beam", "episodic", "membench")
RAW = re.compile(r"""\{\s*["']|\[\s*\{""")  # a JSON object, a Python dict, a list of records


def harness_text(folder: Path) -> str:
    """What the harness itself writes on a run's report.html, as a reader sees it: no scripts,
    styles or tags, and each item's words (its status, place, reasons, judging, details and
    transcript's title); not the benchmark's own content (its questions, expected answers and
    conversations, which may be JSON: GoodAI's key-value pairs, its answers "in JSON"), nor the
    agent's replies or the memories a search returned."""
    page = (folder / "report.html").read_text(encoding="utf-8")
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    lines = [html.unescape(re.sub(r"<[^>]+>", " ", body))]
    for item in report_items(folder):
        lines += [
            item["head"],
            item["where"],
            *item["reasons"],
            item["judging"] or "",
            item["transcript_title"],
        ]
        lines += [f"{label}: {value}" for label, value in item["details"] if isinstance(value, str)]
    return "\n".join(lines)


def table_text(output: str) -> str:
    """The terminal's memorybench summary (the table and the lines under it, up to where it names
    the results file), not pytest's own report of each failed item, which quotes the questions."""
    table = output.split("= memorybench =", 1)[-1]
    return table.split("\nresults: ", 1)[0]


@pytest.mark.parametrize("suite", SUITES)
def test_a_suites_report_and_table_hold_no_raw_record(pytester: pytest.Pytester, suite: str) -> None:
    run = run_benchmark(pytester, "--agent=recall", f"--mb-suite={suite}", "--mb-sample=20", *QUIET)
    text = harness_text(run.folder)
    found = RAW.search(text)
    assert found is None, text[max(found.start() - 200, 0) : found.end() + 200]
    table = table_text(run.outcome.stdout.str())
    assert RAW.search(table) is None, table
