"""`memorybench_conversation`: a conversation users drive from their own pytest tests.

    def test_remembers_the_dog(memorybench_conversation):
        chat = memorybench_conversation
        chat.say("My dog is called Biscuit.")
        chat.filler(tokens=2_000)         # unrelated conversation in between
        chat.wait(hours=3)                # simulated time
        assert_regex(r"\\bBiscuit\\b", chat.ask("What is my dog called?"))

Each test gets its own conversation (the agent is reset first) on the same channel machinery as
the suites: messages stamped with the simulated clock, tokens counted, every exchange in the run's
event log under the test's node id, filler through `observe` when the agent has it.  Sync methods
work in plain tests; async tests can await the `a`-prefixed ones.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any, TypeVar

from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.filler import make_filler
from pytest_memorybench.conversation.scheduler import FILLER_CAP_TOKENS
from pytest_memorybench.conversation.trivia import TriviaSource
from pytest_memorybench.core.records import Turn

T = TypeVar("T")


class MemoryConversation:
    """A conversation with the agent under test, driven by hand from a user's own test.

    What the `memorybench_conversation` fixture gives: say things, let filler or simulated time
    pass, ask, and score the reply with the public asserts. Every exchange goes to the run's event
    log and the item's transcript in the reports, as a benchmark test's would.
    """

    def __init__(
        self,
        channel: AgentChannel,
        run_sync: Callable[[Coroutine[Any, Any, Any]], Any],
        filler_source: TriviaSource,
    ) -> None:
        self.channel = channel
        self._run_sync = run_sync
        self._filler = filler_source
        self._filler_index = 0
        self.transcript: list[Turn] = []

    @property
    def tokens(self) -> int:
        """Tokens of conversation so far (messages and replies, filler included)."""
        return self.channel.tokens

    # -- async ------------------------------------------------------------------------------------

    async def asay(self, text: str) -> str:
        """Tell the agent something; its reply is returned (and logged) but not scored."""
        return await self._exchange(text, is_question=False)

    async def aask(self, question: str, *, ideal: str | None = None) -> str:
        """Ask a question; `ideal` is what the oracle agent will answer (for calibrating a test)."""
        return await self._exchange(question, is_question=True, ideal=ideal)

    async def afiller(self, tokens: int) -> None:
        """At least `tokens` tokens of unrelated conversation (trivia filler) from here."""
        target = self.channel.tokens + tokens
        while self.channel.tokens < target:
            task = make_filler(
                self._filler,
                self._filler_index,
                target - self.channel.tokens,
                FILLER_CAP_TOKENS,
                self.channel.counter,
            )
            self._filler_index = task.next_index
            if self.channel.can_save:
                await self.channel.save(task)
            else:
                await self.channel.say_filler(task)

    def wait(self, *, minutes: float = 0, hours: float = 0, days: float = 0) -> None:
        """Move the simulated clock forward; the next message carries the later time."""
        seconds = timedelta(minutes=minutes, hours=hours, days=days).total_seconds()
        self.channel.clock.advance(seconds)
        self.channel.emit("clock_jump", seconds=seconds, time=self.channel.clock.now())

    # -- sync -------------------------------------------------------------------------------------

    def say(self, text: str) -> str:
        """`asay`, for a sync test."""
        return str(self._run_sync(self.asay(text)))

    def ask(self, question: str, *, ideal: str | None = None) -> str:
        """`aask`, for a sync test."""
        return str(self._run_sync(self.aask(question, ideal=ideal)))

    def filler(self, tokens: int) -> None:
        """`afiller`, for a sync test."""
        self._run_sync(self.afiller(tokens))

    async def _exchange(self, text: str, *, is_question: bool, ideal: str | None = None) -> str:
        sent_at = self.channel.clock.now()
        reply = await self.channel.say(
            text, source="test", test=self.channel.group, is_question=is_question, ideal=ideal
        )
        self.transcript.append(Turn(text, reply, sent_at.isoformat(), is_question))
        return reply
