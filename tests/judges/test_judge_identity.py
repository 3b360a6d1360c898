"""Every verdict traceable: results.json names the judge that scored the run, and a baseline gate or a
comparison refuses runs judged differently unless told to go on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.judges.identity import (
    describe_identity,
    identity_of,
    judged_differently,
)
from pytest_memorybench.judges.local import VERSION
from pytest_memorybench.reports.gate import evaluate
from pytest_memorybench.results.file import Baseline
from tests.pytest_integration.test_plugin import colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.reports.test_gate import ISOLATED, baseline_file
from tests.support.runs import results_in

LOCAL = {
    "judge": "local",
    "judge_identity": {
        "spec": "local",
        "model": None,
        "prompts": {"reference": VERSION},
        "output_form": None,
        "local_version": VERSION,
    },
}


def llm(
    model: str = "gpt-4o-mini-2024-07-18", prompt: str = "a1b2c3d4e5", form: str = "json_schema"
) -> dict[str, Any]:
    return {
        "judge": "openai:gpt-4o-mini",
        "judge_identity": {
            "spec": "openai:gpt-4o-mini",
            "model": model,
            "prompts": {"reference": prompt, "nugget": "ffff0000"},
            "output_form": form,
            "local_version": None,
        },
    }


@pytest.mark.parametrize(
    ("first", "second", "difference"),
    [
        (LOCAL, LOCAL, None),
        (llm(), llm(), None),
        (LOCAL, llm(), "judge local vs openai:gpt-4o-mini"),
        (
            llm(),
            llm(model="gpt-4o-mini-2025-01-01"),
            "model gpt-4o-mini-2024-07-18 vs gpt-4o-mini-2025-01-01",
        ),
        (llm(), llm(form="text"), "structured output json_schema vs text"),
        (llm(), llm(prompt="99999999"), "openai:gpt-4o-mini with other prompt versions for reference"),
        (
            {"judge": "local", "judge_prompt_hashes": {"reference": "local-4"}},
            LOCAL,
            "local with other prompt versions for reference",
        ),  # an older results.json: name and prompt hashes only
        (
            {"judge": "local", "judge_prompt_hashes": {"equivalence": "local-4"}},
            LOCAL,
            None,
        ),  # no task asked by both
        ({}, LOCAL, None),  # a baseline that names no judge
    ],
)
def test_runs_judged_differently_are_told_apart(
    first: dict[str, Any], second: dict[str, Any], difference: str | None
) -> None:
    assert judged_differently(first, second) == difference


def test_the_identity_reads_in_one_line() -> None:
    assert describe_identity(identity_of(LOCAL)) == f"local · rules {VERSION}"
    assert (
        describe_identity(identity_of(llm()))
        == "openai:gpt-4o-mini · model gpt-4o-mini-2024-07-18 · output json_schema · prompts reference"
        " a1b2c3d4, nugget ffff0000"
    )


def results(run: dict[str, Any], mean: float = 0.5) -> dict[str, Any]:
    return {
        "run": {"span": {}, "profile": "paper", **run},
        "totals": {"mean": mean, "errors": 0},
        "suites": {"ltm": {"mean": mean, "ci95": None, "n": 3}},
        "scenarios": {},
        "items": [],
    }


def test_the_gate_refuses_a_baseline_judged_differently_unless_told(tmp_path: Path) -> None:
    baseline = Baseline.load(baseline_file(tmp_path / "base.json", 0.5, **llm()))
    refused = evaluate(results(LOCAL), baseline=baseline, max_drop=0.1)
    assert not refused.passed and refused.rows == []
    assert refused.failures == [
        "the baseline was judged differently (judge openai:gpt-4o-mini vs local): its scores are not"
        " comparable; judge both runs alike, or pass --mb-compare-anyway"
    ]
    anyway = evaluate(results(LOCAL), baseline=baseline, max_drop=0.1, anyway=True)
    assert anyway.passed and anyway.rows
    assert (
        "compared anyway (--mb-compare-anyway): judged differently (judge openai:gpt-4o-mini vs local)"
        in anyway.notes
    )


def test_a_run_names_its_judge_and_a_gate_across_judges_refuses_with_one_line(
    pytester: pytest.Pytester,
) -> None:
    pytester.runpytest(*ISOLATED, "--agent=oracle", "--mb-output=base").assert_outcomes(passed=3)
    run = results_in(pytester.path / "base")["run"]
    assert run["judge_identity"]["spec"] == "local" and run["judge_identity"]["local_version"] == VERSION
    assert f"local · rules {VERSION}" in (pytester.path / "base" / "report.html").read_text()
    earlier = results_in(pytester.path / "base")
    earlier["run"].update(llm())  # as if an LLM judge had scored the baseline
    (pytester.path / "llm.json").write_text(json.dumps(earlier))
    result = pytester.runpytest(*ISOLATED, "--agent=oracle", "--mb-baseline=llm.json", "--mb-output=now")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["gate FAILED: the baseline was judged differently (judge openai:gpt-4o-mini vs local)*"]
    )
    anyway = pytester.runpytest(
        *ISOLATED, "--agent=oracle", "--mb-baseline=llm.json", "--mb-compare-anyway", "--mb-output=again"
    )
    assert anyway.ret == pytest.ExitCode.OK
    anyway.stdout.fnmatch_lines(
        ["note: compared anyway (--mb-compare-anyway): judged differently*", "gate passed*"]
    )
