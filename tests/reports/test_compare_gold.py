"""A comparison flags a run above the gold store with the same answering model, and the runs' own
categories above their ceilings.

The runs are one LoCoMo run of ours (generated conversations, `official`) written three times as a
store run would be: `bm25` and `gold` answering with one model, `dense` with another.  The gold run
is made to miss its temporal questions; bm25 then scores above it there (and in total), which a
memory given less than the labelled evidence cannot honestly do.  `dense` has no gold run of its
model, so only its own ceilings can flag it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.reports.compare.comparison import compare
from pytest_memorybench.reports.compare.gold import above_gold, gold_lines
from pytest_memorybench.reports.compare.runs import load_runs
from pytest_memorybench.results.breakdown import scenario_stats, suite_stats
from tests.support.runs import QUIET, run_benchmark

MODEL = "openai:fake-model@http://127.0.0.1:9/v1"


def as_store_run(source: Path, folder: Path, agent: str, miss: str | None = None) -> Path:
    """`source`'s run as if `agent` had run it; the items of category `miss` answered wrong (and its
    means made again from its items, as a run writes them)."""
    shutil.copytree(source, folder)
    results: dict[str, Any] = json.loads((folder / "results.json").read_text())
    results["run"]["agent"] = agent
    for item in results["items"]:
        if miss is not None and item.get("category") == miss:
            item["score"], item["passed"] = 0.0, False
    results["suites"] = suite_stats(results["items"], 0)
    results["scenarios"] = scenario_stats(results["items"], 0, results["conversations"], "official")
    (folder / "results.json").write_text(json.dumps(results))
    return folder


@pytest.fixture
def runs(pytester: pytest.Pytester) -> list[Path]:
    oracle = run_benchmark(
        pytester, "--mb-suite=locomo", "--agent=oracle", "--mb-profile=official", *QUIET, folder="oracle"
    ).folder
    return [
        as_store_run(oracle, pytester.path / "gold", f"gold:{MODEL}", miss="temporal"),
        as_store_run(oracle, pytester.path / "bm25", f"bm25:{MODEL}"),
        as_store_run(oracle, pytester.path / "dense", "dense:openai:another-model@http://127.0.0.1:9/v1"),
    ]


def test_a_run_above_the_gold_store_with_its_answering_model_is_flagged(runs: list[Path]) -> None:
    comparison = compare(load_runs([str(folder) for folder in runs], ["gold", "bm25", "dense"]))
    flags = above_gold(comparison)
    assert {(flag.run, flag.gold, flag.label) for flag in flags} == {
        (1, 0, "locomo"),
        (1, 0, "conversations"),
        (1, 0, "temporal"),
        (1, 0, "total"),
    }, "bm25 only: dense answers with another model, and gold is not above itself"
    temporal = next(flag for flag in flags if flag.label == "temporal")
    assert (temporal.mean, temporal.gold_mean, temporal.model) == (1.0, 0.0, MODEL)
    assert gold_lines(flags) == [
        f"B above the gold store A with the same answering model ({MODEL}): locomo 1.000 > 0.889, locomo ·"
        " conversations 1.000 > 0.889, locomo · temporal 1.000 > 0.000, total 1.000 > 0.889; the judge is"
        " too lenient or the run saw the answers, or the labelled evidence misses what an answer needs"
    ]


def test_the_comparison_shows_both_ceilings_in_every_output(
    pytester: pytest.Pytester, runs: list[Path]
) -> None:
    out = pytester.path / "compared"
    result = pytester.runpytest(
        "--mb-compare", *map(str, runs), f"--mb-output={out}", f"--mb-markdown={out / 'c.md'}",
        "--mb-label=gold", "--mb-label=bm25", "--mb-label=dense",
    )  # fmt: skip
    assert result.ret == 0, result.stdout.str()
    own = (
        "above its ceiling (the most right answers can score against the original gold):"
        " locomo.conversations · single_hop 1.000 > 0.750, locomo.conversations · temporal 1.000 > 0.500;"
        " the judge is too lenient or the run saw the answers"
    )
    result.stdout.fnmatch_lines(
        [
            "A above its ceiling (*): locomo.conversations · single_hop 1.000 > 0.750; the judge*",
            f"B {own}",
            f"C {own}",
            "B above the gold store A with the same answering model (*): *locomo · temporal 1.000 > 0.000*",
        ]
    )
    compared = json.loads((out / "compare.json").read_text())
    assert f"C {own}" in compared["above_ceiling"]
    assert {(flag["run"], flag["gold"], flag["row"]) for flag in compared["above_gold"]} >= {
        ("B", "A", "temporal")
    }
    assert "B above the gold store A with the same answering model" in (out / "c.md").read_text()
    page = (out / "compare.html").read_text()
    assert '<li class="mb-fail">B above the gold store A with the same answering model' in page
