"""The hooks a benchmark session declares (`hookspecs.py`): an output written in a conftest.py sees
the finished run's results and each item as it ends, as the package's own outputs do."""

from __future__ import annotations

import json

import pytest

from tests.support.runs import run_benchmark

pytest_plugins = ["pytester"]

# A leaderboard upload and a per-item line, in a user's conftest.py: each writes what it was given.
OUTPUT_CONFTEST = """
import json

def pytest_memorybench_results(results, folder):
    on_disk = json.loads((folder / "results.json").read_text())
    with open("uploaded.json", "w") as out:
        json.dump({"score": results["totals"]["score"], "items": len(results["items"]),
                   "gate": results.get("gate"), "written_first": on_disk == results}, out)

def pytest_memorybench_item(item, report, record):
    with open("items.jsonl", "a") as out:
        out.write(json.dumps({"nodeid": record["nodeid"], "item": item.nodeid, "when": report.when,
                              "score": record["score"], "passed": report.passed}) + "\\n")
"""
RUN = ("--agent=recall", "--span=isolated", "-k", "colours or name_list")


def test_a_conftest_output_sees_the_finished_run_after_the_packages_outputs(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(OUTPUT_CONFTEST)
    run = run_benchmark(pytester, *RUN, "--mb-min-score=0")
    uploaded = json.loads((pytester.path / "uploaded.json").read_text())
    assert uploaded["score"] == run.results["totals"]["score"]
    assert uploaded["items"] == len(run.results["items"]) == 6
    assert uploaded["gate"] == run.results["gate"] and uploaded["gate"]["passed"], "the gate judged first"
    assert uploaded["written_first"], "results.json was written before a conftest's output ran"


def test_a_conftest_output_sees_each_item_as_it_ends(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(OUTPUT_CONFTEST)
    run = run_benchmark(pytester, *RUN)
    lines = [json.loads(line) for line in (pytester.path / "items.jsonl").read_text().splitlines()]
    recorded = {item["nodeid"]: item for item in run.results["items"]}
    assert sorted(line["nodeid"] for line in lines) == sorted(recorded)
    for line in lines:
        assert line["item"] == line["nodeid"] and line["when"] == "call"
        assert line["score"] == recorded[line["nodeid"]]["score"]
        assert line["passed"] == recorded[line["nodeid"]]["passed"]


def test_a_run_that_measured_nothing_calls_no_output(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(OUTPUT_CONFTEST)
    result = pytester.runpytest("--memorybench", *RUN, "--collect-only", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    assert not (pytester.path / "uploaded.json").exists() and not (pytester.path / "items.jsonl").exists()


def test_a_hook_of_ours_misspelt_in_a_conftest_is_refused(pytester: pytest.Pytester) -> None:
    """pytest checks a conftest's `pytest_*` functions against the declared hooks: a typo is an
    error, not an output that silently never runs."""
    pytester.makeconftest("def pytest_memorybench_result(results, folder):\n    pass\n")
    result = pytester.runpytest("--memorybench", *RUN, "-p", "no:cacheprovider")
    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*unknown hook 'pytest_memorybench_result' in plugin*conftest*"])
