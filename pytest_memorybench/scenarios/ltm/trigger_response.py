"""Trigger Response (skills C, P): say a fixed sentence whenever the user does a certain thing.

GoodAI paper App. A.9: the agent is told "whenever I {request}, say '{response}'", and later the
trigger happens `trigger_activations` times (3 by default), each time as a scored line.  The
(request, response, trigger) triples are our own (eight of them; the paper has seven); the
repetitions of one seed walk a seeded shuffle of them, so they only repeat after eight.  The
setup line is "Whenever I {request}, say: '{response}'".  The reset statement cancels the
instruction.

Scoring, per trigger reply, then score = hits / activations (partial credit, as the paper says):
  1. both texts are standardised (lower-cased, ASCII punctuation removed, as the reference's
     `standardise`); a hit if the expected sentence is a substring of the reply,
  2. else a hit if ROUGE-L F(expected, reply) > `rouge_threshold` (0.75),
  3. else the judge's `sentence` task (GoodAI Fig. 20: is the sentence, or a paraphrase, present,
     and which text is it?); a hit only if it is present *and* ROUGE-L F(expected, extracted)
     > the threshold, so the judge locates the sentence but does not decide on its own.
  paper     ROUGE-L without stemming ("stick" ≠ "sticking"): the paper says ROUGE-L, nothing more.
  official  ROUGE-L with the Porter stemmer, as the reference's `utils/text.py` builds its scorer.
A missing reply (the conversation stopped) is a miss.  A judge verdict that could not be parsed
is a miss with the judge's reason, as the reference scores a JSON error 0.
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.judges.base import Judge, JudgeTask
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import GoodAIDefinitionFile, script_from_goodai
from pytest_memorybench.scenarios.ltm.question_set import benchmark_1_checklist, score_answers
from pytest_memorybench.scenarios.params import at_least, read_params
from pytest_memorybench.scenarios.waits import spread_over_span
from pytest_memorybench.scoring.profiles import OFFICIAL, PAPER, Profile
from pytest_memorybench.scoring.rouge import TRIGGER_RESPONSE_THRESHOLD, rouge_l_f
from pytest_memorybench.scoring.rouge import preload as preload_rouge

NAME = "ltm.trigger_response"
SKILLS = ("conflicting_information", "prospective")

SETUP = "Whenever I {request}, say: '{response}'"
RESET = "Forget any instruction I gave you about a sentence to say whenever I do something in particular."


@dataclass(frozen=True)
class Trigger:
    """A trigger: what the user will do, and the sentence the agent must say then."""

    request: str  # what the user will do, as the setup line phrases it
    response: str  # the sentence the agent must say
    trigger: str  # the user's line that does it


TRIGGERS = (
    Trigger(
        "ask you which day of the week it is",
        "Every day is a good day for a walk",
        "Which day of the week is it today?",
    ),
    Trigger(
        "tell you that I have lost my keys",
        "Look in the pocket of your blue coat",
        "I can't find my keys anywhere.",
    ),
    Trigger("say that I am bored", "Let us plan a trip to the seaside", "I am so bored right now."),
    Trigger("mention that it is raining", "Do not forget your umbrella", "It is pouring with rain outside."),
    Trigger(
        "tell you that I am hungry", "There is some soup left in the fridge", "I am absolutely starving."
    ),
    Trigger("complain that my back hurts", "Remember to stretch every hour", "My back is aching again."),
    Trigger("greet you with 'Ahoy!'", "Welcome aboard, captain", "Ahoy!"),
    Trigger(
        "ask you to water my plants",
        "The watering can is behind the shed",
        "Could you water the plants for me?",
    ),
)

_PUNCTUATION = str.maketrans("", "", string.punctuation)


def standardise(text: str) -> str:
    """Lower case without ASCII punctuation, as the reference compares trigger replies."""
    return text.lower().translate(_PUNCTUATION)


@dataclass(frozen=True)
class TriggerResponseParams:
    """How often the trigger is pulled, and how close a reply must be to count."""

    trigger_activations: int = 3
    rouge_threshold: float = TRIGGER_RESPONSE_THRESHOLD

    def __post_init__(self) -> None:
        at_least("trigger_activations", self.trigger_activations, 1)
        if not 0.0 <= self.rouge_threshold < 1.0:
            raise ValueError(f"rouge_threshold must be in [0, 1), got {self.rouge_threshold}")


def pick_trigger(seed: int, repetition: int) -> Trigger:
    """Repetition r of a seed takes the r-th triple of a seeded shuffle, cycling after all of them."""
    order = list(range(len(TRIGGERS)))
    random.Random(f"{NAME}|order|{seed}").shuffle(order)
    return TRIGGERS[order[(repetition - 1) % len(order)]]


class TriggerResponse:
    """`ltm.trigger_response`: a sentence to say whenever the user does something."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings = read_params(TriggerResponseParams, NAME, params)
        chosen = pick_trigger(seed, repetition)
        lines = [SETUP.format(request=chosen.request, response=chosen.response)]
        lines += [chosen.trigger] * settings.trigger_activations
        waits = spread_over_span(len(lines))
        script = tuple(
            ScriptLine(text, is_question=index > 0, wait=wait)
            for index, (text, wait) in enumerate(zip(lines, waits, strict=True))
        )
        expected = [chosen.response] * settings.trigger_activations
        ideal = tuple(expected)
        params = asdict(settings)
        return definition(self, suite, repetition, seed, script, ideal, expected, params, reset_message=RESET)

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI Trigger Response file: its script (HTML entities as the reference sent them),
        waits and expected sentences, the reference's threshold and reset statement."""
        expected = [str(sentence) for sentence in raw["expected_responses"]]
        ideal = tuple(expected)
        params = {"goodai_example": example_id, "rouge_threshold": TRIGGER_RESPONSE_THRESHOLD}
        return definition(
            self,
            suite,
            repetition,
            0,
            script_from_goodai(raw),
            ideal,
            expected,
            params,
            reset_message=(
                "Cancel any instructions as to what sentence you should say whenever I do something in"
                " particular."
            ),
        )

    def warm_up(self) -> None:
        preload_rouge()

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        if benchmark_1_checklist(definition, context):
            return await score_answers(definition, responses, context)
        given = definition.params.get("rouge_threshold", TRIGGER_RESPONSE_THRESHOLD)
        threshold = float(given) if isinstance(given, (int, float, str)) else TRIGGER_RESPONSE_THRESHOLD
        return await score_trigger_replies(
            definition.expected, responses, context.profile, context.judge, threshold=threshold
        )


async def score_trigger_reply(
    expected: str,
    reply: str,
    profile: Profile,
    judge: Judge | None = None,
    *,
    threshold: float = TRIGGER_RESPONSE_THRESHOLD,
) -> tuple[bool, str]:
    """Whether one reply says the expected sentence, and why (see the module docstring)."""
    if profile not in (PAPER, OFFICIAL):
        raise ValueError(f"unknown scoring profile {profile!r}")
    stem = profile == OFFICIAL
    how = "with stemming" if stem else "without stemming"
    want, got = standardise(expected), standardise(reply)
    if want and want in got:
        return True, f"the reply contains {expected!r} (ignoring case and punctuation)"
    f = rouge_l_f(want, got, use_stemmer=stem)
    if f > threshold:
        return True, f"ROUGE-L F = {f:.3f} > {threshold} against {expected!r} ({how})"
    if judge is None:
        from pytest_memorybench.judges.local import LocalJudge

        judge = LocalJudge()
    verdict = await judge.judge(JudgeTask("sentence", {"answer": reply, "sentence": expected}, NAME))
    if not verdict.ok:
        return False, f"ROUGE-L F = {f:.3f} ({how}); {verdict.error or 'the judge gave no verdict'}"
    data = verdict.data or {}
    extracted = data.get("extracted")
    if not data.get("present") or not extracted:
        return (
            False,
            f"ROUGE-L F = {f:.3f} ({how}) and the judge ({judge.name}) finds no {expected!r} in the reply",
        )
    f_extracted = rouge_l_f(want, standardise(str(extracted)), use_stemmer=stem)
    if f_extracted > threshold:
        return (
            True,
            (
                f"the judge ({judge.name}) extracted {extracted!r}: ROUGE-L F = {f_extracted:.3f} >"
                f" {threshold} ({how})"
            ),
        )
    return False, (
        f"the judge ({judge.name}) extracted {extracted!r}, but its ROUGE-L F = {f_extracted:.3f} against "
        f"{expected!r} is not above {threshold} ({how})"
    )


async def score_trigger_replies(
    expected: Sequence[str],
    responses: Sequence[str],
    profile: Profile,
    judge: Judge | None = None,
    *,
    threshold: float = TRIGGER_RESPONSE_THRESHOLD,
) -> Score:
    """hits / len(expected): one verdict per trigger, in order; a missing reply is a miss."""
    if not expected:
        return Score(0.0, ("nothing to score: no trigger was expected",))
    hits, reasons = 0, []
    for index, sentence in enumerate(expected):
        if index >= len(responses):
            reasons.append(f"trigger {index + 1}: no reply")
            continue
        hit, why = await score_trigger_reply(sentence, responses[index], profile, judge, threshold=threshold)
        hits += hit
        reasons.append(f"trigger {index + 1}: {'hit' if hit else 'miss'}: {why}")
    reasons.append(f"{hits} of {len(expected)} triggers answered with the sentence, {profile} profile")
    return Score(hits / len(expected), tuple(reasons))


SCENARIO = TriggerResponse()
