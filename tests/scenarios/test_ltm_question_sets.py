"""Delayed Recall and Instruction Recall (GoodAI Benchmarks 1 and 2): generators, scorer, calibration."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.scenarios import get_scenario

NAMES = ("ltm.delayed_recall", "ltm.instruction_recall")


def generate(name: str, seed: int = 0, repetition: int = 1, **params: int) -> TestDefinition:
    return get_scenario(name).generate("ltm", params, seed, repetition)


def score(definition: TestDefinition, replies: list[str]) -> tuple[float, tuple[str, ...]]:
    verdict = asyncio.run(get_scenario(definition.scenario).score(definition, replies, ScoringContext()))
    return verdict.value, verdict.reasons


@pytest.mark.parametrize(("name", "questions"), [("ltm.delayed_recall", 10), ("ltm.instruction_recall", 5)])
def test_shape_follows_goodai_content_first_then_questions(name: str, questions: int) -> None:
    definition = generate(name)
    assert not definition.script[0].is_question and all(line.is_question for line in definition.script[1:])
    assert len(definition.questions) == questions == len(definition.expected) == len(definition.ideal_answers)
    assert definition.script[-1].wait == {} and definition.script[-2].wait == {"percentage_finished": 90.0}
    assert definition.reset_message


def test_every_delayed_recall_answer_is_stated_in_the_facts() -> None:
    for repetition in (1, 2, 3):
        definition = generate("ltm.delayed_recall", repetition=repetition)
        facts = definition.script[0].text
        for answer in definition.expected:
            core = (
                answer.removeprefix("The ")
                .removeprefix("They ")
                .removeprefix("In ")
                .removeprefix("Once every ")
                .removeprefix("Every ")
            )
            assert core.split()[0] in facts, answer
        assert all(
            question.split(" ", 1)[0] in {"A", "Back", "Thinking", "About"}
            for question in definition.questions
        )


def test_instruction_recall_lists_numbered_steps_of_one_device() -> None:
    definition = generate("ltm.instruction_recall", steps=7, questions=3)
    lines = definition.script[0].text.splitlines()
    assert lines[0].startswith("These are the instructions for using my new ")
    assert [line.split(".", 1)[0] for line in lines[2:]] == [str(n) for n in range(1, 8)]
    assert len(definition.questions) == 3


@pytest.mark.parametrize(("name", "params", "message"), [
    ("ltm.delayed_recall", {"facts": 3, "questions": 4}, "questions (4) cannot exceed facts (3)"),
    ("ltm.delayed_recall", {"facts": 40}, "facts must be at most 14"),
    ("ltm.instruction_recall", {"steps": 0}, "steps must be at least 1"),
])  # fmt: skip
def test_bad_parameters_say_what_is_wrong(name: str, params: dict[str, int], message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        generate(name, **params)


def test_the_score_is_the_share_of_answers_that_refer_to_the_expected_ones() -> None:
    definition = generate("ltm.instruction_recall")
    right = list(definition.expected)
    value, reasons = score(
        definition, [right[0], "No idea, sorry.", f"I think it was: {right[2]}", right[0], ""]
    )
    assert value == pytest.approx(2 / 5)
    assert reasons[0].startswith("question 1: right:") and reasons[1].startswith("question 2: wrong:")
    assert reasons[-1] == "2 of 5 answers refer to the expected ones (paper profile, judge local)"


def test_a_number_answer_needs_the_number() -> None:
    definition = generate("ltm.delayed_recall")
    numbered = next(
        index for index, answer in enumerate(definition.expected) if any(ch.isdigit() for ch in answer)
    )
    replies = list(definition.expected)
    replies[numbered] = "".join("9" if ch.isdigit() else ch for ch in replies[numbered])
    value, reasons = score(definition, replies)
    assert value == pytest.approx(0.9)
    assert "the numbers do not match" in reasons[numbered]


def test_a_goodai_file_of_benchmark_1_reads_with_its_spacings(tmp_path: Path) -> None:
    """Our own content in Benchmark 1's layout: `token_spacings` and `time_jumps`, no `waits`."""
    from tests.support.goodai import write_v1_folder

    write_v1_folder(tmp_path)
    from pytest_memorybench.suite import load_suite

    suite = load_suite(f"goodai-definitions={tmp_path}")
    definition = next(d for d in suite.definitions(0) if d.scenario == "ltm.delayed_recall")
    assert [line.wait for line in definition.script][:2] == [{"tokens": 500}, {"tokens": 500}]
    assert (
        definition.expected
        == json.loads((tmp_path / "Delayed Recall" / "0.def.json").read_text())["expected_responses"]
    )
