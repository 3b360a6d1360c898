"""The channel between a conversation and its agent: every turn passes through here.

It counts tokens, stamps messages with the simulated clock, writes each exchange to the event log
before returning, and can replay a logged conversation: replies come from the log instead of the
agent until the log runs out.  That one mechanism gives both `--mb-resume` (replay, then hand the
agent the history through `observe` and go on live) and `--mb-replay` (replay only, no agent).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pytest_memorybench.agents.protocol import AgentAdapter
from pytest_memorybench.conversation.clock import SimulatedClock
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.tokens import TokenCounter
from pytest_memorybench.errors import AgentError
from pytest_memorybench.judges.base import Judge, JudgeTask, JudgeVerdict
from pytest_memorybench.records import Message, Usage

Source = Literal["test", "filler", "intro"]  # who is speaking to the agent


@dataclass(frozen=True)
class LoggedExchange:
    """An exchange as the event log keeps it; `saved` marks filler handed over through observe."""

    message: str
    reply: str
    saved: bool = False


class ReplayDivergence(AgentError):
    """The regenerated conversation says something the logged run did not."""


class AgentChannel:
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
        self.last_usage = Usage()  # what the last `say` cost; nothing when it was replayed
        self._replay = deque(replay)
        self._muted = bool(self._replay)
        self._history: list[Message] = []  # since the last reset: what a resumed agent must be told
        self._caught_up = not self._replay
        self.can_save = saving_mode if saving_mode is not None else bool(agent and agent.supports("observe"))

    @property
    def replaying(self) -> bool:
        return bool(self._replay)

    def emit(self, kind: str, **data: Any) -> None:
        """Log an event of this conversation, unless it is being replayed from the log itself."""
        if not self._muted:
            self.log.emit(kind, group=self.group, **data)

    async def say(
        self,
        text: str,
        *,
        source: Source,
        test: str | None = None,
        is_question: bool = False,
        ideal: str | None = None,
        tokens: int | None = None,
    ) -> str:
        """Send one message and return the reply, from the log while replaying, else from the agent.

        `tokens`: `text`'s count, when the caller has it already (filler); it must be what
        `counter.count(text)` gives, which is then not asked.
        """
        sent_at = self.clock.now()
        self.emit("message", i=self.exchanges, source=source, test=test, text=text, is_question=is_question, time=sent_at)
        logged = self._next_logged(text, saved=False)
        self.last_usage = Usage()
        if logged is not None:
            reply = logged.reply
        else:
            agent = await self._live_agent()
            if ideal is not None:
                await agent.prime_answer(ideal)
            before = dataclasses.replace(agent.usage)
            reply = await agent.reply(Message(text, sent_at))
            self.last_usage = agent.usage - before
        self.tokens += (self.counter.count(text) if tokens is None else tokens) + self.counter.count(reply)
        self._remember(text, reply)
        self.emit("reply", i=self.exchanges, source=source, test=test, text=reply, time=self.clock.now(), tokens=self.tokens)
        self.exchanges += 1
        return reply

    async def save(
        self, text: str, expected_reply: str, *, tokens: int | None = None, reply_tokens: int | None = None
    ) -> None:
        """Saving mode: give the agent a filler exchange to take in, without asking it to reply.

        `tokens` and `reply_tokens`: the counts of `text` and `expected_reply`, when the caller has
        them already (filler); they must be what `counter.count` gives, which is then not asked.
        """
        self.emit("message", i=self.exchanges, source="filler", test=None, text=text, is_question=False, time=self.clock.now())
        if self._next_logged(text, saved=True) is None:
            agent = await self._live_agent()
            await agent.observe([Message(text, self.clock.now()), Message(expected_reply, self.clock.now(), "assistant")])
        if tokens is None:
            tokens = self.counter.count(text)
        if reply_tokens is None:
            reply_tokens = self.counter.count(expected_reply)
        self.tokens += tokens + reply_tokens
        self._remember(text, expected_reply)
        self.emit("observed", i=self.exchanges, source="filler", text=expected_reply, time=self.clock.now(), tokens=self.tokens)
        self.exchanges += 1

    async def reset(self) -> None:
        self._history.clear()
        if not self.replaying and self.agent is not None:
            await self.agent.reset()

    def _next_logged(self, text: str, *, saved: bool) -> LoggedExchange | None:
        if not self._replay:
            return None
        logged = self._replay.popleft()
        if logged.message != text or logged.saved != saved:
            raise ReplayDivergence(
                f"conversation {self.group}: the log diverges from the regenerated conversation: "
                f"logged {logged.message[:60]!r}, now {text[:60]!r}; were the definitions or the "
                "agent's capabilities changed since the run?"
            )
        if not self._replay:
            self._muted = False  # caught up: from here on, events are new
        return logged

    async def _live_agent(self) -> AgentAdapter:
        if self.agent is None:
            raise AgentError(f"conversation {self.group}: the logged run ends here and no agent is given to go on")
        if not self._caught_up:
            self._caught_up = True
            if self._history and self.agent.supports("observe"):
                await self.agent.observe(list(self._history))
            self.emit("resumed", replayed_tokens=self.tokens, told=len(self._history))
        return self.agent

    def _remember(self, text: str, reply: str) -> None:
        if not self._caught_up:
            now = self.clock.now()
            self._history += [Message(text, now), Message(reply, now, "assistant")]


class LoggedJudge:
    """The run's judge, with each verdict written to the conversation's event log."""

    def __init__(self, judge: Judge, channel: AgentChannel) -> None:
        self._judge = judge
        self._channel = channel
        self.name = judge.name
        self.stats = judge.stats

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        verdict = await self._judge.judge(task)
        self._channel.emit(
            "judge_call", task=task.kind, scorer=task.scorer, fingerprint=task.fingerprint()[:16],
            cached=verdict.cached, verdict=verdict.data, error=verdict.error,
        )
        return verdict
