"""Comparisons that say whether a win holds under every rubric: two LoCoMo runs whose order turns
between the strict and the generous rubric, judged by the local judge's band."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reports.test_browser_report import CHROMIUM
from tests.support.cdp import Browser
from tests.support.runs import QUIET, run_benchmark

# Two agents of known style: one exact on half of the questions and silent on the rest, one that
# hedges the right answer everywhere (a generous rubric takes it, a strict one never does).
AGENTS = """
import zlib
from pytest_memorybench.agents.reference.oracle import OracleAgent

class Precise(OracleAgent):
    async def reply(self, message):
        answer = await super().reply(message)
        if answer == "Noted." or zlib.crc32(message.text.encode()) % 2:
            return answer
        return "I don't know."

class Hedging(OracleAgent):
    async def reply(self, message):
        answer = await super().reply(message)
        return answer if answer == "Noted." else "Maybe " + answer.split(",")[0] + ", or something else."
"""
LOCOMO = (
    "--mb-suite",
    "locomo",
    "--mb-profile",
    "official",
    "-k",
    "not adversarial and not cognitive",
    *QUIET,
)


@pytest.fixture
def two_runs(pytester: pytest.Pytester) -> tuple[Path, Path]:
    pytester.makepyfile(styles=AGENTS)
    pytester.syspathinsert()
    runs = []
    for agent in ("Precise", "Hedging"):
        run = run_benchmark(pytester, f"--agent=styles:{agent}", "--mb-judge-band", *LOCOMO, folder=agent)
        runs.append(run.folder)
    return runs[0], runs[1]


def test_a_band_run_reports_three_scores_in_order(two_runs: tuple[Path, Path]) -> None:
    for folder in two_runs:
        results = json.loads((folder / "results.json").read_text())
        band = results["totals"]["judging"]["band"]
        assert band["strict"] <= band["official"] <= band["generous"]
        assert band["official"] == results["totals"]["mean"]
        assert results["run"]["judge_panel"]["band"] is True
        assert set(results["run"]["judge_identity"]["prompts"]) >= {
            "answer",
            "answer/complete",
            "answer/topic",
        }
    hedging = json.loads((two_runs[1] / "results.json").read_text())["totals"]["judging"]["band"]
    assert hedging["strict"] == 0.0 and hedging["generous"] == 1.0


def test_an_order_that_turns_between_rubrics_is_reported_as_judge_dependent(
    pytester: pytest.Pytester, two_runs: tuple[Path, Path]
) -> None:
    out = pytester.path / "compared"
    result = pytester.runpytest(
        "--mb-compare", *map(str, two_runs), f"--mb-output={out}", f"--mb-markdown={out / 'summary.md'}"
    )
    text = "\n".join(result.outlines)
    assert (
        "by judge: B > A only under generous rubric; A > B under strict rubric and official rubric:"
        " judge-dependent"
    ) in text
    assert "B judged: band [0.000, 0.000, 1.000]" in text
    markdown = (out / "summary.md").read_text()
    assert "judge-dependent" in markdown and "judged: band \\[" in markdown
    page = (out / "compare.html").read_text()
    assert "judge-dependent" in page and "the judges disagree" in page
    orders = json.loads((out / "compare.json").read_text())["judge_orders"]
    assert [order["robust"] for order in orders] == [False]
    assert orders[0]["differences"]["strict rubric"] < 0 < orders[0]["differences"]["generous rubric"]


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium binary (Debian: apt-get install chromium)")
def test_compare_html_filters_the_questions_the_judges_disagree_on_and_shows_each_rubric(
    pytester: pytest.Pytester, two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = pytester.path / "compared"
    pytester.runpytest("--mb-compare", *map(str, two_runs), f"--mb-output={out}")
    hedging = json.loads((two_runs[1] / "results.json").read_text())["items"]
    disagree = [item for item in hedging if len(set(item["judging"]["band"].values())) > 1]
    browser = Browser(CHROMIUM, tmp_path / "profile")
    try:
        browser.open((out / "compare.html").as_uri())
        browser.wait_for("document.body && document.body.dataset.questionsMs")
        browser.choose("mb-q-outcome", "judges disagree")
        count = browser.evaluate("document.getElementById('mb-q-count').textContent")
        browser.evaluate("document.querySelector('.mb-q-item').open = true")
        browser.wait_for("document.querySelectorAll('.mb-q-judging').length > 0")
        judged = browser.evaluate(
            "Array.from(document.querySelectorAll('.mb-q-judging'), (line) => line.textContent)"
        )
    finally:
        browser.close()
    assert disagree and count.startswith(f"{len(disagree)} of 8 questions")
    assert any(line.startswith("by each judge: rubrics strict 0 · official ") for line in judged), judged
