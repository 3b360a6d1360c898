"""compare.html's side-by-side questions at the size users meet them: four LoCoMo runs of 1,986 items.

The page is used as a reader would, in headless Chromium over the DevTools protocol: it loads (the
time from navigation to the first page of questions is printed, for the record), a filter keeps the
items where A is right and B wrong, a search finds one question by its words, and opening it shows
both runs' answers and the memories their searches returned, with a working link to each run's
transcript of it.  Needs Chromium and LoCoMo's published file (../shared/reference/locomo).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from tests.reports.test_browser_report import CHROMIUM
from tests.support.cdp import Browser
from tests.support.paths import REFERENCE
from tests.support.runs import results_in

LOCOMO = REFERENCE / "locomo" / "locomo10.json"
AGENTS = ("recall", "recent-memory", "null", "oracle")  # A and B retrieve; C and D are the floor and ceiling

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium binary (Debian: apt-get install chromium)"),
    pytest.mark.skipif(not LOCOMO.exists(), reason="../shared/reference/locomo is not here"),
]


def pytest_run(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *arguments]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four whole LoCoMo runs (about two minutes) and their comparison, in that order."""
    folder = tmp_path_factory.mktemp("locomo-board")
    for agent in AGENTS:
        data, output = f"--mb-data=locomo={LOCOMO}", f"--mb-output=runs/{agent}"
        pytest_run(folder, "-q", "--memorybench", "--mb-suite=locomo", f"--agent={agent}", data, output)
    done = pytest_run(folder, "--mb-compare", *(f"runs/{agent}" for agent in AGENTS), "--mb-output=cmp")
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


def items(folder: Path) -> dict[str, dict[str, Any]]:
    return {item["nodeid"]: item for item in results_in(folder)["items"]}


def test_a_reader_filters_finds_a_question_and_reads_both_runs(board: Path, tmp_path: Path) -> None:
    recall, recent = items(board / "runs/recall"), items(board / "runs/recent-memory")
    assert len(recall) == len(recent) == 1986
    a_right_b_wrong = sorted(key for key in recall if recall[key]["passed"] and not recent[key]["passed"])
    assert a_right_b_wrong, "the two runs differ somewhere"
    chosen = recall[a_right_b_wrong[0]]
    words = chosen["questions"][0].split("?")[0]  # the question, by its words

    browser = Browser(CHROMIUM, tmp_path / "profile")  # type: ignore[arg-type]
    try:
        browser.open((board / "cmp" / "compare.html").as_uri())
        loaded_ms = int(browser.wait_for("document.body && document.body.dataset.questionsMs"))
        shown = browser.evaluate("document.getElementById('mb-q-count').textContent")
        first_page = browser.evaluate("document.querySelectorAll('.mb-q-item').length")

        browser.evaluate(
            """for (const [run, verdict] of [["0", "right"], ["1", "wrong"]]) {
                 const select = document.querySelector(`.mb-q-verdict[data-run="${run}"]`);
                 select.value = verdict;
                 select.dispatchEvent(new Event("change"));
               }"""
        )
        filtered = browser.evaluate("document.getElementById('mb-q-count').textContent")
        chips = browser.evaluate(
            "Array.from(document.querySelectorAll('.mb-q-item summary'), (s) =>"
            " Array.from(s.querySelectorAll('.mb-q-chip'), (c) => c.className.split('mb-')[2]).join(' '))"
        )

        browser.evaluate(
            f"""const box = document.getElementById("mb-q-search");
                box.value = {json.dumps(words)};
                box.dispatchEvent(new Event("input"));"""
        )
        rows = "Array.from(document.querySelectorAll('.mb-q-item'))"
        item = f"{rows}.find((row) => row.dataset.nodeid === {json.dumps(chosen['nodeid'])})"
        browser.wait_for(f"document.getElementById('mb-q-count').textContent.length < 40 && !!{item}")
        found = browser.evaluate(
            "Array.from(document.querySelectorAll('.mb-q-item'), (row) => row.dataset.nodeid)"
        )
        browser.evaluate(f"{item}.open = true")
        browser.wait_for("document.querySelectorAll('.mb-q-run').length === 4")
        cards = browser.evaluate(
            """Array.from(document.querySelectorAll('.mb-q-run'), (card) => ({
                 run: card.dataset.run,
                 answer: card.querySelector('dd').textContent,
                 memories: Array.from(card.querySelectorAll('.mb-q-memories li'), (li) => li.textContent),
                 link: card.querySelector('a')?.getAttribute('href') ?? null,
               }))"""
        )
    finally:
        browser.close()

    print(f"\ncompare.html of 4 LoCoMo runs: first page of questions after {loaded_ms} ms")  # for the record
    size = (board / "cmp" / "compare.html").stat().st_size
    print(f"compare.html: {size / 1e6:.1f} MB")
    assert shown == "1,986 of 1,986 questions, the first 50 shown" and first_page == 50, (
        "rendered a page at a time"
    )
    assert filtered.startswith(f"{len(a_right_b_wrong):,} of 1,986 questions")
    assert chips and all(chip.startswith("right wrong") for chip in chips), chips
    assert chosen["nodeid"] in found and len(found) <= 5, "the question found by its words, with few others"

    assert [card["run"] for card in cards] == ["A", "B", "C", "D"]
    for card, run in zip(cards[:2], (recall, recent), strict=True):
        item = run[chosen["nodeid"]]
        assert card["answer"] == item["responses"][0]
        assert card["memories"] == item["details"]["evidence"]["memories"] and card["memories"], (
            "what it retrieved"
        )
        target = urlsplit(card["link"])
        report = (board / "cmp" / target.path).resolve()
        anchor = unquote(target.fragment)
        assert report.is_file() and f'id="{anchor}"' in report.read_text(), "the link opens its transcript"
    assert cards[2]["memories"] == [], "null retrieves nothing"
