"""A published run, whichever harness wrote it, and each of its stored results scored again.

Every layout's reader (`goodai`, `locomo`, `longmemeval`, `amb`, `memorybench`) makes a
`PublishedRun`: suites of items, each with a `PublishedResult` (its replies, its conversation, the
verdict published with it).  The run's re-scoring driver scores each with our scorer, under the
run's profile and judge (`rescored_outcome`), and keeps the published verdict beside ours
(`details.published`).  A scenario whose stored replies are not simply the replies to its questions
defines `rescore_goodai(definition, stored, context)`, which `rescore` uses instead of its scorer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pytest_memorybench.contract.scenario import ScoringContext, scored
from pytest_memorybench.core.errors import describe_exception
from pytest_memorybench.core.records import Score, TestDefinition, TestOutcome, Usage
from pytest_memorybench.judges.base import JudgeFailed
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.suite import Suite

if TYPE_CHECKING:
    from pytest_memorybench.conversation.channel import AgentChannel


class PublishedResult(Protocol):
    """What a re-scoring run reads of a published result: GoodAI's stored ones, a LoCoMo pipeline's."""

    @property
    def path(self) -> Path: ...

    @property
    def responses(self) -> tuple[str, ...]: ...

    @property
    def tokens(self) -> int | None: ...

    def exchanges(self) -> list[tuple[str, str | None]]: ...

    def verdict_json(self) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class PublishedRun:
    """A published run (GoodAI's, or another harness's) as suites of items, each with its stored result."""

    folder: Path
    suites: tuple[Suite, ...]
    results: Mapping[str, PublishedResult]  # by the item's key (node id)
    problems: tuple[str, ...]  # one line per file or folder that could not be used


async def rescore(definition: TestDefinition, stored: PublishedResult, context: ScoringContext) -> Score:
    """Our verdict on a stored result, by the scenario's own re-scorer or its scorer."""
    scenario = get_scenario(definition.scenario)
    custom = getattr(scenario, "rescore_goodai", None)
    return await scored(
        lambda scoring: (
            custom(definition, stored, scoring)
            if custom
            else scenario.score(definition, list(stored.responses), scoring)
        ),
        context,
    )


async def rescored_outcome(
    key: str,
    definition: TestDefinition,
    stored: PublishedResult,
    channel: AgentChannel,
    context: ScoringContext,
) -> TestOutcome:
    """One stored result scored, with its conversation and our verdict written to the run's log
    for the report; the published verdict is kept beside ours (`details.published`)."""
    for number, (message, reply) in enumerate(stored.exchanges(), 1):
        is_question = reply is not None and reply in stored.responses
        channel.emit("message", i=number, source="test", test=key, text=message, is_question=is_question)
        if reply is not None:
            channel.emit("reply", i=number, source="test", test=key, text=reply)
    error: str | None = None
    kind: str | None = None
    try:
        score = await rescore(definition, stored, context)
    except JudgeFailed as failed:  # our judge could not be asked: no verdict to compare
        score, error, kind = Score(0.0, (str(failed),)), str(failed), failed.kind
    except Exception as exc:  # noqa: BLE001 - one unusable result must not stop the others
        score, error = (
            Score(0.0, (f"cannot re-score {stored.path}: {describe_exception(exc)}",)),
            describe_exception(exc),
        )
        kind = "published result"
    channel.emit("score", test=key, value=score.value, reasons=list(score.reasons))
    channel.emit("test_end", test=key, tokens=stored.tokens or 0)
    return TestOutcome(
        definition,
        list(stored.responses),
        score,
        [],
        stored.tokens or 0,
        Usage(),
        error=error,
        details={} if (published := stored.verdict_json()) is None else {"published": published},
        error_kind=kind,
    )
