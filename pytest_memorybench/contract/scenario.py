"""What a scenario is: a generator of TestDefinitions and the scorer that judges their replies."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.judges.base import JUDGE_ERROR, Judge
from pytest_memorybench.scoring.profiles import PAPER, Profile


@dataclass(frozen=True)
class ScoringContext:
    """What a scorer may consult besides the replies: the profile, the judge, and what the agent's
    `retrieve` returned at each ask of a probe that asked for it (`params["retrieve_k"]`; None at an
    ask where the agent could not retrieve), which a retrieval benchmark scores instead of the reply;
    and the answer deadline the conversation holds a scored answer to (`contract.deadline`)."""

    profile: Profile = PAPER
    judge: Judge | None = None
    retrieved: tuple[tuple[str, ...] | None, ...] = ()
    answer_deadline: float | None = None  # seconds (--mb-answer-deadline); None: no deadline


class Named(Protocol):
    """What a definition takes from its scenario: the name and the skills."""

    @property
    def name(self) -> str: ...

    @property
    def skills(self) -> tuple[str, ...]: ...


class Scenario(Named, Protocol):
    """One task of a benchmark family, e.g. `ltm.colours`.

    `generate` must be deterministic in (params, seed, repetition): the same inputs give a
    byte-identical definition on every machine and in every xdist worker.  What the conversation
    may also ask of it, when it has them: `program(definition, context)`, a dynamic test's own
    program (`contract.program`), and for a probe scenario `evidence_ids(definition)` and
    `evidence_groups(definition)`, the context turns a question rests on.
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


ScenarioOf = Callable[[str], Scenario]
"""The scenario a test names: the registry's lookup (`scenarios.get_scenario`), which the run's
drivers hand a conversation, so that the layer that converses never imports the registry above it."""

Scoring = Callable[[ScoringContext], "Score | Awaitable[Score]"]


async def scored(score: Scoring, context: ScoringContext) -> Score:
    """A test's score by `score`; when a judge panel judged it, with the score each view of the
    panel's verdicts gives (a rubric, a juror, one repeat) kept in `Score.judging`.

    The scorer is run again per view on verdicts already cast (no judge call); views that decide
    every task alike share one run, and a view with a verdict its judge failed to give is left out.
    """
    opener = getattr(context.judge, "open_item", None)
    item = opener() if opener is not None else None
    if item is None:
        return await _settled(score(context))
    headline = await _settled(score(dataclasses.replace(context, judge=item)))
    if not item.ballots:
        return headline
    seen: dict[tuple[Any, ...], float] = {item.signature(lambda ballot: ballot.verdict()): headline.value}
    values: dict[tuple[str, str], float] = {}
    for key, view in item.views().items():
        signature = item.signature(view.pick)
        if any(isinstance(part, str) and part.startswith(JUDGE_ERROR) for part in signature):
            continue
        if signature not in seen:
            seen[signature] = (await _settled(score(dataclasses.replace(context, judge=view)))).value
        values[key] = seen[signature]
    return dataclasses.replace(headline, judging=item.record(values))


async def _settled(score: Score | Awaitable[Score]) -> Score:
    return await score if inspect.isawaitable(score) else score
