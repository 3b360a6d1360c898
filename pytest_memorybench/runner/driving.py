"""How one conversation group is driven, whatever stands in for the agent.

A group is one of four things: the records a shard made (`--mb-merge`), probes asked over a
delivered context (BEAM, LoCoMo, LongMemEval, ...), published replies re-scored (`--mb-rescore`),
or a conversation woven of tests.  Each ends with its outcomes in the run, and a conversation
cut short keeps what it finished.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pytest_memorybench.agents.protocol import AgentAdapter
from pytest_memorybench.conversation.channel import AgentChannel, LoggedExchange, LoggedJudge
from pytest_memorybench.conversation.clock import SimulatedClock
from pytest_memorybench.conversation.probing import ProbeSession
from pytest_memorybench.conversation.scheduler import Conversation, ScheduledTest
from pytest_memorybench.conversation.trivia import TriviaSource
from pytest_memorybench.goodai.rescore import rescored_outcome
from pytest_memorybench.runner.plan import PlannedTest
from pytest_memorybench.runner.shards import recorded_outcome
from pytest_memorybench.runner.spending import SKIP_PREFIX
from pytest_memorybench.scenarios import ScoringContext, get_scenario

if TYPE_CHECKING:
    from pytest_memorybench.runner.run import BenchmarkRun


async def drive_group(
    run: BenchmarkRun, group: str, tests: list[PlannedTest], agent: AgentAdapter | None
) -> None:
    """Drive `group` for `tests` with `agent`, keeping every outcome it finishes in `run`."""
    if run.merged is not None:
        run.record_outcomes(
            {test.key: recorded_outcome(test.definition, run.merged.records[test.key]) for test in tests}
        )
    elif group in run.contexts:
        await _probe(run, group, tests, agent)
    elif run.published is not None:
        await _rescore(run, group, tests)
    else:
        await _converse(run, group, tests, agent)


def _channel(
    run: BenchmarkRun,
    group: str,
    agent: AgentAdapter | None,
    replay: Iterable[LoggedExchange] = (),
    saving_mode: bool | None = None,
) -> AgentChannel:
    """The group's channel: no agent when something stands in for it (a replay, published results)."""
    return AgentChannel(
        None if run.agentless else agent,
        group=group,
        counter=run.counter,
        clock=SimulatedClock(run.clock_start),
        log=run.log,
        replay=replay,
        saving_mode=saving_mode,
    )


def _scoring(run: BenchmarkRun, channel: AgentChannel) -> ScoringContext:
    return ScoringContext(profile=run.settings.profile, judge=LoggedJudge(run.judge, channel))


async def _converse(
    run: BenchmarkRun, group: str, tests: list[PlannedTest], agent: AgentAdapter | None
) -> None:
    logged = run.logged.get(group)
    channel = _channel(
        run, group, agent, logged.exchanges if logged else (), logged.saving_mode if logged else None
    )
    suite = next(s for s in run.suites if s.name == tests[0].definition.suite)
    conversation = Conversation(
        [ScheduledTest(t.key, t.definition) for t in tests],
        channel,
        span=tests[0].span.tokens,
        scoring=_scoring(run, channel),
        filler=TriviaSource(run.settings.seed),
        incompatible=suite.incompatible,
        programs=lambda scenario: getattr(get_scenario(scenario), "program", None),
        progress=run.progress,
    )
    try:
        outcomes = await conversation.run()
        if (conversation.stats.error or "").startswith(SKIP_PREFIX):
            # The budget stopped it: its unfinished tests are skipped, but what they were asked was paid for.
            for outcome in outcomes.values():
                if outcome.error is not None:
                    conversation.stats.overhead_usage.add(outcome.usage)
        run.record_outcomes(outcomes)
    finally:
        run.keep_finished(group, conversation)


async def _probe(run: BenchmarkRun, group: str, tests: list[PlannedTest], agent: AgentAdapter | None) -> None:
    channel = _channel(run, group, agent)
    session = ProbeSession(
        run.contexts[group],
        [ScheduledTest(t.key, t.definition) for t in tests],
        channel,
        scoring=_scoring(run, channel),
        logged=run.logged_answers,
        progress=run.progress,
    )
    try:
        run.record_outcomes(await session.run())
    finally:
        run.keep_finished(group, session)


async def _rescore(run: BenchmarkRun, group: str, tests: list[PlannedTest]) -> None:
    """Score stored results (GoodAI's, a LoCoMo pipeline's); their conversations go to the log for the
    report."""
    assert run.published is not None
    for test in tests:
        stored = run.published.results[test.key]
        channel = _channel(run, group, None)
        run.record_outcomes(
            {
                test.key: await rescored_outcome(
                    test.key, test.definition, stored, channel, _scoring(run, channel)
                )
            }
        )
        if run.progress is not None:
            run.progress(
                {"event": "test_end", "test": test.key, "group": group, "tokens": stored.tokens or 0}
            )


__all__ = ["drive_group"]
