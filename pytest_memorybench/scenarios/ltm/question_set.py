"""A block of content, then questions about it: GoodAI's "GPT-generated" datasets.

Delayed Recall and Instruction Recall (GoodAI Benchmarks 1 and 2) share one shape: the first line
gives the agent a text (facts about a fictional world, the steps for operating a device), and every
later line is a question about it, each with its expected answer.  GoodAI generated the texts with
gpt-3.5-turbo and scored every reply with a GPT-4 checklist judge (paper Fig. 8: does the answer
refer to the expected answer; if that is a number, do the numbers match); the score is the share of
questions answered correctly.  We generate the texts offline from our own templates (each scenario
module keeps its own) and score through `score_reference`, so any `--judge` applies the same rule.
There is no paper for these datasets; the paper profile adds one rule GoodAI's checklist lacks: a
reply that says back most of the content message (what a retrieval agent does) is no answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.ltm.goodai_format import GoodAIDefinitionFile, script_from_goodai
from pytest_memorybench.scenarios.waits import spread_over_span
from pytest_memorybench.scoring.judged import score_reference
from pytest_memorybench.scoring.profiles import OFFICIAL


def question_script(content: str, questions: Sequence[str]) -> tuple[ScriptLine, ...]:
    """The content, then the questions, spread over 90 % of the span as GoodAI's default waits."""
    lines = [content, *questions]
    waits = spread_over_span(len(lines))
    return tuple(
        ScriptLine(text, is_question=index > 0, wait=wait)
        for index, (text, wait) in enumerate(zip(lines, waits, strict=True))
    )


def question_set(
    *,
    suite: str,
    scenario: str,
    repetition: int,
    seed: int,
    script: tuple[ScriptLine, ...],
    answers: Sequence[str],
    skills: tuple[str, ...],
    params: JsonObject,
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
    raw: GoodAIDefinitionFile,
    example_id: str,
    *,
    suite: str,
    scenario: str,
    repetition: int,
    skills: tuple[str, ...],
    reset_message: str,
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


def _words(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z0-9]+", text.lower()) if len(word) > 2}


def _repeats(content: set[str], reply: str) -> bool:
    """A reply holding most of a long content message: it answers every question and none (paper profile).

    An agent that retrieves the whole message and says it back would otherwise "refer to" every
    expected answer at once; GoodAI's checklist (the official profile) did not look for this.
    """
    return len(content) >= 30 and len(content & _words(reply)) >= 0.6 * len(content)


async def score_answers(
    definition: TestDefinition,
    responses: Sequence[str],
    context: ScoringContext,
    answers: Sequence[str] | None = None,
) -> Score:
    """The share of questions whose reply refers to the expected answer (GoodAI's checklist);
    `answers` replaces the definition's own expected answers (a list of them)."""
    judge = context.judge or LocalJudge()
    answers = list(definition.expected if answers is None else answers)
    content = _words(definition.script[0].text) if definition.script else set()
    reasons, correct = [], 0
    for number, (question, expected) in enumerate(zip(definition.questions, answers, strict=True), 1):
        reply = responses[number - 1] if number <= len(responses) else ""
        if context.profile != OFFICIAL and _repeats(content, reply):
            reasons.append(
                f"question {number}: wrong: the reply repeats most of the text it was given instead of"
                " answering"
            )
            continue
        verdict = await score_reference(
            judge, question=question, expected=expected, answer=reply, scorer=definition.scenario
        )
        correct += verdict.value == 1.0
        reasons.append(
            f"question {number}: {'right' if verdict.value == 1.0 else 'wrong'}: {'; '.join(verdict.reasons)}"
        )
    total = len(answers)
    reasons.append(
        f"{correct} of {total} answers refer to the expected ones ({context.profile} profile, judge"
        f" {judge.name})"
    )
    return Score(correct / total if total else 0.0, tuple(reasons))


class QuestionSetScenario:
    """What every question-set scenario shares: its definitions, GoodAI files and scorer.

    A subclass names itself (`name`, `skills`, `reset_message`) and writes `generate`, building
    its definition with `definition`.
    """

    name: str
    skills: tuple[str, ...]
    reset_message: str

    def definition(
        self,
        suite: str,
        repetition: int,
        seed: int,
        content: str,
        cases: Sequence[tuple[str, str]],
        params: JsonObject,
    ) -> TestDefinition:
        """The content, then each (question, answer) case."""
        return question_set(
            suite=suite,
            scenario=self.name,
            repetition=repetition,
            seed=seed,
            script=question_script(content, [question for question, _ in cases]),
            answers=[answer for _, answer in cases],
            skills=self.skills,
            params=params,
            reset_message=self.reset_message,
        )

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        return from_goodai_file(
            raw, example_id, suite=suite, scenario=self.name, repetition=repetition, skills=self.skills,
            reset_message=self.reset_message,
        )  # fmt: skip

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Any:
        return score_answers(definition, responses, context)
