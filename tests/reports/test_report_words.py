"""No raw record on any page or terminal line: every suite's report and table read as words and tables."""

from __future__ import annotations

import html
import re

import pytest

from tests.support.runs import QUIET, run_benchmark

SUITES = ("ltm", "ltm_extended", "locomo", "longmemeval", "beam", "episodic", "membench")
RAW = re.compile(r"""\{\s*["']|\[\s*\{""")  # a JSON object, a Python dict, a list of records


def harness_text(page: str) -> str:
    """What the harness itself writes on a page, as a reader sees it: no scripts, styles or tags,
    and not the benchmark's own content (its questions, expected answers and conversations, which
    may be JSON: GoodAI's key-value pairs, its answers "in JSON"), nor the agent's replies."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    body = re.sub(r'<dl class="mb-qa">.*?</dl>', " ", body, flags=re.S)
    body = re.sub(r'<details class="mb-transcript-box".*?</details>', " ", body, flags=re.S)
    body = re.sub(r"<details><summary>details</summary>.*?</details>", " ", body, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def table_text(output: str) -> str:
    """The terminal's memorybench summary (the table and the lines under it, up to where it names
    the results file), not pytest's own report of each failed item, which quotes the questions."""
    table = output.split("= memorybench =", 1)[-1]
    return table.split("\nresults: ", 1)[0]


@pytest.mark.parametrize("suite", SUITES)
def test_a_suites_report_and_table_hold_no_raw_record(pytester: pytest.Pytester, suite: str) -> None:
    run = run_benchmark(pytester, "--agent=recall", f"--mb-suite={suite}", "--mb-sample=20", *QUIET)
    text = harness_text((run.folder / "report.html").read_text())
    found = RAW.search(text)
    assert found is None, text[max(found.start() - 200, 0) : found.end() + 200]
    table = table_text(run.outcome.stdout.str())
    assert RAW.search(table) is None, table
