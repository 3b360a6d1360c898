"""One engine-calibration harness for the scenario tests: run definitions through a `Conversation`.

Each `tests/test_ltm_*.py` checks that the oracle scores 1 and the null agent 0 through the real
engine (channel, simulated clock, event log, trivia filler); `converse` is that set-up, once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.scheduler import Conversation
from pytest_memorybench.conversation.stats import ConversationStats, ScheduledTest
from pytest_memorybench.conversation.trivia import TriviaSource
from pytest_memorybench.core.records import TestDefinition, TestOutcome
from pytest_memorybench.core.tokens import ApproximateCounter
from pytest_memorybench.scenarios import get_scenario


class WordCounter:
    """One token per whitespace-separated word: spans in tests stay easy to reason about."""

    name = "words"

    def count(self, text: str) -> int:
        return len(text.split())


class Outcomes(dict[str, TestOutcome]):
    """The outcomes by test key, in scheduling order, plus each conversation's statistics."""

    def __init__(self) -> None:
        super().__init__()
        self.stats: list[ConversationStats] = []


def repetition_key(definition: TestDefinition) -> str:
    return f"{definition.scenario}/{definition.repetition}"


@dataclass(frozen=True)
class Playing:
    """A made-up scenario of `converse`'s `others`: each of its tests plays the program `factory` returns."""

    factory: Callable[[], Any]

    def program(self, definition: TestDefinition, context: Any) -> Any:
        return self.factory()


def converse(
    definitions: Sequence[TestDefinition],
    agent: object,
    *,
    span: int | None,
    tmp_path: Path,
    profile: str = "paper",
    judge: Any = None,
    counter: Any = None,
    start: datetime | None = None,
    agent_name: str | None = None,
    isolate: bool = False,
    key: Callable[[TestDefinition], str] = repetition_key,
    others: Mapping[str, Callable[[], Any]] | None = None,
) -> Outcomes:
    """Run `definitions` with `agent` through the engine and return their outcomes by `key`.

    `counter` defaults to `ApproximateCounter()`, `start` to the wall clock, `agent_name` to the
    agent's class name.  With `isolate` and no span, each definition gets a conversation of its own
    (otherwise they share one).  `others` adds tests of made-up scenarios, named by its keys, each
    playing the program its factory returns (in every conversation).
    """
    extra = dict(others or {})
    name = agent_name or type(agent).__name__
    groups = [[d] for d in definitions] if isolate and span is None else [list(definitions)]
    outcomes = Outcomes()

    def scenario_of(scenario: str) -> Any:
        return Playing(extra[scenario]) if scenario in extra else get_scenario(scenario)

    for index, group in enumerate(groups):
        log = EventLog(tmp_path / f"events-{name}-{span}-{index}.jsonl")
        channel = AgentChannel(
            AgentAdapter(agent, name),
            group=f"g{index}",
            counter=counter or ApproximateCounter(),
            clock=SimulatedClock(start),
            log=log,
        )
        tests = [ScheduledTest(key(d), d) for d in group]
        tests += [ScheduledTest(other, TestDefinition("t", other, 1, 0, (), (), None)) for other in extra]
        conversation = Conversation(
            tests,
            channel,
            span=span,
            scoring=ScoringContext(profile=profile, judge=judge),  # type: ignore[arg-type]
            filler=TriviaSource(0),
            scenario_of=scenario_of,
        )
        try:
            outcomes.update(asyncio.run(conversation.run()))
        finally:
            log.close()
        outcomes.stats.append(conversation.stats)
    return outcomes


def converse_each(
    definitions: Sequence[TestDefinition], agent: object, *, span: int | None, tmp_path: Path, **options: Any
) -> Outcomes:
    """`converse` with each test a conversation of its own where the span allows (isolated), the
    agent named "agent" and the outcomes by test id: how the scenario tests run a scenario's tests."""
    options.setdefault("agent_name", "agent")
    return converse(
        definitions, agent, span=span, tmp_path=tmp_path, isolate=True, key=lambda d: d.test_id, **options
    )
