"""How to Think (GoodAI's `how_to_think`): a way of reasoning is taught, then applied to new cases.

GoodAI's dataset (GPT-3.5-generated, judged by GPT-4's checklist): one message explains a thought
process for some kind of decision; each question describes a situation and asks for the decision
that process gives.  Ours: one of our own small decision procedures, with numbers drawn per test,
then `questions` situations whose answers the procedure computes.  Scored as `question_set` says.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.scenarios.ltm.question_set import QuestionSetScenario
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least

NAME = "ltm.how_to_think"
SKILLS = ("recall", "information_integration")
RESET = "Please forget the ways of deciding things that I taught you earlier."

Case = tuple[str, str]  # (situation question, answer)


def watering(rng: random.Random) -> tuple[str, Callable[[random.Random], Case]]:
    """A watering rule and the cases it decides."""
    base, hot, limit = rng.randint(2, 4), rng.randint(1, 3), rng.choice((25, 28, 30))
    method = (
        "This is how I decide how many cups of water my tomato plants get. I start from "
        f"{base} cups. If it rained that day, they get nothing at all. Otherwise, if it is hotter than "
        f"{limit} degrees, I add {hot} cups. If the leaves are turning yellow, I give one cup less than "
        "that, because yellow leaves mean too much water."
    )

    def case(rng: random.Random) -> Case:
        rain, temperature, yellow = rng.random() < 0.25, rng.randint(limit - 8, limit + 6), rng.random() < 0.4
        cups = 0 if rain else base + (hot if temperature > limit else 0) - (1 if yellow else 0)
        situation = (
            f"It {'rained' if rain else 'did not rain'} today, it is {temperature} degrees, and the leaves "
            f"{'are' if yellow else 'are not'} turning yellow. How many cups do the tomatoes get?"
        )
        return situation, f"{cups} cups"

    return method, case


def commuting(rng: random.Random) -> tuple[str, Callable[[random.Random], Case]]:
    """A commuting rule and the cases it decides."""
    early, far = rng.choice((8, 9)), rng.randint(6, 12)
    method = (
        f"Here is how I choose how to get to a meeting. If the meeting starts before {early} o'clock, I take"
        f" a taxi, whatever the weather. Otherwise, if it is more than {far} km away, I take the train."
        " Otherwise I cycle, unless it is raining, in which case I take the bus."
    )

    def case(rng: random.Random) -> Case:
        hour, distance, rain = (
            rng.randint(early - 2, early + 4),
            rng.randint(far - 4, far + 6),
            rng.random() < 0.4,
        )
        mode = "taxi" if hour < early else "train" if distance > far else "bus" if rain else "bicycle"
        situation = (f"A meeting starts at {hour} o'clock, {distance} km away, and it "
                     f"{'is' if rain else 'is not'} raining. How do I get there?")  # fmt: skip
        return situation, f"By {mode}"

    return method, case


def tipping(rng: random.Random) -> tuple[str, Callable[[random.Random], Case]]:
    """A tipping rule and the cases it decides."""
    good, poor, cap = rng.choice((15, 20)), rng.choice((5, 10)), rng.choice((12, 15, 20))
    method = (
        f"This is how I work out a tip in a restaurant. If the service was good, I tip {good} percent of the"
        f" bill; if it was poor, {poor} percent. I round the tip to the nearest whole pound, and I never tip"
        f" more than {cap} pounds."
    )

    def case(rng: random.Random) -> Case:
        bill, service = rng.randrange(20, 160, 4), rng.choice(("good", "poor"))
        tip = min(cap, round(bill * (good if service == "good" else poor) / 100 + 1e-9))
        return f"The bill is {bill} pounds and the service was {service}. How much do I tip?", f"{tip} pounds"

    return method, case


PROCEDURES = (watering, commuting, tipping)


@dataclass(frozen=True)
class HowToThinkParams:
    """How many cases the taught method is applied to."""

    questions: int = 3

    def __post_init__(self) -> None:
        at_least("questions", self.questions, 1)


class HowToThink(QuestionSetScenario):
    """`ltm.how_to_think`: a method taught once, applied to later cases."""

    name = NAME
    skills = SKILLS
    reset_message = RESET

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(HowToThinkParams, NAME, params, seed, repetition)
        method, case = PROCEDURES[(repetition - 1 + seed) % len(PROCEDURES)](rng)
        cases: list[Case] = []
        while len(cases) < settings.questions:
            situation, answer = case(rng)
            if situation not in dict(cases):
                cases.append((situation, answer))
        content = (
            f"I want to teach you how I decide something. {method} Please remember this way of deciding."
        )
        cases = [(f"Using my way of deciding: {situation}", answer) for situation, answer in cases]
        return self.definition(suite, repetition, seed, content, cases, asdict(settings))


SCENARIO = HowToThink()
