"""`--mb-resume DIR` alone: what run.json keeps of a run's options and selection, and what a resume
command may change (runner/resumed.py)."""

from __future__ import annotations

import json
from fnmatch import fnmatch
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.runner.resumed import RUN_OPTIONS, RunCommand, as_resumed
from tests.support.runs import QUIET, results_in

pytest_plugins = ["pytester"]


def options(**given: object) -> SimpleNamespace:
    """A command line's options: every run option at its default, but `given`."""
    return SimpleNamespace(**{**{o.dest: o.default for o in RUN_OPTIONS}, "mb_resume": None, **given})


def folder_with(tmp_path: Path, recorded: dict[str, object]) -> str:
    (tmp_path / "run.json").write_text(
        json.dumps({"id": "r", "clock_start": "2026-01-01T00:00:00+00:00", "options": recorded})
    )
    return str(tmp_path)


def test_the_defaults_are_the_parsers(pytester: pytest.Pytester) -> None:
    """An option at its default counts as not given: the table's defaults must be the parser's."""
    config = pytester.parseconfig("--memorybench")
    assert {o.dest: o.default for o in RUN_OPTIONS} == {o.dest: config.getoption(o.dest) for o in RUN_OPTIONS}


def test_run_json_keeps_what_was_given_and_no_credentials() -> None:
    given = options(
        mb_agent="openai:m@https://user:secret@llm.example/v1",
        mb_seed=3,
        mb_judge="local",  # the default: not written
        mb_price=["m=1,2"],
        mb_threshold=0.5,
    )
    kept = RunCommand.of(given)
    assert kept.options == {"mb_seed": 3, "mb_price": ["m=1,2"], "mb_threshold": 0.5}
    assert kept.withheld == ("--agent=openai:m@https://***@llm.example/v1",)


def test_a_resume_takes_the_runs_options_where_the_command_gives_none(tmp_path: Path) -> None:
    folder = folder_with(
        tmp_path,
        {
            "mb_agent": "recall",
            "mb_seed": 3,
            "mb_judge": "openai:j",
            "mb_price": ["m=1,2"],
            "mb_timeout": 30.0,
        },
    )
    resumed = as_resumed(options(mb_resume=folder, mb_judge="local", mb_price=["m=5,5", "n=1,1"]))
    assert (resumed.mb_agent, resumed.mb_seed, resumed.mb_judge, resumed.mb_timeout) == (
        "recall",
        3,
        "openai:j",
        30.0,
    )
    assert resumed.mb_price == ["m=1,2", "m=5,5", "n=1,1"], "the command's prices come last: they win"
    again = as_resumed(options(mb_resume=folder, mb_judge="openai:other", mb_timeout=5.0, mb_agent="recall"))
    assert (again.mb_judge, again.mb_timeout) == ("openai:other", 5.0), "the command's own win"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"mb_agent": "null"},
            "--agent null: the run in * ran with --agent recall, and a resumed run goes on as it began; drop"
            " --agent, or start a new run",
        ),
        ({"mb_seed": 4}, "--mb-seed 4: the run in * ran with --mb-seed 3, *"),
        ({"mb_sample": 10}, "--mb-sample 10: the run in * ran with --mb-sample 20, *"),
    ],
)
def test_a_resume_may_not_change_the_agent_or_the_tests(tmp_path: Path, given: dict, message: str) -> None:
    folder = folder_with(tmp_path, {"mb_agent": "recall", "mb_seed": 3, "mb_sample": 20})
    with pytest.raises(UsageError) as refused:
        as_resumed(options(mb_resume=folder, **given))
    assert fnmatch(str(refused.value), message), str(refused.value)


def test_a_folder_alone_resumes_the_tests_the_run_selected_with_its_agent(pytester: pytest.Pytester) -> None:
    """A run planned and stopped before any conversation began (here: collected only) resumes from
    its folder alone: its agent, its span, its `-k`."""
    planned = pytester.runpytest(
        *QUIET, "--memorybench", "--agent=oracle", "--span=isolated", "-k", "colours", "--mb-output=run",
        "--collect-only",
    )  # fmt: skip
    assert planned.ret == pytest.ExitCode.OK
    kept = json.loads((pytester.path / "run" / "run.json").read_text())
    assert kept["options"] == {"mb_agent": "oracle"} and len(kept["selected"]) == 3

    resumed = pytester.runpytest(*QUIET, "--memorybench", "--mb-resume=run")
    resumed.assert_outcomes(passed=3, deselected=30)
    results = results_in(pytester.path / "run")
    assert results["run"]["agent"] == "oracle" and results["run"]["span"] == {"ltm": "isolated"}
