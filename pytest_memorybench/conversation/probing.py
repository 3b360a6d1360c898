"""Driving a probe context: deliver it once, then ask each of its questions as an independent probe.

The context (a book, a multi-session chat, a message stream) is streamed from the scenario, so
at most one batch of it is held in memory.  Agents with `observe` ingest it in batches without
replying; others receive it packed into transcript messages through `reply`.  A question is asked
once the turns it is about have been delivered (`ask_at`, default: all of them) — on a `fork()`
of the agent when it has one, so probes do not see each other, else on the agent itself in turn.

Every answer is logged (`probe_answer`) before it is scored, so `--mb-resume` asks only the probes
without a logged answer (re-delivering the context first) and `--mb-replay` re-scores from the
log without calling the agent at all (`probe_log.py` reads it back).  When a question is asked and
which turns it rests on is its definition's and its scenario's to say (`probe_questions.py`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.contract.deadline import answer_latency, on_time
from pytest_memorybench.contract.probes import ProbeContext, ideal_answer
from pytest_memorybench.contract.scenario import Scenario, ScenarioOf, ScoringContext, scored
from pytest_memorybench.contract.stale import stale_details, superseded_values
from pytest_memorybench.conversation.channel import AgentChannel, spent
from pytest_memorybench.conversation.evidence import add_context_recall, retrieval_recall
from pytest_memorybench.conversation.probe_log import LoggedAnswer, ProbeLog
from pytest_memorybench.conversation.probe_questions import (
    ask_points,
    asked_at,
    evidence_groups,
    evidence_ids,
)
from pytest_memorybench.conversation.stats import ConversationStats, ScheduledTest, memory_snapshot
from pytest_memorybench.conversation.written import Ledger, settle
from pytest_memorybench.core.errors import AgentError, stop_on_refusal
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Message, Score, TestDefinition, TestOutcome, Turn, Usage
from pytest_memorybench.core.timings import timing_summary
from pytest_memorybench.judges.base import JudgeFailed

MAX_PARALLEL_FORKS = 8


@dataclass
class _Probe:
    test: ScheduledTest
    points: list[int]
    answers: dict[int, LoggedAnswer] = field(default_factory=dict)  # ask index -> answer
    usage: Usage = field(default_factory=Usage)

    @property
    def complete(self) -> bool:
        return len(self.answers) == len(self.points)


@dataclass
class _Delivery:
    """Where the delivery stands, and what writing the context into the agent cost."""

    turns: int = 0
    tokens: int = 0
    last_time: datetime | None = None  # of the last turn delivered: questions come after it
    write_seconds: list[float] = field(default_factory=list)


class ProbeSession:
    """One probe context delivered to an agent, then each selected question asked on a fork of it."""

    def __init__(
        self,
        context: ProbeContext,
        tests: Sequence[ScheduledTest],
        channel: AgentChannel,
        *,
        scoring: ScoringContext,
        scenario_of: ScenarioOf,
        logged: ProbeLog | None = None,
    ) -> None:
        self.context = context
        self.channel = channel
        self.scoring = scoring
        self.scenario_of = scenario_of
        self.probes = [_Probe(test, ask_points(test.definition, None)) for test in tests]
        self.evidence_ids = {
            probe.test.key: evidence_ids(self._scenario(probe), probe.test.definition, scoring.profile)
            for probe in self.probes
        }
        self.evidence_texts: dict[int, str] = {}  # the delivered text of each turn some question rests on
        logged = logged or ProbeLog()
        for probe in self.probes:
            for index, answer in logged.answers.get(probe.test.key, {}).items():
                probe.answers[index] = answer
                probe.usage.add(answer.usage or Usage())  # paid for by the session that logged it
        self.stats = ConversationStats(channel.group, None)
        self.stats.overhead_usage.add(logged.delivered.get(channel.group, Usage()))
        self.delivery = _Delivery()
        # each question's evidence, matched against what the memory wrote at the end (a replay: as logged)
        self.ledger = Ledger(logged=logged.written.get(channel.group))
        self.error: str | None = None
        self._outcomes: dict[str, TestOutcome] = {}

    async def run(self) -> dict[str, TestOutcome]:
        pending = [probe for probe in self.probes if not probe.complete]
        agent = self.channel.agent
        replies_before = len(agent.reply_seconds) if agent is not None else 0
        memory_before = memory_snapshot(agent)
        if pending:
            self.channel.emit(
                "probe_begin",
                context=self.context.id,
                tests=[p.test.key for p in pending],
                replayed=[p.test.key for p in self.probes if p.complete],
            )
            try:
                await self._deliver_and_ask(pending)
            except AgentError as exc:
                self.error, self.stats.error_kind = str(exc), exc.kind
                self.channel.emit("agent_error", error=self.error)
                stop_on_refusal(exc)
            self.channel.emit(
                "probe_end", context=self.context.id, tokens=self.delivery.tokens, turns=self.delivery.turns
            )
        self.stats.tokens = self.delivery.tokens or self.context.tokens or 0
        self.stats.error = self.error
        if self.delivery.write_seconds:  # once for the context, not on each of its questions
            self.stats.write_timing = timing_summary(self.delivery.write_seconds)
        asked = {probe.test.key for probe in pending}
        for probe in self.probes:  # answered by the run this one resumes or replays: logged, not noted
            if probe.test.key not in asked and probe.answers:
                answer = probe.answers[max(probe.answers)]
                self.ledger.note(probe.test.key, self._evidence(probe)[0], answer.evidence)
        self.stats.written = await settle(self.ledger, agent if pending else None, self.channel.emit)
        self.stats.time_replies(agent, replies_before, memory_before)
        for probe in self.probes:  # one at a time into the outcomes: a run cut short keeps what it scored
            self._outcomes[probe.test.key] = await self._outcome(probe)
        return dict(self._outcomes)

    def finished(self) -> dict[str, TestOutcome]:
        """Outcomes so far: none before every probe is asked, since probes are scored after."""
        return dict(self._outcomes)

    def spent_by_test(self) -> dict[str, Usage]:
        """What each test's answers have cost so far, scored or not."""
        return {probe.test.key: probe.usage for probe in self.probes}

    # -- delivery ---------------------------------------------------------------------------------

    async def _deliver_and_ask(self, pending: list[_Probe]) -> None:
        agent = self.channel.agent
        if agent is None:
            raise AgentError(
                f"{self.channel.group}: the logged run has no answer for {len(pending)} probe(s) and no agent"
                " is given"
            )
        await agent.reset()
        due = sorted({point for probe in pending for point in probe.points if point >= 0})
        observe = agent.supports("observe")
        header = 0 if observe else self.channel.counter.count(self.context.header)
        limit = self.context.observe_batch if observe else self.context.pack_tokens
        batch: list[Message] = []
        batch_size = header
        wanted = (  # every probe's: one a resumed run answered before is matched against the listing too
            {turn for probe in self.probes for turn in self.evidence_ids[probe.test.key]}
            if agent.supports("retrieve")
            else set()
        )
        for message in self.context.turns():
            while due and self.delivery.turns >= due[0]:
                await self._flush(agent, batch, observe)
                batch, batch_size = [], header
                await self._ask(agent, pending, due.pop(0))
            if message.id in wanted:  # delivered from here on: a question after it may find it
                self.evidence_texts[message.id] = message.text
            # The tokens the agent receives: the text itself, or its dated transcript line.
            tokens = self.channel.counter.count(message.text if observe else transcript_line(message))
            size = 1 if observe else tokens
            if batch and batch_size + size > limit:
                await self._flush(agent, batch, observe)
                batch, batch_size = [], header
            if not batch:
                self.delivery.tokens += header
            batch.append(message)
            batch_size += size
            self.delivery.turns += 1
            self.delivery.tokens += tokens
        await self._flush(agent, batch, observe)
        for point in [*due, -1]:
            await self._ask(agent, pending, point)

    async def _flush(self, agent: AgentAdapter, batch: list[Message], observe: bool) -> None:
        if not batch:
            return
        started = time.perf_counter()
        before = dataclasses.replace(agent.usage)
        if observe:
            await agent.observe(batch)
        else:
            await agent.reply(Message(pack_transcript(self.context.header, batch), batch[-1].timestamp))
            self.stats.filler_messages += 1  # delivery messages answered through reply
        usage = agent.usage - before
        self.stats.overhead_usage.add(usage)
        self.delivery.write_seconds.append(time.perf_counter() - started)
        self.delivery.last_time = batch[-1].timestamp
        self.channel.emit(
            "context_delivered",
            turns=self.delivery.turns,
            tokens=self.delivery.tokens,
            observed=observe,
            **spent(usage),
        )

    # -- asking -----------------------------------------------------------------------------------

    async def _ask(self, agent: AgentAdapter, pending: list[_Probe], point: int) -> None:
        asks = [
            (probe, index)
            for probe in pending
            for index, at in enumerate(probe.points)
            if at == point and index not in probe.answers
        ]
        if not asks:
            return
        if agent.supports("fork"):
            limit = asyncio.Semaphore(MAX_PARALLEL_FORKS)

            async def on_fork(probe: _Probe, index: int) -> None:
                async with limit:
                    await self._ask_one(await agent.fork(), probe, index)

            await asyncio.gather(*(on_fork(probe, index) for probe, index in asks))
        else:
            for probe, index in asks:
                await self._ask_one(agent, probe, index)

    async def _ask_one(self, agent: AgentAdapter, probe: _Probe, index: int) -> None:
        definition = probe.test.definition
        question = definition.questions[0]
        evidence_texts, groups = self._evidence(probe)
        when = asked_at(definition) or self.delivery.last_time or self.channel.clock.now()
        await agent.answer_for(definition.suite, when)
        await agent.prime_evidence(question, evidence_texts)
        superseded = superseded_values(self._scenario(probe), definition)
        evidence = await retrieval_recall(agent, question, evidence_texts, groups, superseded)
        retrieved, retrieve_seconds = None, None
        started = time.perf_counter()
        k = definition.params.get("retrieve_k")
        if k and isinstance(k, (int, float, str)) and agent.supports("retrieve"):
            retrieved = [str(item) for item in await agent.retrieve(question, int(k))]
            retrieve_seconds = round(time.perf_counter() - started, 6)
        await agent.prime_answer(ideal_answer(definition, self.scoring.profile))
        before = dataclasses.replace(agent.usage)
        workspace = self._workspace(agent, probe)
        try:
            # A blank question asks nothing (PrecisionMemBench's empty query builds its context without
            # the memory): the agent is not called, as a product refusing an empty search would fail it.
            answering = time.perf_counter()
            reply = await _say(agent, Message(question, when), workspace) if question.strip() else ""
            reply_seconds = round(time.perf_counter() - answering, 6)  # the first answer; retries are more
            follow_ups = await self._follow_ups(agent, probe, reply, when, workspace)
        finally:
            if workspace is not None:
                workspace.close()
        usage = agent.usage - before
        probe.usage.add(usage)
        await add_context_recall(agent, evidence, evidence_texts, superseded)
        self.ledger.note(probe.test.key, evidence_texts, evidence)
        seconds = round(time.perf_counter() - started, 6)
        answer = LoggedAnswer(
            reply,
            self.delivery.turns,
            self.delivery.tokens,
            retrieved,
            seconds,
            retrieve_seconds,
            evidence,
            follow_ups=follow_ups,
            reply_seconds=reply_seconds,
        )
        probe.answers[index] = answer
        logged = {
            name: value
            for name, value in dataclasses.asdict(answer).items()
            if name != "usage" and not (name == "follow_ups" and value is None)  # only where there were some
        }
        self.channel.emit("probe_answer", test=probe.test.key, ask=index, **logged, **spent(usage))

    def _workspace(self, agent: AgentAdapter, probe: _Probe) -> Any:
        """The files an agent that edits (`edit`) works in, when the scenario has them (sdebench's
        `workspace(definition)`); None: the agent answers through `reply`."""
        opener = getattr(self._scenario(probe), "workspace", None)
        return opener(probe.test.definition) if opener is not None and agent.supports("edit") else None

    async def _follow_ups(
        self, agent: AgentAdapter, probe: _Probe, reply: str, when: datetime, workspace: Any = None
    ) -> list[list[str]] | None:
        """The rest of an ask whose scenario answers back: `follow_up(definition, replies)` says
        what to tell the agent next (the failing tests of its fix), or None when the ask is over."""
        follow_up = getattr(self._scenario(probe), "follow_up", None)
        if follow_up is None:
            return None
        definition = probe.test.definition
        replies, exchanges = [reply], []
        while (said := await follow_up(definition, replies)) is not None:
            await agent.prime_answer(ideal_answer(definition, self.scoring.profile))
            replies.append(await _say(agent, Message(said, when), workspace))
            exchanges.append([said, replies[-1]])
        return exchanges

    def _evidence(self, probe: _Probe) -> tuple[list[str], list[str] | None]:
        """The texts of the turns the question rests on, and the unit each belongs to (if any)."""
        turns = [turn for turn in self.evidence_ids[probe.test.key] if turn in self.evidence_texts]
        grouping = evidence_groups(self._scenario(probe), probe.test.definition)
        groups = [grouping.get(turn, str(turn)) for turn in turns] if grouping else None
        return [self.evidence_texts[turn] for turn in turns], groups

    # -- results ----------------------------------------------------------------------------------

    async def _outcome(self, probe: _Probe) -> TestOutcome:
        definition = probe.test.definition
        answers = [probe.answers[index] for index in sorted(probe.answers)]
        responses = [
            text for answer in answers for text in [answer.text, *(r for _, r in answer.follow_ups or ())]
        ]
        if not probe.complete:
            error = self.error or "the probe was not asked"
            return TestOutcome(
                definition,
                responses,
                Score(0.0, (f"agent error: {error}",)),
                self._transcript(definition, answers),
                0,
                dataclasses.replace(probe.usage),
                error=error,
                details=self._details(answers),
                error_kind=self.stats.error_kind or "agent",
            )
        found = tuple(None if answer.retrieved is None else tuple(answer.retrieved) for answer in answers)
        try:
            score = await scored(
                lambda context: self._scenario(probe).score(definition, responses, context),
                dataclasses.replace(self.scoring, retrieved=found),
            )
        except JudgeFailed as failed:  # asked and answered, but not scored: an error, not a 0
            self.channel.emit("test_end", test=probe.test.key, error=str(failed))
            return TestOutcome(
                definition,
                responses,
                Score(0.0, (str(failed),)),
                self._transcript(definition, answers),
                0,
                dataclasses.replace(probe.usage),
                error=str(failed),
                details=self._details(answers),
                error_kind=failed.kind,
            )
        answer_seconds = answer_latency([answer.reply_seconds for answer in answers])
        score = on_time(score, answer_seconds, self.scoring.answer_deadline)
        self.channel.emit("score", test=probe.test.key, value=score.value, reasons=list(score.reasons))
        span_tokens = answers[-1].tokens if answers else 0
        self.channel.emit("test_end", test=probe.test.key, span_tokens=span_tokens, overrun=False)
        details = stale_details(self._scenario(probe), definition, responses, self._details(answers))
        if score.details:
            details["scoring"] = dict(score.details)  # for the family's summary (BEAM's tau_norm, F1)
        return TestOutcome(
            definition,
            responses,
            score,
            self._transcript(definition, answers),
            span_tokens,
            dataclasses.replace(probe.usage),
            details=details,
            answer_seconds=answer_seconds,
        )

    def _scenario(self, probe: _Probe) -> Scenario:
        return self.scenario_of(probe.test.definition.scenario)

    def _transcript(self, definition: TestDefinition, answers: list[LoggedAnswer]) -> list[Turn]:
        stamp = (asked_at(definition) or self.delivery.last_time or self.channel.clock.now()).isoformat()
        return [
            turn
            for answer in answers
            for turn in [
                Turn(definition.questions[0], answer.text, stamp, is_question=True),
                *(Turn(said, reply, stamp, is_question=True) for said, reply in answer.follow_ups or ()),
            ]
        ]

    def _details(self, answers: list[LoggedAnswer]) -> JsonObject:
        """What the family summaries need beyond the score: asking points, retrieval, timings."""
        details: JsonObject = {
            "context_tokens": self.stats.tokens,
            "asks": [{"turns": a.at, "tokens": a.tokens} for a in answers],
            "read_seconds": [a.seconds for a in answers],
        }
        if any(a.retrieved is not None for a in answers):
            details["retrieved"] = [a.retrieved for a in answers]
        if any(a.retrieve_seconds is not None for a in answers):
            details["retrieve_seconds"] = [a.retrieve_seconds for a in answers]
        if answers and answers[-1].evidence is not None:
            details["evidence"] = answers[-1].evidence
        if self.context.sessions is not None:  # the history's size, where the scale is in sessions
            details["sessions"] = self.context.sessions
        return details


async def _say(agent: AgentAdapter, message: Message, workspace: Any) -> str:
    """The agent's answer: its reply, or, in a workspace, what it said with the files it left
    (`workspace.answer`), which is what the run logs and the scorer reads."""
    if workspace is None:
        return await agent.reply(message)
    return str(workspace.answer(await agent.edit(message, workspace)))


def pack_transcript(header: str, messages: Sequence[Message]) -> str:
    """The documented fallback for agents without `observe`: turns as a dated transcript."""
    return "\n".join([header, "", *map(transcript_line, messages)])


def transcript_line(message: Message) -> str:
    """A context message as a transcript line: stamped with its simulated time and role."""
    return f"[{message.timestamp:%Y-%m-%d %H:%M}] {message.role}: {message.text}"
