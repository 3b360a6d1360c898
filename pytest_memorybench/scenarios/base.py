"""What a scenario is: a generator of TestDefinitions and the scorer that judges their replies."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_memorybench.core.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.goodai.format import script_from_goodai
from pytest_memorybench.judges.base import Judge
from pytest_memorybench.scoring.profiles import PAPER, Profile


@dataclass(frozen=True)
class ScoringContext:
    """What a scorer may consult besides the replies: the profile and the judge."""

    profile: Profile = PAPER
    judge: Judge | None = None


class Named(Protocol):
    """What a definition takes from its scenario: the name and the skills."""

    @property
    def name(self) -> str: ...

    @property
    def skills(self) -> tuple[str, ...]: ...


class Scenario(Named, Protocol):
    """One task of a benchmark family, e.g. `ltm.colours`.

    `generate` must be deterministic in (params, seed, repetition): the same inputs give a
    byte-identical definition on every machine and in every xdist worker.
    """

    def generate(
        self, suite: str, params: Mapping[str, Any], seed: int, repetition: int
    ) -> TestDefinition: ...

    def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score | Awaitable[Score]:
        """The verdict; scorers that consult the judge return an awaitable.

        A scenario may also have `warm_up()`: slow preparation of its scorer (a heavy import),
        which the run does in a thread before the conversations need it, not on their loop.
        """


def definition(
    scenario: Named,
    suite: str,
    repetition: int,
    seed: int,
    script: Sequence[ScriptLine],
    ideal_answers: Sequence[str],
    expected: Any,
    params: Mapping[str, Any],
    **more: Any,
) -> TestDefinition:
    """A definition of `scenario`'s, under its name and with its skills."""
    return TestDefinition(
        suite=suite,
        scenario=scenario.name,
        repetition=repetition,
        seed=seed,
        script=tuple(script),
        ideal_answers=tuple(ideal_answers),
        expected=expected,
        skills=scenario.skills,
        params=dict(params),
        **more,
    )


def goodai_definition(
    scenario: Named,
    raw: dict[str, Any],
    example_id: str,
    suite: str,
    repetition: int,
    ideal_answers: Sequence[str],
    expected: Any,
    **more: Any,
) -> TestDefinition:
    """A GoodAI definition file as `scenario`'s: its script and waits as they are, seed 0."""
    params = {"goodai_example": example_id}
    return definition(
        scenario, suite, repetition, 0, script_from_goodai(raw), ideal_answers, expected, params, **more
    )
