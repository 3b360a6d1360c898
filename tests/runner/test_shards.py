"""A run split across jobs (`--mb-shard I/N`) and put back together (`--mb-merge`): the merged run is
the single run, item for item; a wrong, missing or repeated shard is one clear line; and the example
GitHub Actions workflow's commands, run here in order, give the merged report and the gate's verdict."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from tests.support.paths import EXAMPLES
from tests.support.runs import QUIET, results_in

pytestmark = pytest.mark.e2e

pytest_plugins = ["pytester"]

WORKFLOW = EXAMPLES / "github-actions" / "memorybench.yml"
SUBSET = ("-k", "colours or jokes or shopping")  # as the shards run: conversations not begun follow it
SHARD = (*QUIET, "--memorybench", "--span=isolated", *SUBSET, "--agent=recall")  # a shard's run, but its part


def results(folder: Path) -> dict:
    return results_in(folder)


def untimed(value: object) -> object:
    """`value` without what is measured in seconds (agent latency, accuracy under a latency budget,
    BEAM's read and write times)."""
    if isinstance(value, dict):
        return {
            key: untimed(item)
            for key, item in value.items()
            if "seconds" not in key and not key.startswith("latency")
        }
    if isinstance(value, list):
        return [untimed(item) for item in value]
    return value


def same_run(single: dict, merged: dict) -> None:
    """Items (scores, replies, reasons, tokens), totals, scenario rows and the gate's verdict."""
    assert untimed({item["nodeid"]: item for item in merged["items"]}) == untimed(
        {item["nodeid"]: item for item in single["items"]}
    )
    assert untimed(merged["totals"]) == untimed(single["totals"])
    assert untimed(merged["scenarios"]) == untimed(single["scenarios"])
    assert merged.get("gate", {}).get("passed") == single.get("gate", {}).get("passed")


def junit_cases(path: Path) -> dict[str, str]:
    """JUnit testcase name → outcome."""
    cases = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = next(
            (child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed"
        )
        cases[case.get("name", "")] = outcome
    return cases


# BEAM with three chats of its own generator (the built-in suite has one: one conversation).
BEAM_THREE_CHATS = """
name: beam
threshold: 0.5
scenarios:
  - scenario: beam.conversations
    params: {tokens: 100K, chats: 3}
"""

# LoCoMo with three generated conversations (and the item that says where the published data is).
LOCOMO_THREE = """
name: locomo
threshold: 0.5
scenarios:
  - scenario: locomo.conversations
    params: {generated: 3}
"""


@pytest.mark.parametrize(
    ("suite", "options"),
    [
        ("ltm", ("--span=isolated",)), ("ltm", ("--span=2k", "--mb-conversations=5")), ("beam3.yaml", ()),
        ("locomo3.yaml", ("--mb-profile=official",)), ("longmemeval", ()),
    ],
    ids=["ltm-isolated", "ltm-2k-split", "beam", "locomo", "longmemeval"],
)  # fmt: skip
def test_shards_merged_are_the_single_run(
    pytester: pytest.Pytester, suite: str, options: tuple[str, ...]
) -> None:
    pytester.makefile(".yaml", beam3=BEAM_THREE_CHATS, locomo3=LOCOMO_THREE)
    common = (*QUIET, "--memorybench", f"--mb-suite={suite}", *options)
    gate = "--mb-min-score=0.3"
    single = pytester.runpytest_subprocess(
        *common, gate, "--agent=recall", "--mb-output=single", "--junitxml=single.xml"
    )
    for count in (2, 3):
        for index in range(1, count + 1):
            shard = pytester.runpytest_subprocess(
                *common, "--agent=recall", f"--mb-shard={index}/{count}", f"--mb-output=s{count}-{index}"
            )
            assert shard.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), (
                shard.stdout.str() + shard.stderr.str()
            )
            shard.stdout.fnmatch_lines(
                [f"memorybench: * | shard {index}/{count} of plan * (* of * conversations)"]
            )
        merges = [f"--mb-merge=s{count}-{index}" for index in range(count, 0, -1)]  # any order
        merged = pytester.runpytest_subprocess(
            *common, gate, *merges, f"--mb-output=m{count}", f"--junitxml=m{count}.xml"
        )
        assert merged.ret == single.ret, merged.stdout.str()
        same_run(results(pytester.path / "single"), results(pytester.path / f"m{count}"))
        assert junit_cases(pytester.path / f"m{count}.xml") == junit_cases(pytester.path / "single.xml")
        parts = [len(results(pytester.path / f"s{count}-{index}")["items"]) for index in range(1, count + 1)]
        assert sum(parts) == len(results(pytester.path / "single")["items"]) and min(parts) > 0, (
            "whole conversations, dealt to all"
        )


def test_more_shards_than_conversations_leave_an_empty_part_that_still_merges(
    pytester: pytest.Pytester,
) -> None:
    common = (*QUIET, "--memorybench", "--mb-suite=beam", "--agent=recall")
    first = pytester.runpytest_subprocess(*common, "--mb-shard=1/2", "--mb-output=s1")
    empty = pytester.runpytest_subprocess(*common, "--mb-shard=2/2", "--mb-output=s2")
    empty.stdout.fnmatch_lines(["memorybench: * | shard 2/2 of plan * (0 of 1 conversation)"])
    assert empty.ret == pytest.ExitCode.NO_TESTS_COLLECTED and results(pytester.path / "s2")["items"] == []
    merged = pytester.runpytest_subprocess(
        *QUIET, "--memorybench", "--mb-suite=beam", "--mb-merge=s1", "--mb-merge=s2", "--mb-output=m"
    )
    assert merged.ret == first.ret and untimed(results(pytester.path / "m")["totals"]) == untimed(
        results(pytester.path / "s1")["totals"]
    )


@pytest.fixture
def three_shards(pytester: pytest.Pytester) -> pytest.Pytester:
    for index in (1, 2, 3):
        pytester.runpytest_subprocess(*SHARD, f"--mb-shard={index}/3", f"--mb-output=s{index}")
    return pytester


@pytest.mark.parametrize(
    ("merges", "line"),
    [
        (("s1", "s2"), "--mb-merge: shard 3 of 3 is missing; give every shard's run folder"),
        (("s1", "s2", "s2", "s3"), "--mb-merge: shard 2/3 is given twice (*s2 and *s2); give each once"),
        (
            ("s1", "s2", "other"),
            (
                "--mb-merge: *other (shard 3/3) belongs to another plan than *s1 (shard 1/3): run every "
                "shard with the same suites, span, seed and options"
            ),
        ),
        (
            ("s1", "s2", "plain"),
            (
                "--mb-merge */plain: this run was not a shard (it ran without --mb-shard); merge shard"
                " folders only"
            ),
        ),
        (
            ("s1", "s2", "unfinished"),
            (
                "--mb-merge */unfinished: shard 3/3 has no results.json: it did not finish; "
                "--mb-resume=*/unfinished finishes it"
            ),
        ),
    ],
    ids=["missing", "repeated", "other-plan", "not-a-shard", "unfinished"],
)
def test_a_wrong_missing_or_repeated_shard_is_one_clear_line(
    three_shards: pytest.Pytester, merges: tuple[str, ...], line: str
) -> None:
    pytester = three_shards
    if "other" in merges:
        pytester.runpytest_subprocess(*SHARD, "--mb-seed=7", "--mb-shard=3/3", "--mb-output=other")
    if "plain" in merges:
        pytester.runpytest_subprocess(
            *QUIET, "--memorybench", "--span=isolated", "-k", "colours", "--agent=recall", "--mb-output=plain"
        )
    if "unfinished" in merges:
        shutil.copytree(pytester.path / "s3", pytester.path / "unfinished")
        (pytester.path / "unfinished" / "results.json").unlink()
    result = pytester.runpytest_subprocess(
        *QUIET, "--memorybench", "--span=isolated", *(f"--mb-merge={m}" for m in merges)
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {line}"])
    assert "Traceback" not in result.stderr.str()


def test_a_shard_folder_resumes_and_replays_as_that_shard(three_shards: pytest.Pytester) -> None:
    pytester = three_shards
    before = results(pytester.path / "s2")
    resumed = pytester.runpytest_subprocess(
        *QUIET, "--memorybench", *SUBSET, "--agent=recall", "--mb-resume=s2"
    )
    resumed.stdout.fnmatch_lines(["memorybench: * | shard 2/3 of plan *"])
    assert [item["score"] for item in results(pytester.path / "s2")["items"]] == [
        item["score"] for item in before["items"]
    ]
    replayed = pytester.runpytest_subprocess(
        *QUIET, "--memorybench", *SUBSET, "--mb-replay=s2", "--mb-output=r2"
    )
    replayed.stdout.fnmatch_lines(["memorybench: * | shard 2/3 of plan *"])
    assert {item["nodeid"]: item["score"] for item in results(pytester.path / "r2")["items"]} == {
        item["nodeid"]: item["score"] for item in before["items"]
    }
    conflict = pytester.runpytest_subprocess(
        *QUIET, "--memorybench", "--mb-replay=s2", "--mb-shard=1/3", "--mb-output=r3"
    )
    conflict.stderr.fnmatch_lines(
        ["ERROR: --mb-shard 1/3 conflicts with the run given to --mb-replay (shard 2/3); drop --mb-shard"]
    )


# -- the example workflow, run here -----------------------------------------------------------------


def _expand(command: str, env: dict[str, str], matrix: dict[str, str]) -> str:
    """GitHub's `${{ … }}` expressions the commands use: the matrix, and nothing else."""

    def value(match: re.Match[str]) -> str:
        expression = match[1].strip()
        if expression.startswith("matrix."):
            return matrix[expression.removeprefix("matrix.")]
        raise AssertionError(
            f"the example's commands use an expression this test does not know: {expression}"
        )

    return re.sub(r"\$\{\{(.*?)\}\}", value, command)


def _run_step(step: dict, cwd: Path, env: dict[str, str], matrix: dict[str, str]) -> int:
    return subprocess.run(
        ["bash", "-e", "-c", _expand(step["run"], env, matrix)], cwd=cwd, env=env, check=False
    ).returncode


@pytest.mark.parametrize(("agent", "verdict"), [("oracle", 0), ("null", 1)])
def test_the_example_workflow_runs_here_and_gates_the_merged_run(
    tmp_path: Path, agent: str, verdict: int
) -> None:
    """The workflow's own commands, in its order: every shard job's run step, the artefacts moved
    where the merge job downloads them, the merge step.  Only the environment differs: a built-in
    agent instead of a model endpoint, and a 2k span to keep it quick."""
    workflow = yaml.safe_load(WORKFLOW.read_text())
    jobs = workflow["jobs"]
    env = {
        **os.environ,
        **{name: str(value) for name, value in workflow["env"].items()},
        "AGENT": agent,
        "MEMORYBENCH": workflow["env"]["MEMORYBENCH"].replace("--span=32k", "--span=2k"),
        "PYTEST_ADDOPTS": "-p no:randomly -p no:cacheprovider",
        # The steps' `pytest` and `python` are this interpreter's, activated or not (`.venv/bin/pytest`).
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    shards = jobs["shard"]["strategy"]["matrix"]["shard"]
    assert int(env["SHARDS"]) == len(shards), "SHARDS must match the matrix"
    (tmp_path / "benchmarks").mkdir()
    single = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *env["MEMORYBENCH"].split(),
            "--agent=oracle",
            "--mb-output=baseline-run",
        ],
        cwd=tmp_path,
        env=env,
        check=False,
        capture_output=True,
    )
    assert single.returncode == 0, single.stdout.decode()
    shutil.copy(
        tmp_path / "baseline-run" / "results.json", tmp_path / "benchmarks" / "memorybench-baseline.json"
    )

    run_step = next(step for step in jobs["shard"]["steps"] if step.get("name") == "Run shard")
    upload = next(step for step in jobs["shard"]["steps"] if "upload-artifact" in step.get("uses", ""))
    download = next(step for step in jobs["merge"]["steps"] if "download-artifact" in step.get("uses", ""))
    for shard in shards:
        matrix = {"shard": str(shard)}
        assert _run_step(run_step, tmp_path, env, matrix) == 0, "a shard with failing items still succeeds"
        source = tmp_path / _expand(upload["with"]["path"], env, matrix)
        target = tmp_path / download["with"]["path"] / _expand(upload["with"]["name"], env, matrix)
        shutil.copytree(source, target)  # upload-artifact, then download-artifact by pattern

    merge_step = next(step for step in jobs["merge"]["steps"] if step.get("name") == "Merge and gate")
    assert _run_step(merge_step, tmp_path, env, {}) == verdict
    merged = results(tmp_path / "memorybench-run")
    assert merged["gate"]["passed"] is (verdict == 0)
    assert len(merged["items"]) == len(results(tmp_path / "baseline-run")["items"])
    assert (tmp_path / "memorybench-run" / "report.html").is_file()
    assert junit_cases(tmp_path / "memorybench-run" / "junit.xml")
