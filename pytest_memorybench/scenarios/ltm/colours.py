"""Colours (skill R): the user changes their favourite colour several times, then asks for it.

GoodAI paper App. A.1: each script line combines a random template with a random colour; the
standard configuration states three colours, then asks "What is my favourite colour?".  The
expected answer is the last colour stated.  Consecutive statements always name different colours,
so every statement is a real change of preference, as the paper describes the scenario.

Scoring (one question, so the reply to it is the only response):
  paper     1 if the expected colour is mentioned as a whole word, ignoring case (App. A.1.1:
            "match colours as whole words"); "bored" does not mention red, "blue-green" not blue.
  official  1 if the lower-cased colour is a substring of the lower-cased reply, as the reference
            code does (research/goodai.md §2), false positives included.
Both give 1 to a reply naming several colours ("Green, not Blue" mentions Blue): the paper's rule
checks that the expected colour is mentioned, not that it is the only one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import GoodAIDefinitionFile, goodai_definition
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least
from pytest_memorybench.scenarios.waits import spread_script
from pytest_memorybench.scoring.exact import score_contains
from pytest_memorybench.scoring.profiles import OFFICIAL

NAME = "ltm.colours"
SKILLS = ("recall",)
QUESTION = "What is my favourite colour?"

COLOURS = (
    "Red", "Orange", "Yellow", "Green", "Teal", "Blue", "Navy", "Indigo", "Violet",
    "Pink", "Crimson", "Maroon", "Brown", "Black", "White", "Silver", "Gold", "Turquoise",
)  # fmt: skip

TEMPLATES = (
    "These days my favourite colour is {colour}.",
    "{colour} has become my favourite colour.",
    "If you asked me for my favourite colour right now, I would say {colour}.",
    "My favourite colour, at the moment, is {colour}.",
    "Nothing beats {colour}; it is my favourite colour.",
    "Put me down as someone whose favourite colour is {colour}.",
)


@dataclass(frozen=True)
class ColoursParams:
    """How often the favourite colour changes before the question."""

    colour_changes: int = 3

    def __post_init__(self) -> None:
        at_least("colour_changes", self.colour_changes, 1)


class Colours:
    """`ltm.colours`: the last of several favourite colours stated."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(ColoursParams, NAME, params, seed, repetition)
        colours: list[str] = []
        for _ in range(settings.colour_changes):
            choices = [c for c in COLOURS if not colours or c != colours[-1]]
            colours.append(rng.choice(choices))
        lines = [rng.choice(TEMPLATES).format(colour=colour) for colour in colours] + [QUESTION]
        script = spread_script(lines)
        params = asdict(settings)
        return definition(self, suite, repetition, seed, script, (colours[-1],), colours[-1], params)

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI Colours definition file: its script and waits as they are, its expected colour."""
        expected = raw["expected_responses"][0]
        return goodai_definition(self, raw, example_id, suite, repetition, (expected,), expected)

    def superseded(self, definition: TestDefinition) -> list[str]:
        """The colours stated before the last, in order, once each: what the answer replaced
        (`contract/stale.py`).  Read from the script, so a GoodAI definition file's count too, for the
        colours of `COLOURS` its lines name."""
        stated = [
            colour
            for line in definition.script
            if not line.is_question
            for colour in COLOURS
            if re.search(rf"\b{colour}\b", line.text, re.IGNORECASE)
        ]
        final = str(definition.expected).casefold()
        return list(dict.fromkeys(colour for colour in stated if colour.casefold() != final))

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
        return score_colour(definition.expected, responses[-1] if responses else "", context.profile)


def score_colour(expected: str, reply: str, profile: str) -> Score:
    """Whether the reply names the expected colour: as a whole word (paper) or anywhere (official)."""
    verdict = score_contains(expected, reply, whole_word=profile != OFFICIAL)
    return Score(verdict.value, tuple(f"{reason}, {profile} profile" for reason in verdict.reasons))


SCENARIO = Colours()
