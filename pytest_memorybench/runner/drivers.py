"""How a conversation group is driven, chosen once per run: `choose_driver`.

A run drives the records its shards made (`--mb-merge`) or its plan, where a group is probes asked
over a delivered context (BEAM, LoCoMo, LongMemEval, ...) or else a conversation woven of tests,
or published replies re-scored (`--mb-rescore`).  Every driver takes the
run's context, its outcome book and its instruments, and ends with its outcomes in the book; a
conversation cut short keeps what it finished.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation.channel import AgentChannel, LoggedExchange, LoggedJudge
from pytest_memorybench.conversation.probing import ProbeSession
from pytest_memorybench.conversation.scheduler import Conversation
from pytest_memorybench.conversation.stats import ScheduledTest
from pytest_memorybench.conversation.trivia import TriviaSource
from pytest_memorybench.runner.book import OutcomeBook
from pytest_memorybench.runner.context import RunContext
from pytest_memorybench.runner.instruments import RunInstruments
from pytest_memorybench.runner.plan import PlannedTest
from pytest_memorybench.runner.shards import recorded_outcome
from pytest_memorybench.runner.spending import SKIP_PREFIX
from pytest_memorybench.scenarios import get_scenario


class Driver(Protocol):
    """Drives one conversation group for its selected tests, keeping every outcome in the book."""

    async def drive(self, group: str, tests: list[PlannedTest], agent: AgentAdapter | None) -> None: ...


@dataclass(frozen=True)
class _Driving:
    """What every driver holds: the run's context, its outcome book and its instruments."""

    context: RunContext
    book: OutcomeBook
    instruments: RunInstruments

    def channel(
        self,
        group: str,
        agent: AgentAdapter | None,
        replay: Iterable[LoggedExchange] = (),
        saving_mode: bool | None = None,
    ) -> AgentChannel:
        """The group's channel: no agent when something stands in for it (a replay, published results)."""
        return AgentChannel(
            None if self.context.agentless else agent,
            group=group,
            counter=self.instruments.counter,
            clock=SimulatedClock(self.context.clock_start),
            log=self.instruments.log,
            replay=replay,
            saving_mode=saving_mode,
        )

    def scoring(self, channel: AgentChannel) -> ScoringContext:
        return ScoringContext(
            profile=self.context.settings.profile,
            judge=LoggedJudge(self.instruments.judge, channel),
            answer_deadline=self.context.settings.answer_deadline,
        )


class MergeDriver(_Driving):
    """`--mb-merge`: the outcomes the shards recorded, read back."""

    async def drive(self, group: str, tests: list[PlannedTest], agent: AgentAdapter | None) -> None:
        merged = self.context.merged
        assert merged is not None
        self.book.record(
            {test.key: recorded_outcome(test.definition, merged.records[test.key]) for test in tests}
        )


class RescoreDriver(_Driving):
    """`--mb-rescore`: stored results (GoodAI's, a LoCoMo pipeline's) scored again; their
    conversations go to the log for the report."""

    async def drive(self, group: str, tests: list[PlannedTest], agent: AgentAdapter | None) -> None:
        from pytest_memorybench.rescore.published import rescored_outcome  # a re-score's alone

        published = self.context.published
        assert published is not None
        for test in tests:
            stored = published.results[test.key]
            channel = self.channel(group, None)
            outcome = await rescored_outcome(
                test.key, test.definition, stored, channel, self.scoring(channel)
            )
            self.book.record({test.key: outcome})


class ConversationDriver(_Driving):
    """A conversation woven of tests (and filler), continued from the log when one was begun."""

    async def drive(self, group: str, tests: list[PlannedTest], agent: AgentAdapter | None) -> None:
        logged = self.context.logged.get(group)
        channel = self.channel(
            group, agent, logged.exchanges if logged else (), logged.saving_mode if logged else None
        )
        suite = next(s for s in self.context.suites if s.name == tests[0].definition.suite)
        conversation = Conversation(
            [ScheduledTest(t.key, t.definition) for t in tests],
            channel,
            span=tests[0].span.tokens,
            scoring=self.scoring(channel),
            filler=TriviaSource(self.context.settings.seed),
            scenario_of=get_scenario,
            incompatible=suite.incompatible,
            written=logged.written if logged else None,
        )
        try:
            outcomes = await conversation.run()
            if (conversation.stats.error or "").startswith(SKIP_PREFIX):
                # The budget stopped it: its unfinished tests are skipped, but what they were
                # asked was paid for.
                for outcome in outcomes.values():
                    if outcome.error is not None:
                        conversation.stats.overhead_usage.add(outcome.usage)
            self.book.record(outcomes)
        finally:
            self.book.keep_finished(group, conversation)


class ProbeDriver(_Driving):
    """Probes asked over a delivered context, each on a fork of the memory where the agent has one."""

    async def drive(self, group: str, tests: list[PlannedTest], agent: AgentAdapter | None) -> None:
        channel = self.channel(group, agent)
        session = ProbeSession(
            self.context.contexts[group],
            [ScheduledTest(t.key, t.definition) for t in tests],
            channel,
            scoring=self.scoring(channel),
            scenario_of=get_scenario,
            logged=self.context.logged_probes,
        )
        try:
            self.book.record(await session.run())
        finally:
            self.book.keep_finished(group, session)


@dataclass(frozen=True)
class PlanDriver:
    """The plan driven: probe groups probed, the others by `otherwise` (conversed, or re-scored)."""

    probes: ProbeDriver
    otherwise: Driver

    async def drive(self, group: str, tests: list[PlannedTest], agent: AgentAdapter | None) -> None:
        driver = self.probes if group in self.probes.context.contexts else self.otherwise
        await driver.drive(group, tests, agent)


def choose_driver(context: RunContext, book: OutcomeBook, instruments: RunInstruments) -> Driver:
    """The run's driver: its shards' records, or its plan, live or from published results."""
    if context.merged is not None:
        return MergeDriver(context, book, instruments)
    otherwise = RescoreDriver if context.published is not None else ConversationDriver
    return PlanDriver(ProbeDriver(context, book, instruments), otherwise(context, book, instruments))
