"""The end-of-session summary: every row a reader needs, within 80 columns; family metrics included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_memorybench.reports.summary import _Table, summary_lines
from pytest_memorybench.results.breakdown import scenario_stats, suite_stats
from tests.pytest_integration.test_plugin import colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.support.runs import results_in

ISOLATED = ("--memorybench", "--span=isolated", "-p", "no:cacheprovider")


def usage(tokens: int = 10, seconds: float = 0.5, cost: float = 0.001) -> dict:
    return {
        "input_tokens": tokens,
        "output_tokens": tokens // 2,
        "seconds": seconds,
        "cost_usd": cost,
        "calls": 1,
    }


def item(suite: str, scenario: str, score: float, category: str | None = None, nodeid: str = "x") -> dict:
    record = {
        "nodeid": nodeid,
        "suite": suite,
        "scenario": scenario,
        "score": score,
        "passed": score >= 1.0,
        "usage": usage(),
        "span_tokens": 100,
        "span_overrun": False,
    }
    return {**record, "category": category} if category else record


def results_for(items: list[dict], metrics: dict | None = None) -> dict:
    scenarios = scenario_stats(items, seed=0)
    if metrics:
        scenarios["beam.knowledge_update_and_other_long_names"]["metrics"] = metrics
    return {
        "run": {"judge": "local"},
        "items": items,
        "suites": suite_stats(items, seed=0),
        "scenarios": scenarios,
        "totals": {
            "score": sum(i["score"] for i in items),
            "max": len(items),
            "passed": sum(i["passed"] for i in items),
            "mean": 0.5,
            "ci95": [0.25, 0.75],
            "agent_tokens_in": 12345,
            "agent_tokens_out": 678,
            "agent_calls": 9,
            "agent_seconds": 12.5,
            "cost_usd": 0.0123,
            "judge_calls": 4,
            "judge_cache_hits": 3,
            "judge_tokens_in": 100,
            "judge_tokens_out": 20,
            "judge_cost_usd": 0.0004,
        },
        "conversations": [],
    }


def test_the_table_has_suite_scenario_category_and_metric_rows_within_80_columns() -> None:
    long_name = "beam.knowledge_update_and_other_long_names"
    items = [
        item("ltm", "ltm.colours", 1.0),
        item("ltm", "ltm.colours", 0.0),
        item("ltm", "ltm.jokes", 1.0),
        item("beam", long_name, 1.0, "abstention"),
        item("beam", long_name, 0.0, "abstention"),
        item("beam", long_name, 0.5, "temporal_reasoning"),
    ]
    lines = summary_lines(
        results_for(items, {"recall@5": 0.8125, "capacity": {"curve": [[1, 1.0], [2, 0.5]]}, "flag": True}),
        "run/results.json",
        "run/report.html",
    )
    table = lines[: lines.index(next(line for line in lines if line.startswith("agent:")))]
    assert all(len(line) <= 79 for line in table), [line for line in table if len(line) > 79]
    assert lines[0].split() == [
        "suite",
        "/",
        "scenario",
        "mean",
        "95%",
        "CI",
        "passed",
        "tokens",
        "secs",
        "cost",
    ]
    rows = {line.split()[0] if not line.startswith("    ·") else line.split()[1]: line for line in table[1:]}
    assert rows["ltm"].split()[1:5] == ["0.667", "[0.33,", "1.00]", "2/3"]
    assert any(
        line.startswith("  colours                      0.500 [0.00, 1.00]     1/2") for line in table
    ), "the suite's own prefix is dropped"
    assert rows["beam"].split()[1] == "0.500"
    at = table.index("  knowledge_update_and_other_long_names")
    assert table[at + 1].split()[:4] == ["0.500", "[0.00,", "1.00]", "1/3"], (
        "a long name gets its own line, uncut"
    )
    assert table[at + 2 : at + 4] == [
        "    recall@5  0.812",
        "    capacity  curve of 2 points (report.html)",
    ]  # a line each, the values aligned
    assert rows["abstention"].split()[2:4] == ["0.500", "[0.00,"] and "1/2" in rows["abstention"]
    assert rows["temporal_reasoning"].split()[2:5] == ["0.500", "-", "0/1"]
    total = next(line for line in table if line.startswith("total"))
    assert total.split()[1:5] == ["0.500", "[0.25,", "0.75]", "3/6"] and "13k" in total and "$0.0123" in total
    assert "agent: 12,345 tokens in, 678 out, 9 calls, 12.5 s, $0.0123" in lines
    assert "judge local: 4 calls, 3 cache hits, 120 tokens, $0.0004" in lines
    assert lines[-2:] == ["results: run/results.json", "report:  run/report.html"]


def test_a_run_prints_the_table_and_writes_intervals(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*ISOLATED, "--agent=oracle")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*= memorybench =*",
            "suite / scenario*mean*95% CI*passed*tokens*secs*cost",
            "ltm*1.000 [[]1.00, 1.00[]]*3/3*",
            "  colours*1.000*3/3*",
            "total*1.000*3/3*",
            "agent: * tokens in, * out, 12 calls, *",
            "judge local: 0 calls, 0 cache hits, 0 tokens, $0.0000",
            "results: .memorybench/runs/*/results.json",
            "report:  .memorybench/runs/*/report.html",
        ]
    )
    table = result.stdout.str().split("= memorybench =")[1].splitlines()
    assert all(len(line) <= 80 for line in table if not line.startswith(("results:", "report:")))
    written = json.loads(next((pytester.path / ".memorybench" / "runs").glob("*/results.json")).read_text())
    assert written["totals"]["mean"] == 1.0 and written["totals"]["ci95"] == [1.0, 1.0]
    assert written["suites"]["ltm"]["ci95"] == [1.0, 1.0]


SUMMARIZE_CONFTEST = """
from pytest_memorybench.scenarios.ltm import colours

def summarize(records):
    assert all(r["scenario"] == "ltm.colours" for r in records)
    hits = sum(r["score"] for r in records) / len(records)
    return {
        "recall@1": hits,
        "items_seen": len(records),
        "capacity": {"curve": [[i + 1, r["score"]] for i, r in enumerate(records)], "x_label": "facts <told>",
                     "y_label": "recall"},
    }

colours.SCENARIO.summarize = summarize
"""


@pytest.fixture
def summarize_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inner run's conftest gives Colours a summarize in this process: taken away after the test."""
    from pytest_memorybench.scenarios.ltm import colours

    monkeypatch.setattr(colours.SCENARIO, "summarize", None, raising=False)  # until the conftest's


@pytest.mark.usefixtures("summarize_restored")
def test_a_scenario_summarize_reaches_results_terminal_and_html(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SUMMARIZE_CONFTEST)
    result = pytester.runpytest(*ISOLATED, "--agent=oracle", "--mb-output=run")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "  colours*",
            "    recall@1    1.000",
            "    items_seen  3",
            "    capacity    curve of 3 points (report.html)",
        ]
    )
    metrics = results_in(pytester.path / "run")["scenarios"]["ltm.colours"]["metrics"]
    assert metrics["recall@1"] == 1.0 and metrics["capacity"]["curve"] == [[1, 1.0], [2, 1.0], [3, 1.0]]
    page = (pytester.path / "run" / "report.html").read_text()
    assert "ltm.colours: capacity</title>" in page and 'stroke-width="2"' in page, "the curve is drawn as SVG"
    assert "facts &lt;told&gt;" in page and "facts <told>" not in page


@pytest.mark.usefixtures("summarize_restored")
def test_a_summarize_that_raises_keeps_the_results(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SUMMARIZE_CONFTEST.replace("hits = ", "hits = 1 / 0 + "))
    result = pytester.runpytest(*ISOLATED, "--agent=oracle", "--mb-output=run")
    result.assert_outcomes(passed=3)
    assert result.ret == 0
    metrics = results_in(pytester.path / "run")["scenarios"]["ltm.colours"]["metrics"]
    assert metrics == {"error": "ltm.colours.summarize: ZeroDivisionError: division by zero"}
    assert (Path(pytester.path) / "run" / "report.html").exists()


@pytest.mark.parametrize(("passed", "scored"), [(250, 1986), (123_456, 654_321)])
def test_columns_never_touch_at_four_and_six_digit_counts(passed: int, scored: int) -> None:
    table = _Table(with_errors=True, passed_width=len(f"{passed}/{scored}"))
    header = table.header()
    [row] = table.row("locomo", 0.126, 0.125, [0.11, 0.14], f"{passed}/{scored}", 12, 128_000, 44.5, 0.0)
    assert row.split() == [
        "locomo",
        "0.126",
        "0.125",
        "[0.11,",
        "0.14]",
        f"{passed}/{scored}",
        "12",
        "128k",
        "44.5",
        "$0.0000",
    ]
    # every column right-aligned under its header, a space before it
    for name, value in (
        ("strict", "0.125"),
        ("passed", f"{passed}/{scored}"),
        ("err", "12"),
        ("tokens", "128k"),
        ("cost", "$0.0000"),
    ):
        end = row.index(f" {value} " if name != "cost" else f" {value}") + 1 + len(value)
        assert header.index(f" {name}") + 1 + len(name) == end, (header, row)
