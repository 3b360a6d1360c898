"""The strict mean (every item, one that errored counting 0) beside every mean, in every output.

A run whose agent fails on one of three Colours tests: the two it answered are right, so its mean
is 1.000, while a user of it gets two right answers in three, 0.667.  The table, results.json,
the Markdown summary, report.html, a comparison and the gate each say both.
"""

from __future__ import annotations

import json
import re

import pytest

from pytest_memorybench.reports.summary import summary_lines
from tests.pytest_integration.test_plugin import LAST_STATEMENT_AGENT, colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.reports.test_report_summary import item, results_for
from tests.support.runs import QUIET, Benchmark, run_benchmark

ISOLATED = ("--span=isolated", *QUIET)
FAILS_ON_GOLD = LAST_STATEMENT_AGENT.replace(  # right on every colour but gold, where it raises
    '        if "?" in message.text:',
    "        if 'Gold' in message.text:\n"
    "            raise RuntimeError('model server is down')\n"
    '        if "?" in message.text:',
)


@pytest.fixture
def errored_run(pytester: pytest.Pytester) -> Benchmark:
    pytester.makeconftest(FAILS_ON_GOLD)
    return run_benchmark(pytester, *ISOLATED, "--mb-markdown=summary.md", folder="errored")


def test_a_run_with_an_error_has_a_strict_mean_below_its_mean_in_every_output(errored_run: Benchmark) -> None:
    results = errored_run.results  # read and checked against the schema
    totals = results["totals"]
    assert (totals["mean"], totals["mean_strict"], totals["max"], totals["errors"]) == (1.0, 0.666667, 2, 1)
    assert results["suites"]["ltm"]["mean_strict"] == 0.666667
    assert results["scenarios"]["ltm.colours"]["mean_strict"] == 0.666667

    table = errored_run.outcome.stdout.str().split("memorybench ===", 1)[1].splitlines()
    assert table[1].split() == [
        "suite", "/", "scenario", "mean", "strict", "95%", "CI", "passed", "err", "tokens", "secs", "cost",
    ]  # fmt: skip
    assert table[2].split()[:3] == ["ltm", "1.000", "0.667"]
    assert next(line for line in table if line.startswith("total")).split()[1:3] == ["1.000", "0.667"]
    assert any(
        line.startswith("1 item errored (agent 1): no score, left out of every mean but the strict one;")
        for line in table
    )

    markdown = (errored_run.folder.parent / "summary.md").read_text()
    assert "| suite / scenario | mean | strict | 95% CI | passed | errors | tokens | cost |" in markdown
    assert "| **total** | **1.000** | 0.667 |" in markdown
    assert "| **ltm** | 1.000 | 0.667 |" in markdown

    page = (errored_run.folder / "report.html").read_text()
    assert re.search(r"<b>0\.667</b><span>strict mean: over every item, an error as 0</span>", page)
    assert re.search(r"<td>ltm</td><td>1\.000</td><td class=\"mb-fail\">0\.667</td>", page)


def test_the_table_has_no_strict_column_without_errors_and_one_within_80_columns_with_them() -> None:
    scored = [item("ltm", "ltm.colours", 1.0), item("ltm", "ltm.colours", 0.0)]
    assert "strict" not in summary_lines(results_for(scored), "run/results.json")[0]
    errored = {**item("ltm", "ltm.colours", 0.0), "score": None, "passed": False}
    results = results_for(scored)
    results["items"].append(errored)  # the rows count it from the items, the total from the totals
    results["totals"].update(errors=1, errors_by_kind={"agent": 1}, mean_strict=0.333333)
    lines = summary_lines(results, "run/results.json")
    table = lines[: lines.index(next(line for line in lines if line.startswith("agent:")))]
    assert all(len(line) <= 79 for line in table), [line for line in table if len(line) > 79]
    assert table[0].split()[3:5] == ["mean", "strict"]
    assert table[1].split()[:3] == ["ltm", "0.500", "0.333"] and table[-1].split()[:3] == [
        "total",
        "0.500",
        "0.333",
    ]


def test_the_strict_gate_fails_the_run_whose_mean_passes(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(FAILS_ON_GOLD)
    allowed = ("--mb-min-score=0.9", "--mb-max-errors=1")
    on_mean = run_benchmark(pytester, *ISOLATED, *allowed, folder="on-mean")
    assert on_mean.results["gate"]["passed"] is True
    on_strict = run_benchmark(
        pytester, *ISOLATED, "--mb-min-score=0.9", "--mb-gate-on=strict", folder="strict"
    )
    gate = on_strict.results["gate"]
    assert gate["passed"] is False and gate["on"] == "strict"
    assert gate["failures"] == [
        "total strict mean 0.667 is below --mb-min-score 0.900 (an item that errored counts 0)"
    ]
    on_strict.outcome.stdout.fnmatch_lines(
        [
            "note: 1 of 3 items errored (agent): counted as wrong (--mb-gate-on strict)",
            "gated on the strict means: every item, one that errored counting 0 (--mb-gate-on strict)",
            "gate FAILED: total strict mean 0.667 is below --mb-min-score 0.900*",
        ]
    )
    assert on_strict.outcome.ret == pytest.ExitCode.TESTS_FAILED


def test_a_comparison_sets_each_runs_strict_mean_beside_its_mean(
    pytester: pytest.Pytester,
    errored_run: Benchmark,
) -> None:
    pytester.makeconftest("")
    oracle = run_benchmark(pytester, *ISOLATED, "--agent=oracle", folder="oracle")
    out = pytester.path / "compared"
    result = pytester.runpytest(
        "--mb-compare", str(oracle.folder), str(errored_run.folder), f"--mb-output={out}",
        f"--mb-markdown={out / 'c.md'}", "--mb-label=oracle", "--mb-label=flaky",
    )  # fmt: skip
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "ltm *1.000* *1.000* *",
            "  strict *1.000 *0.667",
            "total *1.000* *1.000* *",
            "  strict *1.000 *0.667",
            "strict: the mean over the shared items and the 1 that errored in a run, an error counting 0",
        ]
    )
    compared = json.loads((out / "compare.json").read_text())
    [total] = compared["tables"]["total"]
    assert [(cell["mean"], cell["strict"], cell["n"], cell["errors"]) for cell in total["cells"]] == [
        (1.0, 1.0, 2, 0),
        (1.0, 0.666667, 2, 1),
    ]
    assert "| **total** | 1.000 - · strict 1.000 | 1.000 - · strict 0.667 |" in (
        out / "c.md"
    ).read_text() or ("strict 0.667" in (out / "c.md").read_text())
    page = (out / "compare.html").read_text()
    assert "<th>A mean</th><th>strict</th>" in page and '<td class="mb-fail">0.667</td>' in page
