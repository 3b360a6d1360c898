"""`scm`: Self-Controlled Memory (Wang et al. 2023) — the model decides when to remember.

Each exchange is a memory; one longer than `summarize_above` tokens is also summarised by the model
when stored, and the summary stands for it in prompts.  For each user message a controller step
asks the model whether answering needs earlier memory (yes / no).  If yes, memories are ranked by
relevance to the message plus recency (both in [0, 1]: similarity, and `decay` to the power of how
many exchanges ago), and the top `k` go into the prompt; either way the last `recent` messages
(the flow memory) precede the message.  A controller reply that is neither yes nor no counts as yes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem, exchange_text, exchanges
from pytest_memorybench.agents.mechanisms.index import top
from pytest_memorybench.agents.mechanisms.model import first_word
from pytest_memorybench.agents.mechanisms.prompt import section, system_prompt, tokens
from pytest_memorybench.agents.mechanisms.settings import positive, require

CONTROLLER = """Recent conversation:
{recent}

User's new message: {message}

To reply to this message, do you need to recall something from earlier in the conversation than the
recent messages shown? Answer yes or no."""

SUMMARY = """Summarise this exchange in a few sentences, keeping every name, number, date and instruction.

{exchange}"""


@dataclass(frozen=True)
class ScmSettings:
    """SCM's parameters: memories retrieved, recent turns, recency decay and the length past which a memory is
    summarised.
    """

    k: int = 5
    recent: int = 4
    decay: float = 0.99
    summarize_above: int = 400

    def __post_init__(self) -> None:
        positive(k=self.k, summarize_above=self.summarize_above)
        require(0 < self.decay <= 1, f"decay must be above 0 and at most 1, got {self.decay:g}")
        require(self.recent >= 0, f"recent must be 0 or more, got {self.recent}")


class SelfControlledMemory(MemorySystem):
    """`scm`: a controller decides whether memory is needed; memories ranked by recency and relevance."""

    name = "scm"
    settings_type = ScmSettings

    def start(self) -> None:
        self.memories: list[str] = []
        self.shown: list[str] = []  # what a prompt shows of each: the text or its summary
        self.index = self.new_index()
        self.controller_yes = 0

    async def write(self, entries: Sequence[Entry]) -> None:
        for exchange in exchanges(entries):
            text = exchange_text(exchange)
            shown = text
            if tokens(text) > self.settings.summarize_above:
                shown = f"(summary) {(await self.model.work(SUMMARY.format(exchange=text), 'write')).strip()}"
            self.memories.append(text)
            self.shown.append(shown)
            await self.index.add([text], "write")

    async def ranked(self, query: str, k: int) -> list[int]:
        if not self.memories:
            return []
        ago = np.arange(len(self.memories) - 1, -1, -1, dtype=float)
        return top(await self.index.relevance(query) + self.settings.decay**ago, k)

    async def answer(self, entry: Entry) -> str:
        recent = exchange_text(self.log[-self.settings.recent - 1 : -1]) if self.settings.recent else ""
        verdict = await self.model.work(
            CONTROLLER.format(recent=recent or "(none)", message=entry.text), "read"
        )
        memories: list[str] = []
        if first_word(verdict) != "no":
            self.controller_yes += 1
            memories = [self.shown[i] for i in sorted(await self.ranked(entry.text, self.settings.k))]
        room = self.room(entry)
        memories = room.newest(memories)
        turns = self.turns_in(room, self.settings.recent)
        return await self.reply_with(system_prompt(section("Memories", memories)), entry, turns)

    async def search(self, query: str, k: int) -> list[str]:
        return [self.memories[i] for i in await self.ranked(query, k)]
