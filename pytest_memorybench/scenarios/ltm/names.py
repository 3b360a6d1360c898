"""Names (GoodAI's `names` dataset): the user changes their name several times, then asks for it.

GoodAI's dataset: three name statements (Faker first names, `en_US` and `en_IE`), then "What is my
name?"; the expected answer is the last name given.  The name statements and the reset statement
are Name List's (our own wording); names come from Name List's seeded stream, so no name repeats
within a seed.  GoodAI's configurations mark it incompatible with Name List (the same statements
would mix); `ltm_extended` runs it without Name List.

Scoring (one question), both lower-cased:
  paper     the last name is mentioned as a whole word ("Lee" is not in "Leeds"); there is no
            paper for this dataset, so this is the rule Colours' paper states for its own answers.
  official  the reference's rule: the last name is a substring of the reply.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import (
    GoodAIDefinitionFile,
    goodai_definition,
)
from pytest_memorybench.scenarios.ltm.name_list import (
    RESET_MESSAGE,
    TEMPLATES,
    draw_names,
)
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least
from pytest_memorybench.scenarios.waits import spread_script
from pytest_memorybench.scoring.exact import score_contains
from pytest_memorybench.scoring.profiles import OFFICIAL

NAME = "ltm.names"
SKILLS = ("recall", "conflicting_information")
QUESTION = "What is my name?"


@dataclass(frozen=True)
class NamesParams:
    """How often the user's name changes."""

    name_changes: int = 3

    def __post_init__(self) -> None:
        at_least("name_changes", self.name_changes, 1)


class Names:
    """`ltm.names`: the name the user goes by now."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(NamesParams, NAME, params, seed, repetition)
        names = draw_names(seed, repetition, settings.name_changes)
        lines = [rng.choice(TEMPLATES).format(name=name) for name in names] + [QUESTION]
        last, params = names[-1], asdict(settings)
        script = spread_script(lines)
        return definition(
            self, suite, repetition, seed, script, _ideal(last), last, params, reset_message=RESET_MESSAGE
        )

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        expected = str(raw["expected_responses"][0])
        return goodai_definition(
            self, raw, example_id, suite, repetition, _ideal(expected), expected, reset_message=RESET_MESSAGE
        )

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
        reply = responses[-1] if responses else ""
        verdict = score_contains(definition.expected, reply, whole_word=context.profile != OFFICIAL)
        return Score(
            verdict.value, tuple(f"{reason}, {context.profile} profile" for reason in verdict.reasons)
        )


SCENARIO = Names()


def _ideal(name: str) -> tuple[str]:
    """What a perfect reply says when asked the user's name."""
    return (f"Your name is {name}.",)
