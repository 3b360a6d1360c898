"""`--mb-compare`: several runs side by side, checked against a hand computation from their results.json."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.reports.compare.comparison import compare
from pytest_memorybench.reports.compare.runs import load_runs
from pytest_memorybench.reports.compare.significance import holm, wilcoxon_p
from pytest_memorybench.reports.markdown import STEP_SUMMARY, comparison_markdown, run_markdown
from tests.support.runs import results_in

BASE = ("--memorybench", "-p", "no:cacheprovider", "-p", "no:randomly", "--span=isolated")
RUN = (*BASE, "-k", "colours or trigger_response")


def make_run(pytester: pytest.Pytester, agent: str, *extra: str) -> Path:
    """A run of `agent` on Colours and Trigger Response (isolated), in a folder named after it."""
    output = pytester.path / "".join(["run-", agent, *extra]).replace("=", "-")
    pytester.runpytest(*RUN, f"--agent={agent}", f"--mb-output={output}", *extra)
    return output


def items(folder: Path) -> dict[str, dict[str, Any]]:
    return {item["nodeid"]: item for item in results_in(folder)["items"]}


def test_the_table_pairs_and_ranks_agree_with_a_hand_computation(pytester: pytest.Pytester) -> None:
    folders = []
    for agent in ("oracle", "recall", "null"):  # the whole isolated suite: enough items for a test to tell
        pytester.runpytest(*BASE, f"--agent={agent}", f"--mb-output={agent}")
        folders.append(pytester.path / agent)
    comparison = compare(load_runs([str(folder) for folder in folders]))
    assert [run.label for run in comparison.runs] == ["oracle", "recall", "null"], (
        "labelled by what tells them apart"
    )
    scored = [items(folder) for folder in folders]
    assert comparison.shared == sorted(scored[0]) and not comparison.left_out
    for suite_rows in comparison.tables.values():
        for row in suite_rows:
            if row.level != "scenario":
                continue
            for cell, run_items in zip(row.cells, scored, strict=True):
                members = [item for item in run_items.values() if item["scenario"].endswith("." + row.label)]
                assert cell.mean == pytest.approx(sum(item["score"] for item in members) / len(members))
                assert (cell.passed, cell.n) == (sum(item["passed"] for item in members), len(members))
    [total] = comparison.tables["total"]
    assert [cell.mean for cell in total.cells] == pytest.approx(
        [sum(item["score"] for item in run.values()) / len(run) for run in scored], abs=1e-6
    )
    assert total.best == {0}, "the oracle's row"

    by_pair = {(pair.a, pair.b): pair for pair in comparison.pairs}
    oracle_null = by_pair["oracle", "null"]
    keys = sorted(scored[0])
    raw = [
        wilcoxon_p([scored[a][k]["score"] for k in keys], [scored[b][k]["score"] for k in keys])
        for a, b in ((0, 1), (0, 2), (1, 2))
    ]
    assert [pair.p for pair in comparison.pairs] == pytest.approx(raw)
    assert [pair.p_holm for pair in comparison.pairs] == pytest.approx(holm(raw))
    assert oracle_null.difference == pytest.approx(-1.0) and oracle_null.significant
    assert oracle_null.verdict() == "oracle is better (p < 0.001, Holm)"
    assert comparison.ranks["oracle"] < comparison.ranks["recall"] <= comparison.ranks["null"]


def test_a_run_against_its_own_resume_shows_no_difference(pytester: pytest.Pytester) -> None:
    first = make_run(pytester, "recall")
    again = pytester.path / "again"
    shutil.copytree(first, again)
    pytester.runpytest(*RUN, "--agent=recall", f"--mb-resume={again}")
    [pair] = compare(load_runs([str(first), str(again)], ["first", "resumed"])).pairs
    assert pair.difference == 0 and pair.p == 1.0 and not pair.significant
    assert pair.verdict() == "no significant difference (p = 1.000, Holm)"


def test_left_out_items_are_counted_by_why(pytester: pytest.Pytester) -> None:
    whole = make_run(pytester, "oracle")
    part = pytester.path / "part"
    pytester.runpytest(*RUN[:-2], "-k", "colours", "--agent=oracle", f"--mb-output={part}")
    broken = pytester.path / "broken"
    shutil.copytree(whole, broken)
    results = results_in(broken)
    results["items"][0]["score"] = None  # errored in that run
    results["items"][1]["definition"] = "another"  # another test under the same name
    (broken / "results.json").write_text(json.dumps(results))
    comparison = compare(load_runs([str(whole), str(part), str(broken)], ["whole", "part", "broken"]))
    names = sorted(items(whole))
    assert comparison.left_out["not in every run"] == [name for name in names if "trigger" in name]
    assert comparison.left_out["errored in a run"] == [results["items"][0]["nodeid"]]
    assert comparison.left_out["different definitions"] == [results["items"][1]["nodeid"]]
    assert len(comparison.shared) == 1


def test_two_spans_of_one_agent_make_a_span_curve(pytester: pytest.Pytester) -> None:
    folders = []
    for span in ("1k", "2k"):
        folder = pytester.path / f"span-{span}"
        pytester.runpytest(
            *RUN[:5], f"--span={span}", "-k", "colours", "--agent=recall", f"--mb-output={folder}"
        )
        folders.append(str(folder))
    result = pytester.runpytest("--mb-compare", *folders, "--mb-output=cmp", "--mb-compare-anyway")
    result.stdout.fnmatch_lines(
        [
            "A = 1k  (*)",
            "B = 2k  (*)",
            "scale: 1 curve(s) over 1k, 2k tokens",
            "figures:    cmp/bars.svg, cmp/span.svg, cmp/span_cost.svg, cmp/span_latency.svg,"
            " cmp/latency_budget.svg",
        ]
    )
    svg = ET.parse(pytester.path / "cmp" / "span.svg").getroot()  # a standalone SVG document
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert "mean score against memory span (tokens)" in ET.tostring(svg, encoding="unicode")


def test_the_command_writes_page_json_figures_and_markdown(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = [str(make_run(pytester, agent)) for agent in ("oracle", "recall", "null")]
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv(STEP_SUMMARY, str(summary))
    result = pytester.runpytest("--mb-compare", *folders, "--mb-output=cmp", "--mb-markdown=cmp/table.md")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*= memorybench comparison =*",
            "A = oracle  (*)",
            "paired by node id on 6 item(s) every run scored",
            "total   *1.000* [[]1.00,1.00[]]*0.000 *",
            "B − A  -* n=6  no significant difference (p = *, Holm)",
            "average rank: A *, B *, C *",
            "comparison: cmp/compare.html",
            "figures:    cmp/bars.svg, cmp/latency_budget.svg, cmp/cd.svg, cmp/board.svg",
            "markdown:   cmp/table.md",
            f"markdown:   ${STEP_SUMMARY}",
        ]
    )
    saved = json.loads((pytester.path / "cmp" / "compare.json").read_text())
    assert saved["schema"] == "memorybench.comparison/1" and saved["shared"] == 6 and len(saved["pairs"]) == 3
    page = (pytester.path / "cmp" / "compare.html").read_text()
    assert "Is one better than another?" in page and "Every question, side by side" in page
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    assert [attributes for attributes, _ in scripts] == [' type="application/json" id="mb-q-data"', ""]
    digest = base64.b64encode(hashlib.sha256(scripts[1][1].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page, "the page's own script may run, no other"
    assert len(json.loads(scripts[0][1])["items"]) == 6
    markdown = (pytester.path / "cmp" / "table.md").read_text()
    assert markdown.startswith("### memorybench comparison") and "| B − A |" in markdown
    assert "| 1 | A oracle | 1.000 [1.00, 1.00] | 6/6 |" in markdown, "the board, ranked"
    assert summary.read_text().strip() == markdown.strip(), "appended to the GitHub job summary"
    for name in ("bars", "latency_budget", "cd", "board"):
        assert (
            ET.parse(pytester.path / "cmp" / f"{name}.svg").getroot().tag == "{http://www.w3.org/2000/svg}svg"
        )


def test_a_run_writes_its_markdown_summary(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        *RUN, "--agent=recall", "--mb-output=run", "--mb-markdown=run.md", "--mb-min-score=0.1"
    )
    result.stdout.fnmatch_lines(["markdown: run.md"])
    text = (pytester.path / "run.md").read_text()
    results = results_in(pytester.path / "run")
    assert text == run_markdown(results, results["gate"])
    assert "| **total** |" in text and "✅ gate passed" in text and "agent replies: p50" in text


@pytest.mark.parametrize(
    ("make", "message"),
    [
        ("missing", "--mb-compare missing: no such file or folder; give run folders or their results.json"),
        (
            "not-results",
            (
                "--mb-compare not-results.json: not a pytest-memorybench results.json (schema missing); give"
                " the results.json of a pytest-memorybench run"
            ),
        ),
        ("one", "--mb-compare needs two runs or more (run folders or results.json files)"),
        (
            "other-seed",
            (
                "--mb-compare: the runs share no scored item (same test, same definition); left out: 6"
                " different definitions"
            ),
        ),
        (
            "other-profile",
            (
                "--mb-compare: the runs were scored with different profiles (*); their scores are not"
                " comparable: compare runs of one profile, or pass --mb-compare-anyway"
            ),
        ),
        ("labels", "--mb-label was given 1 time(s) for 2 runs; give one label per run, in order"),
        (
            "other-judge",
            (
                "--mb-compare: * and * were judged differently (judge local vs openai:gpt-4o-mini); their"
                " scores are not comparable: judge both alike, or pass --mb-compare-anyway"
            ),
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_4(pytester: pytest.Pytester, make: str, message: str) -> None:
    first = str(make_run(pytester, "recall"))
    arguments = {
        "missing": [first, "missing"],
        "one": [first],
        "labels": [first, first, "--mb-label=only"],
    }.get(make)
    if make == "not-results":
        (pytester.path / "not-results.json").write_text('{"hello": 1}')
        arguments = [first, "not-results.json"]
    elif make == "other-seed":
        arguments = [first, str(make_run(pytester, "recall", "--mb-seed=1"))]
    elif make == "other-profile":
        arguments = [first, str(make_run(pytester, "recall", "--mb-profile=official"))]
    elif make == "other-judge":  # as if an LLM judge had scored the same replies
        results = results_in(Path(first))
        results["run"]["judge"] = results["run"]["judge_identity"]["spec"] = "openai:gpt-4o-mini"
        (pytester.path / "llm-judged.json").write_text(json.dumps(results))
        arguments = [first, "llm-judged.json"]
    result = pytester.runpytest("--mb-compare", *arguments)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "Traceback" not in result.stderr.str()


def test_a_rescored_leaderboard_splits_into_its_agents_and_a_users_run_joins_by_test_id(
    tmp_path: Path,
) -> None:
    def item(suite: str, test_id: str, score: float) -> dict[str, Any]:
        return {
            "nodeid": f"{suite}::{test_id}",
            "suite": suite,
            "scenario": "ltm.colours",
            "test_id": test_id,
            "definition": f"def-{test_id}",
            "score": score,
            "passed": score >= 1,
            "usage": {},
        }

    published = {
        "schema": "memorybench.results/1",
        "run": {"agent": None, "rescored_from": "Benchmark 3", "profile": "official", "judge": "local"},
        "suites": {"gpt-4o": {}, "claude": {}},
        "items": [
            item("gpt-4o", "colours[rep1]", 1),
            item("gpt-4o", "colours[rep2]", 0),
            item("claude", "colours[rep1]", 0),
            item("claude", "colours[rep2]", 0),
        ],
    }
    mine = {
        "schema": "memorybench.results/1",
        "run": {"agent": "mine", "profile": "official", "judge": "local"},
        "suites": {"goodai-definitions": {}},
        "items": [
            item("goodai-definitions", "colours[rep1]", 1),
            item("goodai-definitions", "colours[rep2]", 1),
        ],
    }
    (tmp_path / "published.json").write_text(json.dumps(published))
    (tmp_path / "mine.json").write_text(json.dumps(mine))
    comparison = compare(load_runs([str(tmp_path / "published.json"), str(tmp_path / "mine.json")]))
    assert [run.label for run in comparison.runs] == ["gpt-4o", "claude", "mine"]
    assert comparison.keyed_by == "test id" and comparison.shared == ["colours[rep1]", "colours[rep2]"]
    assert [cell.mean for cell in comparison.tables["total"][0].cells] == [0.5, 0.0, 1.0]
    assert list(comparison.tables) == ["ltm", "total"], "rows grouped by benchmark family"
    assert "| **total** |" in comparison_markdown(comparison)


def test_wilcoxon_and_holm_match_their_definitions() -> None:
    assert wilcoxon_p([0.0] * 5, [0.0] * 5) == 1.0, "no pair differs"
    assert wilcoxon_p([], []) is None
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.2, None]) == [0.2, None]
    with pytest.raises(UsageError, match="--mb-compare-to 'z' is none of the runs"):
        compare(load_runs_from_dicts(), compare_to="z")


def _p_over_every_flip(a: list[float], b: list[float]) -> float:
    """The exact signed-rank p by its definition: the statistic for each of the 2**n flips of the
    differences' signs (zeros left out, ties at their mean rank), as recent SciPy enumerates it."""
    from scipy.stats import rankdata

    differences = [x - y for x, y in zip(a, b, strict=True) if x != y]
    ranks = [float(rank) for rank in rankdata([abs(difference) for difference in differences])]
    observed = sum(rank for rank, difference in zip(ranks, differences, strict=True) if difference > 0)
    sums = [
        sum(rank for rank, positive in zip(ranks, signs, strict=True) if positive)
        for signs in itertools.product((False, True), repeat=len(differences))
    ]
    below = sum(total <= observed for total in sums) / len(sums)
    above = sum(total >= observed for total in sums) / len(sums)
    return min(1.0, 2 * min(below, above))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([0.0, 1.0, 1.0, 0.0, 1.0, 0.5, 1.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.25]),  # zeros and ties
        ([0.2, 0.4, 0.4, 0.9, 0.1, 0.7, 0.3, 0.6], [0.1, 0.6, 0.2, 0.5, 0.1, 0.2, 0.1, 0.4]),  # ties only
    ],
)
def test_wilcoxon_with_ties_or_zeros_is_the_exact_permutation_p_counted(
    a: list[float], b: list[float]
) -> None:
    """With tied or zero differences over at most 13 pairs, recent SciPy enumerates every flip of
    their signs, a second or two a pair (older SciPy, our lowest, took the normal approximation); the
    same distribution is counted instead, to the same float, whatever SciPy is installed."""
    assert wilcoxon_p(a, b) == _p_over_every_flip(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([0.1, 0.2, 0.3, 0.4], [0.5, 0.7, 0.2, 0.9]),  # no tie, no zero: SciPy's exact distribution
        ([1.0] * 14, [0.0] * 9 + [1.0] * 5),  # past 13 pairs: SciPy's normal approximation
    ],
)
def test_wilcoxon_without_ties_or_past_thirteen_pairs_is_scipys(a: list[float], b: list[float]) -> None:
    import scipy.stats

    expected = scipy.stats.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided").pvalue
    assert wilcoxon_p(a, b) == float(expected)


def test_wilcoxon_with_every_pair_tied_is_counted_by_hand() -> None:
    # three differences of 1: each rank 2, the positive ranks sum to 0, 2, 2, 2, 4, 4, 4 or 6 over the
    # eight flips, and 6 was seen: P(T >= 6) = 1/8, two-sided 1/4
    assert wilcoxon_p([1.0, 1.0, 1.0], [0.0, 0.0, 0.0]) == 0.25


def load_runs_from_dicts() -> list[Any]:
    from pytest_memorybench.reports.compare.runs import FinishedRun

    results = {
        "items": [
            {"nodeid": "s::t", "suite": "s", "scenario": "s.t", "test_id": "t", "score": 1.0, "passed": True}
        ],
        "run": {},
    }
    return [FinishedRun("a", Path("a"), results), FinishedRun("b", Path("b"), results)]
