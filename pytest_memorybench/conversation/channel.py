"""The channel between a conversation and its agent: every turn passes through here.

It counts tokens, stamps messages with the simulated clock, writes each exchange to the event log
before returning, and can replay a logged conversation: replies come from the log instead of the
agent until the log runs out.  That one mechanism gives both `--mb-resume` (replay, then hand the
agent the history through `observe` and go on live) and `--mb-replay` (replay only, no agent).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.evidence import add_context_recall, retrieval_recall
from pytest_memorybench.conversation.filler import FillerTask, Prefetch
from pytest_memorybench.core.errors import AgentError
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Message, Usage
from pytest_memorybench.core.tokens import TokenCounter, remember
from pytest_memorybench.judges.base import (
    JUDGE_ERROR,
    Judge,
    JudgeFailed,
    JudgeStats,
    JudgeTask,
    JudgeVerdict,
)
from pytest_memorybench.judges.panel import Ballot, ItemJudging, JudgePanel

Source = Literal["test", "filler", "intro"]  # who is speaking to the agent


@dataclass(frozen=True)
class LoggedExchange:
    """An exchange as the event log keeps it; `saved` marks filler handed over through observe.

    Filler is logged by reference, `filler` = (first trivia index, items): its text follows from
    the conversation's filler source, and logging a 120k-span conversation's filler in full would
    write megabytes of trivia on the critical path.  `message` is then None, and so is `reply`
    when the filler was saved (its reply is the task's expected one).
    """

    message: str | None
    reply: str | None
    saved: bool = False
    filler: tuple[int, int] | None = None
    evidence: JsonObject | None = None  # evidence recall measured before a question (conversation.evidence)
    usage: Usage | None = None  # what the reply (or observing) cost, when the log says and it counts
    # how long the reply took, as logged: kept where its cost is not (a replay), for latency figures
    seconds: float | None = None

    @classmethod
    def sending(cls, text: str, saved: bool, filler: FillerTask | None) -> LoggedExchange:
        """What is being sent, as a logged exchange would show it (no reply yet)."""
        return cls(text, None, saved, filler_reference(filler) if filler else None)

    def same_message(self, other: LoggedExchange) -> bool:
        """Whether both are the same message, by reference when this one is logged filler."""
        if self.saved != other.saved:
            return False
        return self.filler == other.filler if self.filler is not None else self.message == other.message

    def describe(self) -> str:
        if self.filler is not None:
            return f"filler of {self.filler[1]} trivia items from #{self.filler[0]}"
        return repr((self.message or "")[:60])


def filler_reference(task: FillerTask) -> tuple[int, int]:
    """Where a filler message came from in the trivia sequence, as the log records it: (first index,
    items)."""
    return (task.first_index, task.items)


def spent(usage: Usage) -> dict[str, dict[str, int | float]]:
    """An event's `usage` field: what the agent spent on it, when it spent anything."""
    return {"usage": usage.logged()} if usage != Usage() else {}


class ReplayDivergence(AgentError):
    """The regenerated conversation says something the logged run did not."""


class AgentChannel:
    """The conversation's way to the agent: every message sent, timed, logged and counted, or replayed from a
    log.
    """

    def __init__(
        self,
        agent: AgentAdapter | None,
        *,
        group: str,
        counter: TokenCounter,
        clock: SimulatedClock,
        log: EventLog,
        replay: Iterable[LoggedExchange] = (),
        saving_mode: bool | None = None,
    ) -> None:
        self.agent = agent
        self.group = group
        self.counter = counter
        self.clock = clock
        self.log = log
        self.tokens = 0
        self.exchanges = 0  # numbers each exchange, so a log split over files reassembles in order
        self.last_usage = Usage()  # what the last `say` or `save` cost (replayed: what the log says it did)
        self.last_reply_seconds: float | None = None  # how long the last `say` waited for its reply, if known
        self.last_evidence: JsonObject | None = None  # the last question's evidence recall, if measured
        self._replay = deque(replay)
        self._muted = bool(self._replay)
        # Since the last reset, what a resumed agent must be told: runs of exchanges it observed
        # (saving mode) or replied to, kept apart so each is taken in again as it was.
        self._history: list[tuple[bool, list[Message]]] = []
        self._caught_up = not self._replay
        self.can_save = saving_mode if saving_mode is not None else bool(agent and agent.supports("observe"))
        self.prefetch: Prefetch | None = None  # builds filler while the agent is busy (Conversation.run)

    @property
    def replaying(self) -> bool:
        return bool(self._replay)

    def emit(self, kind: str, **data: Any) -> None:
        """Log an event of this conversation; one replayed from the log itself is only retold."""
        if self._muted:
            self.log.retell(kind, group=self.group, **data)
        else:
            self.log.emit(kind, group=self.group, **data)

    async def say(
        self,
        text: str,
        *,
        source: Source,
        test: str | None = None,
        is_question: bool = False,
        ideal: str | None = None,
        evidence: Sequence[str] = (),
        superseded: Sequence[str] = (),
    ) -> str:
        """Send one message and return the reply, from the log while replaying, else from the agent.

        A question with `evidence` (the texts it needs) first asks an agent with `retrieve` for its
        memories and measures evidence recall (`last_evidence`), logged with the reply; with
        `superseded` values, whether one of them reached the search or the prompt."""
        return await self._exchange(text, source, test, is_question, ideal, None, evidence, superseded)

    async def say_filler(self, task: FillerTask, *, ideal: str | None = None) -> str:
        """Send a filler task for the agent to answer (no saving mode), and return its reply."""
        remember(self.counter, task.message, task.message_tokens)  # the agent's usage estimate counts it
        return await self._exchange(task.message, "filler", None, False, ideal, task, ())

    async def save(self, task: FillerTask) -> None:
        """Saving mode: give the agent a filler exchange to take in, without asking it to reply.

        One event, after the agent took it: nothing is waited for, so there is no reply to log,
        and an exchange cut short is not in the log, as if never sent (resume sends it again).
        """
        now = self.clock.now()
        logged = self._next_logged(task.message, saved=True, filler=task)
        if logged is not None:
            self.last_usage = logged.usage or Usage()
        else:
            agent = await self._live_agent()
            before = dataclasses.replace(agent.usage)
            await agent.observe([Message(task.message, now), Message(task.expected_reply, now, "assistant")])
            self.last_usage = agent.usage - before
        self.tokens += task.tokens
        self._remember(task.message, task.expected_reply, now, now, observed=True)
        self.emit(
            "observed",
            i=self.exchanges,
            source="filler",
            filler=filler_reference(task),
            time=now,
            tokens=self.tokens,
            **spent(self.last_usage),
        )
        self.exchanges += 1

    async def _exchange(
        self,
        text: str,
        source: Source,
        test: str | None,
        is_question: bool,
        ideal: str | None,
        filler: FillerTask | None,
        evidence: Sequence[str],
        superseded: Sequence[str] = (),
    ) -> str:
        sent_at = self.clock.now()
        content = {"text": text} if filler is None else {"filler": filler_reference(filler)}
        self.emit(
            "message",
            i=self.exchanges,
            source=source,
            test=test,
            **content,
            is_question=is_question,
            time=sent_at,
        )
        logged = self._next_logged(text, saved=False, filler=filler)
        self.last_usage = Usage()
        self.last_evidence = None
        cut: JsonObject = {}
        if logged is not None:
            reply = logged.reply or ""
            self.last_evidence = logged.evidence
            self.last_usage = logged.usage or Usage()  # paid for when it was logged: a resume counts it
            self.last_reply_seconds = logged.seconds
        else:
            agent = await self._live_agent()
            await agent.prime_evidence(text, evidence)
            self.last_evidence = await retrieval_recall(agent, text, evidence, superseded=superseded)
            if ideal is not None:
                await agent.prime_answer(ideal)
            before = dataclasses.replace(agent.usage)
            with self._agent_busy():
                reply = await agent.reply(Message(text, sent_at))
            self.last_usage = agent.usage - before
            self.last_reply_seconds = self.last_usage.seconds  # the reply's own time, as the log keeps it
            await add_context_recall(agent, self.last_evidence, evidence, superseded)
            if self.last_evidence is not None:
                cut["evidence"] = self.last_evidence
            if agent.last_reply_cut is not None:
                cut["cut_from"] = agent.last_reply_cut  # the reply's length before it was bounded
        self.tokens += (
            self.counter.count(text) if filler is None else filler.message_tokens
        ) + self.counter.count(reply)
        replied_at = self.clock.now()
        self._remember(text, reply, sent_at, replied_at)
        self.emit(
            "reply",
            i=self.exchanges,
            source=source,
            test=test,
            text=reply,
            time=replied_at,
            tokens=self.tokens,
            **spent(self.last_usage),
            **cut,
        )
        self.exchanges += 1
        return reply

    @contextmanager
    def _agent_busy(self) -> Iterator[None]:
        """While the agent replies (a model call: the long wait), the filler prefetch may use the
        idle loop; not while it observes, usually a quick write that a slice would only delay."""
        if self.prefetch is None:
            yield
        else:
            with self.prefetch.agent_busy():
                yield

    async def reset(self) -> None:
        self._history.clear()
        if not self.replaying and self.agent is not None:
            await self.agent.reset()

    def _next_logged(self, text: str, *, saved: bool, filler: FillerTask | None) -> LoggedExchange | None:
        if not self._replay:
            return None
        logged, sending = self._replay.popleft(), LoggedExchange.sending(text, saved, filler)
        if not logged.same_message(sending):
            raise ReplayDivergence(
                f"conversation {self.group}: the log diverges from the regenerated conversation: "
                f"logged {logged.describe()}, now {sending.describe()}; were the definitions or the "
                "agent's capabilities changed since the run?"
            )
        if not self._replay:
            self._muted = False  # caught up: from here on, events are new
        return logged

    async def _live_agent(self) -> AgentAdapter:
        if self.agent is None:
            raise AgentError(
                f"conversation {self.group}: the logged run ends here and no agent is given to go on"
            )
        if not self._caught_up:
            self._caught_up = True
            if self.agent.supports("catch_up") or self.agent.supports("observe"):
                for observed, messages in self._history:
                    await (self.agent.observe(messages) if observed else self.agent.catch_up(messages))
            self.emit(
                "resumed",
                replayed_tokens=self.tokens,
                told=sum(len(messages) for _, messages in self._history),
            )
        return self.agent

    def _remember(
        self, text: str, reply: str, sent_at: datetime, replied_at: datetime, *, observed: bool = False
    ) -> None:
        if self._caught_up:
            return
        exchange = [Message(text, sent_at), Message(reply, replied_at, "assistant")]  # the times it had them
        if self._history and self._history[-1][0] == observed:
            self._history[-1][1].extend(exchange)
        else:
            self._history.append((observed, exchange))


class LoggedJudge:
    """The run's judge, with each verdict written to the conversation's event log."""

    def __init__(self, judge: Judge, channel: AgentChannel) -> None:
        self._judge = judge
        self._channel = channel
        self.name = judge.name

    @property
    def stats(self) -> JudgeStats:
        """The judge's figures now (a panel adds its jurors' up on each reading)."""
        return self._judge.stats

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        """The verdict; JudgeFailed when the judge could not be asked (the test then has no score)."""
        if isinstance(self._judge, JudgePanel):
            return (await self._ballot(task)).verdict()
        return self._logged(task, await self._judge.judge(task))

    def open_item(self) -> ItemJudging | None:
        """A judge for one item's scoring that keeps its ballots, when the run's judge is a panel
        that casts more than one verdict a task (`contract.scenario.scored`)."""
        if isinstance(self._judge, JudgePanel) and not self._judge.trivial:
            return ItemJudging(self._judge, self._ballot)
        return None

    async def _ballot(self, task: JudgeTask) -> Ballot:
        assert isinstance(self._judge, JudgePanel)
        ballot = await self._judge.ballot(task)
        self._logged(task, ballot.verdict(), {} if self._judge.trivial else {"votes": ballot.votes()})
        return ballot

    def _logged(self, task: JudgeTask, verdict: JudgeVerdict, more: JsonObject | None = None) -> JudgeVerdict:
        self._channel.emit(
            "judge_call",
            task=task.kind,
            scorer=task.scorer,
            fingerprint=task.fingerprint()[:16],
            cached=verdict.cached,
            verdict=verdict.data,
            error=verdict.error,
            **(more or {}),
        )
        if verdict.error is not None and verdict.error.startswith(JUDGE_ERROR):
            raise JudgeFailed(verdict.error.replace(JUDGE_ERROR, "judge error", 1))
        return verdict
