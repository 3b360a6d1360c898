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
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from pytest_memorybench.reports.report_items import item_anchor, natural_key
from tests.reports.test_browser_report import CHROMIUM
from tests.reports.test_report_words import RAW
from tests.support.cdp import Browser
from tests.support.paths import REFERENCE
from tests.support.runs import report_items, results_in

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
        anchors = {entry["anchor"] for entry in report_items(report.parent)}
        assert report.is_file() and unquote(target.fragment) in anchors, (
            "the link names an item of its report"
        )
    assert cards[2]["memories"] == [], "null retrieves nothing"

    browser = Browser(CHROMIUM, tmp_path / "profile-link")  # type: ignore[arg-type]
    try:  # the link, followed: its report draws that item, open, wherever it is in the list
        browser.open(urljoin((board / "cmp" / "compare.html").as_uri(), cards[0]["link"]))
        browser.wait_for("document.body && document.body.dataset.itemsMs")
        opened = browser.evaluate(
            "(() => { const item = document.getElementById(decodeURIComponent(location.hash.slice(1)));"
            " return item && item.open && item.innerText; })()"
        )
    finally:
        browser.close()
    assert opened and chosen["nodeid"] in opened and chosen["questions"][0] in opened


def test_a_reader_narrows_the_whole_locomo_report_to_a_category_and_a_word(
    board: Path, tmp_path: Path
) -> None:
    """report.html of a whole LoCoMo run (1,986 items): small, drawn a page at a time, no raw record
    in what a reader sees, and its filters find a category's items and one question by its words."""
    folder = board / "runs" / "recall"
    recall = items(folder)
    multi_hop = [item for item in recall.values() if item["category"] == "multi_hop"]
    chosen = multi_hop[len(multi_hop) // 2]
    words = " ".join(chosen["questions"][0].split()[:6])
    count = "document.getElementById('mb-i-count').textContent"

    browser = Browser(CHROMIUM, tmp_path / "profile")  # type: ignore[arg-type]
    try:
        browser.open((folder / "report.html").as_uri())
        loaded_ms = int(browser.wait_for("document.body && document.body.dataset.itemsMs"))
        shown = browser.evaluate(count)
        rows = browser.evaluate(
            "Array.from(document.querySelectorAll('#mb-i-list .mb-item'), (item) =>"
            " [item.id, item.querySelector('summary .mb-preview').textContent])"
        )
        opened = "document.querySelectorAll('#mb-i-list details').forEach((box) => { box.open = true; })"
        browser.evaluate(opened)  # each item draws its body when first opened, then its details open too
        browser.wait_for("document.querySelectorAll('#mb-i-list .mb-item-head').length === 50")
        browser.evaluate(opened)
        visible = browser.evaluate("document.body.innerText")
        browser.choose("mb-i-scenario", f"{chosen['scenario']}\n{chosen['category']}")
        narrowed = browser.evaluate(count)
        browser.choose("mb-i-outcome", "failed")
        failed = browser.evaluate(count)
        browser.choose("mb-i-outcome", "")
        browser.evaluate(
            f"""{{ const box = document.getElementById("mb-i-search");
                 box.value = {json.dumps(words)};
                 box.dispatchEvent(new Event("input")); }}"""
        )
        browser.wait_for(f"!({count}).includes('{len(multi_hop):,} of')")
        found = browser.evaluate(
            "Array.from(document.querySelectorAll('#mb-i-list .mb-item'), (item) => item.id)"
        )
    finally:
        browser.close()

    size = (folder / "report.html").stat().st_size
    print(f"\nreport.html of a whole LoCoMo run: {size / 1e6:.1f} MB, first items after {loaded_ms} ms")
    # Under 3.2 MB: each item now also carries its precision, answer time and stored recall (~0.2 MB).
    assert size <= 3_200_000
    assert shown == "1,986 of 1,986 items, the first 50 shown"
    by_anchor = {item_anchor(item["nodeid"]): item for item in recall.values()}
    drawn = [by_anchor[anchor] for anchor, _ in rows]
    assert [item["nodeid"] for item in drawn] == sorted(
        (item["nodeid"] for item in drawn),
        key=lambda nodeid: (by_anchor[item_anchor(nodeid)]["passed"], natural_key(nodeid)),
    ), "failed first, then [3] before [39]"
    for (_, preview), item in zip(rows, drawn, strict=True):  # a closed row: its question and verdict
        assert (
            preview.startswith(" ".join(item["questions"][-1].split()[:5]))
            and item["reasons"][0][:20] in preview
        )
    assert RAW.search(visible) is None, "no raw record on the page, items opened"
    assert "asked after" in visible and "memories returned, best first" in visible
    assert narrowed.startswith(f"{len(multi_hop):,} of 1,986 items")
    failures = sum(not item["passed"] for item in multi_hop)
    assert failed.startswith(f"{failures:,} of 1,986 items")
    assert item_anchor(chosen["nodeid"]) in found and len(found) <= 3, "one question found by its words"
