"""A board of many runs (`--mb-compare FOLDER`), its Pareto front, and `--mb-show` on the terminal.

Ten runs are made from one real run by setting which items each gets right and what it cost, so the
ranking, the front and the items a filter shows are known by hand.
"""

from __future__ import annotations

import glob
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.reports.compare.board import pareto_front
from pytest_memorybench.reports.compare.questions import Outcome
from tests.reports.test_compare import BASE
from tests.support.runs import results_in

SVG = "{http://www.w3.org/2000/svg}"
COSTS = (
    0.9,
    0.2,
    0.5,
    0.3,
    0.8,
    0.4,
    0.6,
    0.7,
    0.35,
    1.0,
)  # run i (letter A + i) gets right item j when j % 10 < i
FRONT = {"B", "D", "I", "J"}  # by hand: no better run costs as little


@pytest.fixture
def ten_runs(pytester: pytest.Pytester) -> Path:
    pytester.runpytest(*BASE, "--agent=recall", "--mb-output=base")  # the isolated suite: tens of items
    base = results_in(pytester.path / "base")
    for number, cost in enumerate(COSTS):
        results = json.loads(json.dumps(base))
        for index, item in enumerate(results["items"]):
            item["passed"] = index % 10 < number
            item["score"] = 1.0 if item["passed"] else 0.0
        results["totals"].update(cost_usd=cost, passed=sum(item["passed"] for item in results["items"]))
        results["totals"]["latency"] = {"p50": 0.1 * (10 - number), "p95": 0.2 * (10 - number)}
        folder = pytester.path / "runs" / f"run-{number}"
        folder.mkdir(parents=True)
        (folder / "results.json").write_text(json.dumps(results))
    return pytester.path / "runs"


def test_a_folder_of_ten_runs_is_a_ranked_board_with_its_pareto_front(
    pytester: pytest.Pytester, ten_runs: Path
) -> None:
    result = pytester.runpytest(
        "--mb-compare", str(ten_runs), "--mb-output=cmp", "--mb-markdown=cmp/board.md"
    )
    assert result.ret == 0, result.stdout.str()
    saved = json.loads((pytester.path / "cmp" / "compare.json").read_text())
    ranked = saved["board"]
    assert [row["label"] for row in ranked] == [f"run-{number}" for number in range(9, -1, -1)], (
        "named by folder"
    )
    assert [row["run"] for row in ranked] == list("JIHGFEDCBA") and [row["rank"] for row in ranked] == list(
        range(1, 11)
    )
    assert ranked[0]["cost_usd"] == 1.0 and ranked[0]["reply_p50_s"] == pytest.approx(0.1)

    figure = ET.parse(pytester.path / "cmp" / "board.svg").getroot()
    circles = [circle.findtext(f"{SVG}title") or "" for circle in figure.iter(f"{SVG}circle")]
    assert len(circles) == 20, "each run on the cost panel and on the latency panel"
    cost_front = [title for title in circles[:10] if title.endswith("(Pareto front)")]
    assert sorted(title.split()[0] for title in cost_front) == sorted(
        f"run-{ord(letter) - 65}" for letter in FRONT
    )
    latency_front = [title for title in circles[10:] if title.endswith("(Pareto front)")]
    assert latency_front == ["run-9 (Pareto front)"], (
        "the best run is also the fastest: it dominates the rest"
    )
    markdown = (pytester.path / "cmp" / "board.md").read_text()
    assert "| 1 | J run-9 | 0.900 " in markdown and "| 10 | A run-0 | 0.000 " in markdown


def test_the_terminal_shows_the_items_of_an_outcome_a_few_per_scenario(
    pytester: pytest.Pytester, ten_runs: Path
) -> None:
    runs = [str(ten_runs / f"run-{number}") for number in (9, 1)]
    result = pytester.runpytest("--mb-compare", *runs, "--mb-output=cmp", "--mb-show", "A right, B wrong")
    assert result.ret == 0
    items = json.loads((ten_runs / "run-9" / "results.json").read_text())["items"]  # made by hand above
    expected = [item for index, item in enumerate(items) if 1 <= index % 10 < 9]  # run-9 right, run-1 wrong
    out = result.stdout.str()
    assert f"questions where A right, B wrong: {len(expected)} of {len(items)}" in out
    scenarios = {item["scenario"] for item in expected}
    listed = [item for item in expected if f"\n{item['nodeid']}  (" in out]
    per_scenario = {scenario: sum(item["scenario"] == scenario for item in listed) for scenario in scenarios}
    assert all(0 < count <= 3 for count in per_scenario.values()), per_scenario
    first = listed[0]
    result.stdout.fnmatch_lines(
        [
            f"{glob.escape(first['nodeid'])}  ({first['scenario']}*",
            f"  question  {glob.escape(' '.join(first['questions'][0].split())[:40])}*",
            "  A right 1.00  *",
            "  B wrong 0.00  *",
        ]
    )
    unlisted = [item for item in items if item not in expected]
    assert not [item for item in unlisted if f"\n{item['nodeid']}  (" in out], "only the outcome's items"


@pytest.mark.parametrize(
    ("text", "verdicts", "matches"),
    [
        ("A right, B wrong", [True, False, True], True),
        ("A right, B wrong", [True, True, False], False),
        ("all wrong", [False, False, False], True),
        ("all right", [True, False, True], False),
        ("disagree", [True, True, True], False),
        ("disagree, C wrong", [True, True, False], True),
        ("b  failed", [True, False, True], True),
    ],
)
def test_an_outcome_reads_its_clauses(text: str, verdicts: list[bool], matches: bool) -> None:
    assert Outcome.parse(text, 3).matches(verdicts) is matches


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("A good", "--mb-show 'A good': cannot read 'a good'; write 'A right, B wrong', 'B wrong',"),
        ("D wrong", "--mb-show 'D wrong': there is no run D (runs A to C)"),
    ],
)
def test_a_bad_outcome_is_one_line(text: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        Outcome.parse(text, 3)
    assert str(caught.value).startswith(message)


def test_the_front_keeps_the_points_no_other_beats() -> None:
    points = [(1.0, 0.5), (2.0, 0.5), (0.5, 0.2), (3.0, 0.9), None, (0.5, 0.1)]
    assert pareto_front(points) == [2, 0, 3], (
        "(2, .5) costs more for the same; (.5, .1) scores less for the same"
    )
