"""The false-acceptance half of the judge check: the packaged wrong answers, what accepting means per
kind, the local judge's figures (pinned: the README reports them) and the check as a CI gate."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.judge_check.command import (
    report_lines,
    run_judge_check,
    shortfalls,
    spread,
)
from pytest_memorybench.judge_check.evaluation import evaluate_judge
from pytest_memorybench.judge_check.metaeval import load_cases
from pytest_memorybench.judge_check.wrong_answers import (
    TRAPS,
    WrongAnswer,
    accepts,
    load_wrong_answers,
)
from pytest_memorybench.judges.base import (
    TASK_KINDS,
    JudgeStats,
    JudgeTask,
    JudgeVerdict,
)
from pytest_memorybench.judges.local import LocalJudge
from tests.judge_check.test_judge_metaeval import LOCAL_FALSE_ACCEPTANCE
from tests.support.paths import DOCS

WRONG = load_wrong_answers()
README = DOCS / "judges.md"


def test_every_kind_has_at_least_20_wrong_answers_of_several_traps() -> None:
    per_kind = Counter(answer.kind for answer in WRONG)
    assert set(per_kind) == set(TASK_KINDS)
    assert min(per_kind.values()) >= 20, per_kind
    for kind in TASK_KINDS:
        traps = {answer.trap for answer in WRONG if answer.kind == kind}
        assert len(traps) >= 4, (kind, traps)
    assert {answer.trap for answer in WRONG} <= set(TRAPS)
    assert all(answer.right_end is not None for answer in WRONG if answer.kind == "directions")


def test_a_malformed_wrong_answer_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "wrong.jsonl"
    good = json.dumps(
        {"id": "x", "kind": "sentence", "trap": "hedge", "payload": {"answer": "a", "sentence": "b"}}
    )
    path.write_text(good + "\n" + good.replace('"hedge"', '"bluff"') + "\n")
    with pytest.raises(ValueError, match=r"wrong.jsonl:2: x: unknown trap 'bluff'"):
        load_wrong_answers(path)
    path.write_text(
        json.dumps(
            {"id": "y", "kind": "directions", "trap": "hedge", "payload": {"answer": "a", "places": []}}
        )
    )
    with pytest.raises(ValueError, match=r":1: y: 'right_end' belongs to directions answers"):
        load_wrong_answers(path)


@pytest.mark.parametrize(
    ("kind", "data", "accepted"),
    [
        ("reference", {"refers": True, "expected_is_number": True, "numbers_match": False}, False),
        ("reference", {"refers": True, "expected_is_number": False, "numbers_match": None}, True),
        ("nugget", {"score": 0.5}, True),
        ("nugget", {"score": 0}, False),
        ("items", {"identified": ["x"], "matching": [0, 0.5]}, True),
        ("items", {"identified": ["x"], "matching": [0, 0]}, False),
        ("order", {"predicted_indexes": [-1, 2]}, True),
        ("order", {"predicted_indexes": [-1, -1]}, False),
        ("restaurant", {"dishes": ["Charred Leek Tart"], "drinks": [], "other": None}, True),
        ("restaurant", {"dishes": ["Charred Leek Tart"], "drinks": [], "other": "fries"}, False),
        ("restaurant", {"dishes": [], "drinks": [], "other": None}, False),
        (
            "directions",
            {
                "hops": [
                    {"origin": "A", "kilometers": 2, "direction": "north", "destination": "B"},
                    {"origin": "B", "kilometers": 3, "direction": "east", "destination": "C"},
                ]
            },
            True,
        ),
        (
            "directions",
            {"hops": [{"origin": "A", "kilometers": 2, "direction": "north", "destination": "B"}]},
            False,
        ),
    ],
)
def test_what_accepting_a_wrong_answer_means(kind: str, data: dict[str, Any], accepted: bool) -> None:
    answer = WrongAnswer("x", kind, "hedge", {}, right_end=(3, 2) if kind == "directions" else None)
    assert accepts(answer, data) is accepted


@pytest.mark.asyncio
async def test_the_local_judge_refuses_the_wrong_answers_as_the_readme_says() -> None:
    report = await evaluate_judge(LocalJudge(), (), WRONG)
    figures = {kind: (tally.accepted, tally.total) for kind, tally in report.false_accepts.items()}
    assert figures == LOCAL_FALSE_ACCEPTANCE
    assert all(
        tally.rate <= 0.05 for tally in report.false_accepts.values()
    )  # the goal: at most 5 % per kind
    assert report.wrong_errors == []
    table = README.read_text(encoding="utf-8")
    for kind, (accepted, total) in figures.items():
        assert f"| {kind} | {accepted} of {total} |" in table, kind


class Credulous:
    """A judge that believes every answer: what an over-generous LLM judge looks like."""

    name = "credulous"
    stats = JudgeStats()

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        payload = task.payload
        data: dict[str, Any] = {
            "reference": {"refers": True, "expected_is_number": False, "numbers_match": None},
            "sentence": {"present": True, "extracted": "x"},
            "equivalence": {"equivalent": True},
            "interpretation": {"valid": True},
            "nugget": {"score": 1},
            "items": {
                "identified": list(payload.get("ground_truth", [])),
                "matching": [1] * len(payload.get("ground_truth", [])),
            },
            "order": {"predicted_indexes": list(range(len(payload.get("predicted", []))))},
            "restaurant": {"dishes": list(payload.get("menu", []))[:1], "drinks": [], "other": None},
        }.get(task.kind, {"hops": []})
        return JudgeVerdict(task.kind, data)

    async def aclose(self) -> None:
        return None


@pytest.mark.asyncio
async def test_a_credulous_judge_is_caught_by_the_gate() -> None:
    report = await evaluate_judge(Credulous(), load_cases(), WRONG)
    assert report.false_acceptance("reference") == 1.0
    lines = report_lines(report)
    assert lines[-1].startswith("agreement ") and "accepts wrong" in lines[-1]
    failures = shortfalls(report, 0.9, 0.05)
    assert failures[0].startswith("agreement ") and "below --mb-min-agreement 90.0%" in failures[0]
    assert any(
        line.startswith(
            "reference: accepts 24 of 24 wrong answers (100.0%), above --mb-max-false-accept 5.0%"
        )
        for line in failures
    )


def test_the_judge_check_is_a_gate(capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    assert run_judge_check("local", None, lines.append, min_agreement=0.9, max_false_accept=0.05) == 0
    assert not any(line.startswith("FAILED") for line in lines)
    lines.clear()
    assert run_judge_check("local", None, lines.append, min_agreement=0.98, max_false_accept=0.0) == 1
    failed = [line for line in lines if line.startswith("FAILED judge check: ")]
    assert failed == [
        "FAILED judge check: agreement 97.8% with the human labels is below --mb-min-agreement 98.0%",
        (
            "FAILED judge check: equivalence: accepts 1 of 20 wrong answers (5.0%), above"
            " --mb-max-false-accept 0.0%"
        ),
        (
            "FAILED judge check: interpretation: accepts 1 of 20 wrong answers (5.0%), above"
            " --mb-max-false-accept 0.0%"
        ),
        "FAILED judge check: answer: accepts 1 of 20 wrong answers (5.0%), above --mb-max-false-accept 0.0%",
    ]
    with pytest.raises(UsageError, match="--mb-max-false-accept 5 is not a share: give a number from 0 to 1"):
        run_judge_check("local", None, lines.append, max_false_accept=5)


def test_a_sample_asks_a_few_of_each_task_spread_through_it() -> None:
    cases = load_cases()
    sample = spread(cases, 2)
    assert Counter(case.kind for case in sample) == {kind: 2 for kind in TASK_KINDS}
    references = [case for case in cases if case.kind == "reference"]
    assert [case.id for case in sample if case.kind == "reference"] == [
        references[0].id,
        references[len(references) // 2].id,
    ]
    assert spread(WRONG, None) == WRONG
    lines: list[str] = []
    assert run_judge_check("local", None, lines.append, sample=2) == 0
    assert (
        lines[0] == "[memorybench] judged 40/40"
        and lines[1] == "judge check of local: 20 labelled cases, 20 wrong answers"
    )
    with pytest.raises(UsageError, match="--mb-judge-sample 0 asks nothing"):
        run_judge_check("local", None, lines.append, sample=0)
