"""A block of content, then questions about it: GoodAI's "GPT-generated" datasets.

Delayed Recall and Instruction Recall (GoodAI Benchmarks 1 and 2) share one shape: the first line
gives the agent a text (facts about a fictional world, the steps for operating a device), and every
later line is a question about it, each with its expected answer.  GoodAI generated the texts with
gpt-3.5-turbo and scored every reply with a GPT-4 checklist judge (paper Fig. 8: does the answer
refer to the expected answer; if that is a number, do the numbers match); the score is the share of
questions answered correctly.  We generate the texts offline from our own templates (each scenario
module keeps its own) and score through `score_reference`, so any `--judge` applies the same rule;
the code and its paper agree here, so both profiles score alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_memorybench.goodai.format import script_from_goodai
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.scenarios.base import ScoringContext
from pytest_memorybench.scenarios.waits import spread_over_span
from pytest_memorybench.scoring.judged import score_reference
from pytest_memorybench.scoring.profiles import OFFICIAL


def question_script(content: str, questions: Sequence[str]) -> tuple[ScriptLine, ...]:
    """The content, then the questions, spread over 90 % of the span as GoodAI's default waits."""
    lines = [content, *questions]
    waits = spread_over_span(len(lines))
    return tuple(ScriptLine(text, is_question=index > 0, wait=wait) for index, (text, wait) in enumerate(zip(lines, waits)))


def question_set(
    *,
    suite: str,
    scenario: str,
    repetition: int,
    seed: int,
    script: tuple[ScriptLine, ...],
    answers: Sequence[str],
    skills: tuple[str, ...],
    params: dict[str, Any],
    reset_message: str,
) -> TestDefinition:
    """The definition: every question's expected answer is also what a perfect agent says."""
    questions = sum(line.is_question for line in script)
    if questions != len(answers):
        raise ValueError(f"{questions} questions but {len(answers)} expected answers")
    return TestDefinition(
        suite=suite,
        scenario=scenario,
        repetition=repetition,
        seed=seed,
        script=script,
        ideal_answers=tuple(answers),
        expected=list(answers),
        skills=skills,
        params=params,
        reset_message=reset_message,
    )


def from_goodai_file(
    raw: dict[str, Any], example_id: str, *, suite: str, scenario: str, repetition: int, skills: tuple[str, ...], reset_message: str
) -> TestDefinition:
    """A GoodAI Delayed Recall or Instruction Recall file: its script and waits, its answers."""
    answers = [str(answer) for answer in raw["expected_responses"]]
    return question_set(
        suite=suite,
        scenario=scenario,
        repetition=repetition,
        seed=0,
        script=script_from_goodai(raw),
        answers=answers,
        skills=skills,
        params={"goodai_example": example_id},
        reset_message=reset_message,
    )


def benchmark_1_checklist(definition: TestDefinition, context: ScoringContext) -> bool:
    """Whether to score as Benchmark 1's code did: the official profile on a Benchmark 1 file.

    There every scenario without a rule of its own (Sally-Anne, Trigger Response, Locations
    Directions) was scored by this checklist judge, one question at a time.
    """
    return context.profile == OFFICIAL and definition.params.get("goodai_format") == 1


async def score_answers(
    definition: TestDefinition, responses: Sequence[str], context: ScoringContext, answers: Sequence[str] | None = None
) -> Score:
    """The share of questions whose reply refers to the expected answer (GoodAI's checklist);
    `answers` replaces the definition's own expected answers (a list of them)."""
    judge = context.judge or LocalJudge()
    answers = list(definition.expected if answers is None else answers)
    reasons, correct = [], 0
    for number, (question, expected) in enumerate(zip(definition.questions, answers), 1):
        reply = responses[number - 1] if number <= len(responses) else ""
        verdict = await score_reference(judge, question=question, expected=expected, answer=reply, scorer=definition.scenario)
        correct += verdict.value == 1.0
        reasons.append(f"question {number}: {'right' if verdict.value == 1.0 else 'wrong'}: {'; '.join(verdict.reasons)}")
    total = len(answers)
    reasons.append(f"{correct} of {total} answers refer to the expected ones ({context.profile} profile, judge {judge.name})")
    return Score(correct / total if total else 0.0, tuple(reasons))
