"""One conversation: tests woven together under the GoodAI scheduling policy (paper App. C.2).

1. Incompatible tests never overlap (same scenario, or scenarios in one `incompatible` group), so
   the repetitions of a scenario follow each other.
2. A test runs until it ends or yields a wait.
3. Waiting tests whose wait is over resume before any new test starts (smallest token target
   first); a new test starts only if compatible with every test still open.
4. Only when nothing can run: jump the simulated clock to the earliest time target (time is free),
   else send filler sized to the smallest token target.  Filler goes through `observe` (saving
   mode) when the agent has it and no callback is listening.

Isolated mode (no span): one test per conversation, the agent reset first, no intro, no filler
except to feed a listening callback, token waits ignored and time waits turned into clock jumps.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pytest_memorybench.agents.reference.oracle import ACKNOWLEDGEMENT as ORACLE_ACKNOWLEDGEMENT
from pytest_memorybench.contract.deadline import answer_latency, on_time
from pytest_memorybench.contract.program import (
    Callback,
    Exchange,
    Finish,
    ProgramContext,
    ProgramFactory,
    RegisterCallback,
    Say,
    TestProgram,
    Wait,
    scripted_program,
)
from pytest_memorybench.contract.scenario import ScenarioOf, ScoringContext, scored
from pytest_memorybench.contract.stale import stale_details, superseded_values
from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.filler import make_filler, prefetch
from pytest_memorybench.conversation.stats import ConversationStats, ScheduledTest, memory_snapshot
from pytest_memorybench.conversation.trivia import TriviaSource
from pytest_memorybench.conversation.written import Ledger, settle
from pytest_memorybench.core.errors import AgentError, stop_on_refusal
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Score, TestDefinition, TestOutcome, Turn, Usage
from pytest_memorybench.judges.base import JudgeFailed

INTRO = (
    "I am going to test your long-term memory. Over this conversation I will tell you many "
    "different things and ask you questions about them. Keep your answers very short: give only "
    "what a question asks for, and otherwise just a brief acknowledgement. Is that clear?"
)
FILLER_CAP_TOKENS = 4096  # the reference's max message size; also bounds filler overshoot
CALLBACK_FILLER_TOKENS = {True: 100, False: 1}  # isolated / interleaved: feed a listening callback


@dataclass
class _Run:
    test: ScheduledTest
    order: int
    program: TestProgram
    begin_tokens: int | None = None
    question_tokens: int | None = None
    until_tokens: int | None = None
    until_time: datetime | None = None
    callback: Callback | None = None
    heard: list[Exchange] = field(default_factory=list)
    responses: list[str] = field(default_factory=list)
    transcript: list[Turn] = field(default_factory=list)
    evidence: JsonObject | None = None  # evidence recall at the last question (conversation.evidence)
    usage: Usage = field(default_factory=Usage)
    answer_seconds: list[float | None] = field(default_factory=list)  # each question's reply time
    script_done: bool = False
    score: Score | None = None
    outcome: TestOutcome | None = None

    @property
    def scenario(self) -> str:
        return self.test.definition.scenario

    def waits(self) -> bool:
        return self.until_tokens is not None or self.until_time is not None


class Conversation:
    """One conversation of interleaved tests: the scheduler's policy, filler and clock jumps, driven to the
    end."""

    def __init__(
        self,
        tests: Sequence[ScheduledTest],
        channel: AgentChannel,
        *,
        span: int | None,
        scoring: ScoringContext,
        filler: TriviaSource,
        scenario_of: ScenarioOf,
        incompatible: Sequence[Sequence[str]] = (),
        written: tuple[JsonObject, JsonObject] | None = None,
    ) -> None:
        self.tests = list(tests)
        self.channel = channel
        self.span = span
        self.scoring = scoring
        self.filler = filler
        self.filler_index = 0
        self.incompatible = [set(group) for group in incompatible]
        self.scenario_of = scenario_of
        per_scenario: dict[str, int] = {}
        for test in self.tests:
            per_scenario[test.definition.scenario] = per_scenario.get(test.definition.scenario, 0) + 1
        self._runs: list[_Run] = []
        self._oracle_duties: list[list[Any]] = []  # [turns to go, text] for the calibration oracle
        self.stats = ConversationStats(channel.group, span, repetitions=max(per_scenario.values(), default=1))
        # each question's evidence, matched against what the memory wrote at the end (a replay: as logged)
        self.ledger = Ledger(logged=written)

    @property
    def isolated(self) -> bool:
        return self.span is None

    async def run(self) -> dict[str, TestOutcome]:
        """Drive every test to its end; an agent failure stops the conversation, keeping what ended."""
        runs = self._runs = [
            _Run(test, order, self._program(test.definition)) for order, test in enumerate(self.tests)
        ]
        if not self.isolated and self.tests and self.filler_index == 0:
            # At most every test's span of filler, built while the agent answers.
            self.channel.prefetch = prefetch(
                self.filler,
                self.stats.repetitions * (self.span or 0),
                self.channel.counter,
                FILLER_CAP_TOKENS,
            )
        self.channel.emit(
            "conversation_begin",
            tests=[t.key for t in self.tests],
            span=self.span,
            saving_mode=self.channel.can_save,
            filler=repr(self.filler),
            clock=self.channel.clock.now(),
        )
        agent = self.channel.agent
        replies_before = len(agent.reply_seconds) if agent is not None else 0
        memory_before = memory_snapshot(agent)
        try:
            await self._loop(runs)
        except AgentError as exc:
            self.stats.error, self.stats.error_kind = str(exc), exc.kind
            self.channel.emit("agent_error", error=str(exc), time=self.channel.clock.now())
            stop_on_refusal(exc)
        finally:
            if self.channel.prefetch is not None:
                self.channel.prefetch.stop()
                self.channel.prefetch = None
            for run in runs:
                await run.program.aclose()  # tests cut short by an error end here, not at GC
            self.stats.tokens = self.channel.tokens
            self.stats.written = await settle(self.ledger, agent, self.channel.emit)
            self.stats.time_replies(agent, replies_before, memory_before)
        self.channel.emit("conversation_end", tokens=self.channel.tokens, span_ratio=self.stats.span_ratio)
        return {run.test.key: run.outcome or self._unfinished(run) for run in runs}

    def finished(self) -> dict[str, TestOutcome]:
        """The tests that ended so far, with their outcomes (all of them once `run` returns)."""
        return {run.test.key: run.outcome for run in self._runs if run.outcome is not None}

    def spent_by_test(self) -> dict[str, Usage]:
        """What each test's exchanges have cost so far, ended or not."""
        return {run.test.key: run.usage for run in self._runs}

    async def _loop(self, runs: list[_Run]) -> None:
        if self.isolated:
            await self.channel.reset()
        elif self.tests:
            reply = await self.channel.say(INTRO, source="intro")
            self.stats.overhead_usage.add(self.channel.last_usage)
            await self._heard(Exchange(None, INTRO, reply))
        pending = list(runs)
        open_runs: list[_Run] = []
        while pending or open_runs:
            ready = [run for run in open_runs if run.waits() and self._wait_is_over(run)]
            startable = next((run for run in pending if self._compatible(run, open_runs)), None)
            if ready:
                await self._advance(min(ready, key=lambda run: (run.until_tokens or 0, run.order)))
            elif startable is not None:
                pending.remove(startable)
                open_runs.append(startable)
                await self._advance(startable)
            else:
                await self._unblock(open_runs)
            open_runs = [run for run in open_runs if run.outcome is None]

    # -- running one test -------------------------------------------------------------------------

    def _program(self, definition: TestDefinition) -> TestProgram:
        factory: ProgramFactory = (
            getattr(self.scenario_of(definition.scenario), "program", None) or scripted_program
        )
        return factory(definition, ProgramContext(self.channel.clock, self.scoring))

    async def _advance(self, run: _Run) -> None:
        """Run a test until it waits, ends, or only a callback keeps it open."""
        run.until_tokens = run.until_time = None
        reply: str | None = None
        while True:
            try:
                action = await run.program.asend(reply)
            except StopAsyncIteration:
                run.script_done = True
                break
            except JudgeFailed as failed:  # a dynamic test's judge, mid-conversation: this test ends
                await run.program.aclose()
                self._end_without_score(run, str(failed), failed.kind)
                return
            reply = None
            if isinstance(action, Say):
                reply = await self._say(run, action)
            elif isinstance(action, Wait):
                if self._set_wait(run, action):
                    return
            elif isinstance(action, RegisterCallback):
                run.callback, run.heard = action.callback, []
                if action.oracle_reply is not None:
                    self._oracle_duties.append(list(action.oracle_reply))
                self.channel.emit("callback_registered", test=run.test.key)
            elif isinstance(action, Finish):
                run.score, run.script_done = action.score, True
                await run.program.aclose()
                break
        if run.callback is None:
            await self._finish(run)

    async def _say(self, run: _Run, action: Say) -> str:
        channel = self.channel
        if run.begin_tokens is None:
            run.begin_tokens = channel.tokens
            channel.emit("test_begin", test=run.test.key, tokens=channel.tokens, time=channel.clock.now())
        if action.is_question:
            run.question_tokens = channel.tokens + channel.counter.count(action.text)
        sent_at = channel.clock.now()
        ideal = self._oracle_ideal(action.ideal)
        statements = (
            [turn.message for turn in run.transcript if not turn.is_question] if action.is_question else []
        )
        reply = await channel.say(
            action.text,
            source="test",
            test=run.test.key,
            is_question=action.is_question,
            ideal=ideal,
            evidence=statements,
            superseded=superseded_values(self.scenario_of(run.test.definition.scenario), run.test.definition)
            if action.is_question
            else (),
        )
        run.usage.add(channel.last_usage)
        if channel.last_evidence is not None:
            run.evidence = channel.last_evidence
            self.ledger.note(run.test.key, statements, run.evidence)
        if action.is_question:
            run.responses.append(reply)
            run.answer_seconds.append(channel.last_reply_seconds)
        run.transcript.append(Turn(action.text, reply, sent_at.isoformat(), action.is_question))
        await self._heard(Exchange(run.test.key, action.text, reply))
        return reply

    def _set_wait(self, run: _Run, wait: Wait) -> bool:
        """Record a wait's targets; False when nothing is left to wait for (isolated mode)."""
        now = self.channel.clock.now()
        if self.isolated:
            if wait.seconds:
                self._jump(now + timedelta(seconds=wait.seconds))
            return False
        assert self.span is not None and run.begin_tokens is not None
        tokens = max(
            run.begin_tokens + math.floor(self.span * wait.percentage / 100),
            self.channel.tokens + wait.tokens,
        )
        run.until_tokens = tokens if tokens > self.channel.tokens else None
        run.until_time = now + timedelta(seconds=wait.seconds) if wait.seconds else None
        if not run.waits():
            return False
        self.channel.emit("wait", test=run.test.key, until_tokens=run.until_tokens, until_time=run.until_time)
        return True

    def _wait_is_over(self, run: _Run) -> bool:
        tokens_done = run.until_tokens is None or self.channel.tokens >= run.until_tokens
        time_done = run.until_time is None or self.channel.clock.now() >= run.until_time
        return tokens_done and time_done

    def _compatible(self, candidate: _Run, open_runs: list[_Run]) -> bool:
        for other in open_runs:
            if other.scenario == candidate.scenario:
                return False
            if any({other.scenario, candidate.scenario} <= group for group in self.incompatible):
                return False
        return True

    async def _heard(self, exchange: Exchange) -> None:
        """Show the turn to every listening callback; a callback that is done closes its test."""
        for run in self._listening():
            run.heard.append(exchange)
            verdict = run.callback(run.heard)  # type: ignore[misc]
            if verdict.done:
                run.callback = None
                run.score = verdict.score
                self.channel.emit("callback_deregistered", test=run.test.key)
                if run.script_done:
                    await self._finish(run)

    def _oracle_ideal(self, ideal: str | None) -> str | None:
        """The oracle's answer to the next turn: the test's ideal, plus any quote that is now due."""
        due = []
        for duty in self._oracle_duties:
            duty[0] -= 1
            if duty[0] == 0:
                due.append(duty[1])
        self._oracle_duties = [duty for duty in self._oracle_duties if duty[0] > 0]
        if not due:
            return ideal
        return " ".join([ideal or ORACLE_ACKNOWLEDGEMENT, *due])

    def _listening(self) -> list[_Run]:
        return [run for run in self._runs if run.callback is not None and run.outcome is None]

    # -- unblocking -------------------------------------------------------------------------------

    async def _unblock(self, open_runs: list[_Run]) -> None:
        now, tokens = self.channel.clock.now(), self.channel.tokens
        time_targets = [
            run.until_time for run in open_runs if run.until_time is not None and run.until_time > now
        ]
        if time_targets:
            self._jump(min(time_targets))
            return
        token_needs = [
            run.until_tokens - tokens
            for run in open_runs
            if run.until_tokens is not None and run.until_tokens > tokens
        ]
        need = min(token_needs) if token_needs else CALLBACK_FILLER_TOKENS[self.isolated]
        await self._send_filler(need)

    def _jump(self, target: datetime) -> None:
        clock = self.channel.clock
        seconds = (target - clock.now()).total_seconds()
        clock.advance(seconds)
        self.stats.clock_jumps += 1
        self.channel.emit("clock_jump", seconds=seconds, time=clock.now())

    async def _send_filler(self, need: int) -> None:
        task = make_filler(self.filler, self.filler_index, need, FILLER_CAP_TOKENS, self.channel.counter)
        self.filler_index = task.next_index
        if self.channel.prefetch is not None:
            self.channel.prefetch.follow(task.next_index)
        self.stats.filler_messages += 1
        self.stats.filler_tokens += task.tokens
        if self.channel.can_save and not self._listening():
            self.stats.saved_filler_messages += 1
            await self.channel.save(task)
            self.stats.overhead_usage.add(self.channel.last_usage)
        else:
            reply = await self.channel.say_filler(task, ideal=self._oracle_ideal(None))
            self.stats.overhead_usage.add(self.channel.last_usage)
            await self._heard(Exchange(None, task.message, reply))

    # -- results ----------------------------------------------------------------------------------

    async def _finish(self, run: _Run) -> None:
        definition = run.test.definition
        try:
            score = run.score or await scored(
                lambda context: self.scenario_of(definition.scenario).score(
                    definition, run.responses, context
                ),
                self.scoring,
            )
        except JudgeFailed as failed:
            self._end_without_score(run, str(failed), failed.kind)
            return
        span_tokens = (
            (run.question_tokens or 0) - (run.begin_tokens or 0) if run.question_tokens is not None else 0
        )
        answer_seconds = answer_latency(run.answer_seconds)
        score = on_time(score, answer_seconds, self.scoring.answer_deadline)
        run.outcome = TestOutcome(
            definition,
            run.responses,
            score,
            run.transcript,
            span_tokens,
            dataclasses.replace(run.usage),
            span_target=self.span,
            details=stale_details(
                self.scenario_of(definition.scenario),
                definition,
                run.responses,
                {"evidence": run.evidence} if run.evidence is not None else {},
            ),
            answer_seconds=answer_seconds,
        )
        self.channel.emit("score", test=run.test.key, value=score.value, reasons=list(score.reasons))
        self.channel.emit(
            "test_end",
            test=run.test.key,
            span_tokens=span_tokens,
            overrun=run.outcome.overrun,
            tokens=self.channel.tokens,
        )

    def _unfinished(self, run: _Run) -> TestOutcome:
        started = (
            "stopped during this test" if run.begin_tokens is not None else "stopped before this test began"
        )
        error = f"{self.stats.error} (conversation {started})"
        return TestOutcome(
            run.test.definition,
            run.responses,
            Score(0.0, (f"agent error: {error}",)),
            run.transcript,
            0,
            dataclasses.replace(run.usage),
            error=error,
            span_target=self.span,
            error_kind=self.stats.error_kind,
        )

    def _end_without_score(self, run: _Run, error: str, kind: str) -> None:
        """A test the conversation got through but could not score (its judge failed): an error, not a 0."""
        run.outcome = TestOutcome(
            run.test.definition,
            run.responses,
            Score(0.0, (error,)),
            run.transcript,
            0,
            dataclasses.replace(run.usage),
            error=error,
            span_target=self.span,
            error_kind=kind,
        )
        self.channel.emit("test_end", test=run.test.key, error=error, tokens=self.channel.tokens)
