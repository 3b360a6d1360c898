"""Drift refused: a resume, a replay or a merge on changed data, definitions, answering prompts or
judge stops in one line saying what changed; `--mb-allow-drift` goes on and records it; a run
folder written before runs recorded their provenance still resumes, with a note."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.runner.drift import changes, judge_changes
from tests.support.paths import FIXTURES
from tests.support.runs import QUIET, results_in, run_benchmark, usage_error_line

pytest_plugins = ["pytester"]

RUN = ("--span=isolated", "-k", "chapterbreak or colours")
SHA = "3f2a1b2c" * 8


def test_changes_name_what_differs_part_by_part() -> None:
    then = {
        "data": {"locomo": {"sha256": SHA}, "beam": {"sha256": SHA}},
        "definitions": "a" * 64,
        "answer_prompts": {"system": "111111111111", "store.answer.locomo": "222222222222"},
        "judge": {"name": "openai:gpt-4o-mini", "prompts": {"answer": "333333333333"}, "local_version": None},
    }
    assert changes(then, json.loads(json.dumps(then))) == []
    now = {
        "data": {"locomo": {"sha256": "9b8c7d6e" * 8}, "longmemeval": {"sha256": SHA}},
        "definitions": "b" * 64,
        "answer_prompts": {"system": "111111111111", "store.answer.locomo": "999999999999"},
        "judge": {"name": "openai:gpt-4o-mini", "prompts": {"answer": "444444444444"}, "local_version": None},
    }
    assert changes(then, now, seeds=(3, 0)) == [
        "data beam is not read now",
        "data locomo sha256 3f2a1b2c… then, 9b8c7d6e… now",
        "data longmemeval was not read by the run",
        "the suites' definitions differ (seed 3 then, 0 now: give --mb-seed 3)",
        "answering prompts store.answer.locomo",
        "judge prompts answer",
    ]
    assert changes(then, now, ("answer_prompts",)) == ["answering prompts store.answer.locomo"]


def test_another_judge_is_a_change_and_for_a_replay_only_its_version_is() -> None:
    local = {"name": "local", "prompts": {}, "local_version": "local-7"}
    assert judge_changes(local, {**local, "local_version": "local-8"}) == [
        "local judge rules local-7 then, local-8 now"
    ]
    model = {"name": "openai:gpt-4o-mini", "prompts": {"answer": "1"}, "local_version": None}
    assert judge_changes(local, model) == ["judge local then, openai:gpt-4o-mini now"]
    assert judge_changes(local, model, version_only=True) == []


@pytest.fixture
def first(pytester: pytest.Pytester) -> tuple[pytest.Pytester, Path]:
    """A finished run on ChapterBreak's file (a small one of our own) and its folder."""
    data = pytester.path / "chapterbreak.json"
    shutil.copy(FIXTURES / "chapterbreak_mini.json", data)
    run_benchmark(pytester, *RUN, "--agent=recall", f"--mb-data=chapterbreak={data}", folder="run")
    return pytester, pytester.path / "run"


def _again(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--memorybench", *QUIET, *RUN, *args)


def _edit_provenance(folder: Path, **changed: Any) -> None:
    """run.json as an earlier release (or another machine) would have written it."""
    path = folder / "run.json"
    manifest = json.loads(path.read_text())
    manifest["provenance"].update(changed)
    path.write_text(json.dumps(manifest))


def test_a_resume_on_a_changed_data_file_is_refused_and_allowed_on_request(
    first: tuple[pytest.Pytester, Path],
) -> None:
    pytester, folder = first
    with (pytester.path / "chapterbreak.json").open("a") as data:
        data.write("\n")
    line = usage_error_line(_again(pytester, "--agent=recall", f"--mb-resume={folder}"))
    assert line.startswith(f"ERROR: --mb-resume {folder}: changed since that run: data chapterbreak sha256 ")
    assert "… then, " in line and "or --mb-allow-drift to go on anyway" in line

    allowed = _again(pytester, "--agent=recall", f"--mb-resume={folder}", "--mb-allow-drift")
    assert allowed.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), allowed.outlines[-5:]
    allowed.stdout.fnmatch_lines(["memorybench: --mb-allow-drift: --mb-resume: data chapterbreak sha256 *"])
    recorded = json.loads((folder / "run.json").read_text())["provenance"]["drift"]
    assert len(recorded) == 1 and recorded[0].startswith("--mb-resume: data chapterbreak sha256 ")
    assert results_in(folder)["run"]["provenance"]["drift"] == recorded


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("--agent=recall", "--mb-seed=1"),
            "the suites' definitions differ (seed 0 then, 1 now: give --mb-seed 0)",
        ),
        (("--agent=recall", "--mb-suite=episodic"), "the suites' definitions differ"),
        (("--agent=recall", "--judge=openai:gpt-4o-mini@http://127.0.0.1:9/v1"), "judge local then, openai:"),
    ],
)
def test_a_resume_under_other_definitions_or_another_judge_is_refused(
    first: tuple[pytest.Pytester, Path], args: tuple[str, ...], said: str
) -> None:
    pytester, folder = first
    line = usage_error_line(_again(pytester, *args, f"--mb-resume={folder}"))
    assert said in line, line


def test_a_resume_under_changed_prompts_is_refused(first: tuple[pytest.Pytester, Path]) -> None:
    """The run as an earlier release recorded it: another wording of the system prompt, other rules
    of the local judge."""
    pytester, folder = first
    judge = json.loads((folder / "run.json").read_text())["provenance"]["judge"]
    _edit_provenance(
        folder, answer_prompts={"system": "000000000000"}, judge={**judge, "local_version": "local-1"}
    )
    manifest = json.loads((folder / "run.json").read_text())
    manifest["options"]["mb_agent"] = "openai:gpt-4o-mini@http://127.0.0.1:9/v1"  # a model's run: prompts
    (folder / "run.json").write_text(json.dumps(manifest))
    line = usage_error_line(_again(pytester, f"--mb-resume={folder}"))  # (the run's agent, from run.json)
    assert "answering prompts system; local judge rules local-1 then, local-" in line, line


def test_a_replay_refuses_changed_data_but_re_judges_with_a_note(first: tuple[pytest.Pytester, Path]) -> None:
    pytester, folder = first
    judge = json.loads((folder / "run.json").read_text())["provenance"]["judge"]
    _edit_provenance(folder, judge={**judge, "name": "openai:gpt-4o-mini", "local_version": None})
    replayed = _again(pytester, f"--mb-replay={folder}", "--mb-output=replayed")
    assert replayed.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), replayed.outlines[-5:]
    replayed.stdout.fnmatch_lines(
        ["memorybench: re-judging with local: the run was judged by openai:gpt-4o-mini"]
    )

    (pytester.path / "chapterbreak.json").write_text((FIXTURES / "chapterbreak_mini.json").read_text() + " ")
    line = usage_error_line(_again(pytester, f"--mb-replay={folder}", "--mb-output=again"))
    assert line.startswith(
        f"ERROR: --mb-replay {folder}: changed since that run: data chapterbreak sha256 "
    ), line


def test_a_run_from_before_provenance_resumes_with_a_note(first: tuple[pytest.Pytester, Path]) -> None:
    pytester, folder = first
    manifest = json.loads((folder / "run.json").read_text())
    del manifest["provenance"]
    (folder / "run.json").write_text(json.dumps(manifest))
    resumed = _again(pytester, "--agent=recall", f"--mb-resume={folder}")
    assert resumed.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), resumed.outlines[-5:]
    resumed.stdout.fnmatch_lines(["memorybench: --mb-resume *: that run recorded no provenance *"])


def test_shards_that_ran_on_other_data_are_not_merged_unless_allowed(pytester: pytest.Pytester) -> None:
    shard = ("--memorybench", *QUIET, "--span=isolated", "-k", "colours or jokes", "--agent=recall")
    for index in (1, 2):
        pytester.runpytest(*shard, f"--mb-shard={index}/2", f"--mb-output=s{index}")
    _edit_provenance(pytester.path / "s2", data={"chapterbreak": {"sha256": SHA}})
    merge = (
        "--memorybench",
        *QUIET,
        "--span=isolated",
        "-k",
        "colours or jokes",
        "--mb-merge=s1",
        "--mb-merge=s2",
    )
    line = usage_error_line(pytester.runpytest(*merge, "--mb-output=merged"))
    assert (
        f"--mb-merge: {pytester.path / 's2'} ran on other sources than {pytester.path / 's1'}: data" in line
    )
    allowed = pytester.runpytest(*merge, "--mb-output=merged", "--mb-allow-drift")
    assert allowed.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), allowed.outlines[-5:]
    assert results_in(pytester.path / "merged")["run"]["provenance"]["drift"] == [
        f"--mb-merge {pytester.path / 's2'}: data chapterbreak was not read by the run"
    ]
