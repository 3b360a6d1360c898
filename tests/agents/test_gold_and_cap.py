"""The answerer's ceiling and the equal terms: the `gold` store, `--mb-context-tokens`, and where
each answer was lost, on LoCoMo with the scripted model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.results.losses import loss_class
from tests.reports.test_browser_report import CHROMIUM
from tests.support.cdp import Browser
from tests.support.llm_server import LLMServer
from tests.support.memory_model import MemoryModelScript, scripted_memory_server
from tests.support.paths import REFERENCE
from tests.support.runs import QUIET, run_benchmark

LOCOMO = REFERENCE / "locomo" / "locomo10.json"


@pytest.fixture
def model() -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    with scripted_memory_server() as served:
        yield served


def run(pytester: pytest.Pytester, model: Any, store: str, *extra: str) -> dict[str, Any]:
    server, _ = model
    agent = f"--agent={store}:openai:fake-model@{server.openai_url}"
    return run_benchmark(
        pytester, agent, "--mb-suite=locomo", "--mb-profile=official", *QUIET, *extra
    ).results


def test_gold_finds_every_question_its_evidence_and_none_finds_nothing(
    pytester: pytest.Pytester, model: Any
) -> None:
    gold, none = run(pytester, model, "gold"), run(pytester, model, "none")
    assert gold["totals"]["evidence_recall"]["mean"] == 1.0
    assert gold["totals"]["evidence_recall"]["context_mean"] == 1.0
    # gold returns the evidence and nothing else: every memory is evidence; none returns nothing
    assert gold["totals"]["evidence_recall"]["precision_mean"] == 1.0
    assert gold["totals"]["evidence_recall"]["context_precision_mean"] == 1.0
    assert "precision_mean" not in none["totals"]["evidence_recall"]
    for results in (gold, none):
        split = results["totals"]["losses"]
        assert sum(split["counts"].values()) == results["totals"]["max"]  # every scored item in one class
    counts = none["totals"]["losses"]["counts"]
    assert counts["found_right"] == counts["found_wrong"] == counts["cut_from_prompt"] == 0
    assert gold["totals"]["losses"]["counts"]["not_retrieved"] == 0
    assert "losses" in gold["suites"]["locomo"] and "losses" in gold["scenarios"]["locomo.conversations"]


def test_a_context_cap_cuts_what_search_found_from_the_prompt(pytester: pytest.Pytester, model: Any) -> None:
    capped = run_benchmark(
        pytester,
        f"--agent=gold:openai:fake-model@{model[0].openai_url}",
        "--mb-suite=locomo",
        "--mb-profile=official",
        "--mb-context-tokens=12",
        *QUIET,
    )
    assert "agent gold:openai:fake-model@" in capped.outcome.stdout.str()
    assert "(k 10, memory within 12 tokens)" in capped.outcome.stdout.str()
    split = capped.results["totals"]["losses"]
    assert split["counts"]["cut_from_prompt"] + split["counts"]["right_without"] == split["labelled"]
    assert capped.results["totals"]["evidence_recall"]["context_mean"] == 0.0


@pytest.mark.e2e  # three whole runs of 200 questions of the published file
@pytest.mark.skipif(not LOCOMO.exists(), reason="../shared/reference/locomo is not here")
def test_on_locomo_gold_is_the_ceiling_and_none_the_floor(pytester: pytest.Pytester, model: Any) -> None:
    data = (f"--mb-data=locomo={LOCOMO}", "--mb-sample=200")
    means = {
        store: run(pytester, model, store, *data)["totals"]["mean"] for store in ("gold", "bm25", "none")
    }
    assert means["gold"] >= means["bm25"] >= means["none"], means


def test_the_cap_is_for_memory_agents(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--memorybench", "--agent=recall", "--mb-context-tokens=500", *QUIET)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --mb-context-tokens 500: the tokens of memory each answer is given*"]
    )


@pytest.fixture
def bm25_and_gold(pytester: pytest.Pytester, model: Any) -> tuple[Path, pytest.RunResult]:
    """Runs of bm25 and gold on LoCoMo, compared: the comparison's folder and its terminal."""
    server, _ = model
    folders = []
    for store in ("bm25", "gold"):
        folder = run_benchmark(
            pytester,
            f"--agent={store}:openai:fake-model@{server.openai_url}",
            "--mb-suite=locomo",
            "--mb-profile=official",
            *QUIET,
            folder=store,
        ).folder
        folders.append(str(folder))
    out = pytester.path / "compared"
    result = pytester.runpytest(
        "--mb-compare", *folders, f"--mb-output={out}", f"--mb-markdown={out / 'c.md'}"
    )
    return out, result


def test_a_comparison_of_bm25_and_gold_sets_their_splits_side_by_side_with_paired_tests(
    pytester: pytest.Pytester, bm25_and_gold: tuple[Path, pytest.RunResult]
) -> None:
    out, result = bm25_and_gold
    result.stdout.fnmatch_lines(
        [
            "where answers were lost*A*B",
            "found and right*%*%",
            "found but answered wrong*%*%",
            "retrieved but cut from the prompt*%*%",
            "not retrieved*%*%",
            "right without the evidence*%*%",
            "B − A: *not retrieved -*(p *",
        ]
    )
    compared = json.loads((out / "compare.json").read_text())["losses"]
    [pair] = compared["pairs"]
    bm25, gold = compared["runs"].values()
    means = [
        json.loads((pytester.path / name / "results.json").read_text())["totals"]["mean"]
        for name in ("bm25", "gold")
    ]
    bm25_gap = means[1] - means[0]
    assert gold["counts"]["not_retrieved"] == 0 < bm25["counts"]["not_retrieved"]
    assert pair["differences"]["not_retrieved"] < 0 and 0 < pair["p"]["not_retrieved"] <= 1
    markdown = (out / "c.md").read_text()
    assert "| where answers were lost | A | B |" in markdown
    board = json.loads((out / "compare.json").read_text())["board"]
    assert {row["run"]: row["to_gold"] for row in board} == {"A": pytest.approx(bm25_gap, abs=1e-6), "B": 0.0}
    page = (out / "compare.html").read_text()
    assert (
        "Where the answers were lost" in page
        and '<option value="found_wrong">found but answered wrong' in page
    )


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium binary (Debian: apt-get install chromium)")
def test_the_comparison_page_filters_the_questions_by_where_they_were_lost(
    pytester: pytest.Pytester, bm25_and_gold: tuple[Path, pytest.RunResult], tmp_path: Path
) -> None:
    out, _ = bm25_and_gold
    items = [
        json.loads((pytester.path / name / "results.json").read_text())["items"] for name in ("bm25", "gold")
    ]
    wrong = {item["nodeid"] for run in items for item in run if loss_class(item) == "found_wrong"}
    assert CHROMIUM is not None
    browser = Browser(CHROMIUM, tmp_path / "profile")
    try:
        browser.open((out / "compare.html").as_uri())
        browser.wait_for("document.body && document.body.dataset.questionsMs")
        browser.choose("mb-q-loss", "found_wrong")
        shown = browser.evaluate(
            "Array.from(document.querySelectorAll('.mb-q-item'), (row) => row.dataset.nodeid)"
        )
    finally:
        browser.close()
    assert wrong and set(shown) == wrong
