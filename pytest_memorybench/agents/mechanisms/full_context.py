"""`full-context`: the whole conversation in the prompt, as far as the model's window reaches.

The long-context baseline of every seed (GoodAI's plain LLMs, Huet et al.'s in-context memory,
BEAM's long-context models, MemBench's FullMemory): nothing is stored but the transcript, and each
reply sees the newest turns that fit the window (`--mb-context`, or the model's size) beside the
room kept for the answer.  It is the LLM adapter's behaviour, named so that a comparison of memory
systems has its baseline; its write phase costs nothing.

`retrieve(query, k)` returns the newest `k` messages in the window (a window has no ranking of its
own); `context()`, the whole window the last reply saw: whether the evidence was still in context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem
from pytest_memorybench.agents.mechanisms.prompt import newest_that_fit, tokens
from pytest_memorybench.models.llm import MESSAGE_OVERHEAD, SYSTEM_PROMPT


@dataclass(frozen=True)
class WindowSettings:
    """full-context has no settings: its window is the model's context (`--mb-context`)."""

    pass


class FullContext(MemorySystem):
    """`full-context`: the conversation itself is the memory, newest turns first, as far as the window
    reaches."""

    name = "full-context"
    settings_type: ClassVar[type] = WindowSettings

    def kept(self) -> list[Entry]:
        """The entries the mechanism keeps in view, of all heard so far, before the window cuts them."""
        return self.log

    def start(self) -> None:
        """Nothing to set up: the log is the memory."""

    async def write(self, entries: Sequence[Entry]) -> None:
        """Nothing to take in: the log is the memory."""

    async def answer(self, entry: Entry) -> str:
        budget = self.prompt_budget - tokens(SYSTEM_PROMPT) - tokens(entry.text) - 2 * MESSAGE_OVERHEAD
        earlier = [e for e in self.kept() if e is not entry]
        return await self.reply_with(SYSTEM_PROMPT, entry, [e.turn for e in self._fit(earlier, budget)])

    async def stored(self) -> list[str]:
        """What it holds, for what it wrote (`conversation/written.py`): the messages it keeps (the log, or
        the last ones a window keeps)."""
        return [entry.line for entry in self.kept()]

    async def search(self, query: str, k: int) -> list[str]:
        return [entry.text for entry in reversed(self._fit(self.kept(), self.prompt_budget))][:k]

    @staticmethod
    def _fit(entries: list[Entry], budget: int) -> list[Entry]:
        texts = newest_that_fit(
            [entry.text for entry in entries], budget, lambda text: tokens(text) + MESSAGE_OVERHEAD
        )
        return entries[len(entries) - len(texts) :]
