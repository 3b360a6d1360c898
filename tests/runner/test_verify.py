"""`pytest --mb-verify FOLDER`: an untouched run folder holds; a results.json or an events.jsonl
edited since does not, and neither does one whose manifest was rewritten to match (its verdicts
are re-scored from its logged replies); a folder that is no run is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_memorybench.runner.checksums import CHECKSUMS, write_checksums
from tests.support.goodai import write_goodai_run
from tests.support.runs import QUIET, run_benchmark, usage_error_line

pytest_plugins = ["pytester"]

RUN = ("--span=isolated", "-k", "colours or name_list")


@pytest.fixture
def folder(pytester: pytest.Pytester) -> Path:
    run = run_benchmark(pytester, *RUN, "--agent=recall", "--junitxml=run/junit.xml", folder="run")
    return run.folder


def _verify(pytester: pytest.Pytester, folder: Path) -> tuple[pytest.ExitCode | int, str]:
    result = pytester.runpytest("--mb-verify", str(folder))
    lines = [line for line in result.outlines if line.startswith("memorybench verify")]
    assert len(lines) == 1, result.outlines
    return result.ret, lines[0]


def test_an_untouched_folder_holds(pytester: pytest.Pytester, folder: Path) -> None:
    listed = json.loads((folder / CHECKSUMS).read_text())["files"]
    assert {"run.json", "results.json", "events.jsonl", "report.html", "junit.xml"} <= set(listed)
    assert not [name for name in listed if name.startswith(".")], "the lock and temporary files stay out"
    ret, line = _verify(pytester, folder)
    assert ret == 0
    holds = f"holds: {len(listed)} files unchanged, 6 verdicts the same when re-scored"
    assert line == f"memorybench verify {folder}: {holds}"


def _first_failed(results: dict) -> dict:
    return next(item for item in results["items"] if item["score"] is not None and item["score"] < 1)


def test_an_edited_results_json_does_not_hold_even_with_its_manifest_rewritten(
    pytester: pytest.Pytester, folder: Path
) -> None:
    results = json.loads((folder / "results.json").read_text())
    edited = _first_failed(results)
    edited["score"] = 1.0
    (folder / "results.json").write_text(json.dumps(results, indent=2))
    ret, line = _verify(pytester, folder)
    assert ret == 1 and line.startswith(
        f"memorybench verify {folder}: does not hold: results.json changed (sha256 "
    )
    assert f"1 of 6 verdicts differ when re-scored ({edited['nodeid']}: 1 recorded, 0 when re-scored)" in line

    write_checksums(folder, "forged")  # the files now match: the re-scored verdicts still do not
    ret, line = _verify(pytester, folder)
    assert ret == 1 and "changed" not in line
    assert f"{edited['nodeid']}: 1 recorded, 0 when re-scored" in line and "mean" in line


def test_an_edited_line_of_the_event_log_does_not_hold(pytester: pytest.Pytester, folder: Path) -> None:
    log = folder / "events.jsonl"
    lines = log.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if json.loads(line)["kind"] == "reply")
    event = json.loads(lines[at])
    event["text"] = "I cannot remember anything."
    lines[at] = json.dumps(event)
    log.write_text("\n".join(lines) + "\n")
    ret, line = _verify(pytester, folder)
    assert ret == 1 and "does not hold: events.jsonl changed (sha256 " in line


def test_a_file_added_or_removed_does_not_hold(pytester: pytest.Pytester, folder: Path) -> None:
    (folder / "report.html").unlink()
    (folder / "events-gw9.jsonl").write_text("")
    ret, line = _verify(pytester, folder)
    assert ret == 1 and line.endswith("does not hold: report.html is missing; events-gw9.jsonl was added")


def test_a_folder_that_is_no_run_is_a_usage_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "notes").mkdir()
    line = usage_error_line(pytester.runpytest("--mb-verify", "notes"))
    assert (
        line.startswith("ERROR: --mb-verify ") and "not a pytest-memorybench run folder (no run.json" in line
    )


def test_a_merged_run_holds_against_its_shards(pytester: pytest.Pytester) -> None:
    shard = ("--memorybench", *QUIET, *RUN, "--agent=recall")
    for index in (1, 2):
        pytester.runpytest(*shard, f"--mb-shard={index}/2", f"--mb-output=s{index}")
        assert _verify(pytester, pytester.path / f"s{index}")[0] == 0
    pytester.runpytest("--memorybench", *QUIET, *RUN, "--mb-merge=s1", "--mb-merge=s2", "--mb-output=merged")
    ret, line = _verify(pytester, pytester.path / "merged")
    assert ret == 0 and line.endswith("6 verdicts its shards recorded"), line


def test_a_re_score_of_published_results_holds_when_scored_again(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    bench = write_goodai_run(tmp_path / "bench")
    pytester.runpytest(
        "--memorybench", *QUIET, f"--mb-rescore={bench}/results/Agent A - m - 1000", "--mb-output=out"
    )
    ret, line = _verify(pytester, pytester.path / "out")
    assert ret == 0 and line.endswith("3 verdicts the same when re-scored"), line
