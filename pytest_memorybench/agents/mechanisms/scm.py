"""`scm`: Self-Controlled Memory (Wang et al. 2023) — the model decides when to remember.

Each exchange is a memory in the memory stream.  For each user message the memory controller asks
the model whether answering needs earlier memory (yes / no).  If yes, memories are ranked by
relevance to the message plus recency (`decay` to the power of how many exchanges ago), each
min–max normalised over the stream so that neither outweighs the other whatever the embedder,
and the top `k` are activated; the controller then asks whether their summaries are enough to
answer, and the prompt gets the summaries if so, the memories as they were if not.  Either way
the flash memory, the previous turn (`recent` = 2 messages), precedes the message.  A summary is
made the first time a prompt needs it (the paper stores one with every memory: the same text,
made only for the memories that are shown), charged to the read phase it is made in.  An
activation reply that is neither yes nor no counts as yes; a summary reply that is neither, as no.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem, exchange_text, exchanges
from pytest_memorybench.agents.mechanisms.index import normalised, top
from pytest_memorybench.agents.mechanisms.model import first_word
from pytest_memorybench.agents.mechanisms.prompt import section, system_prompt
from pytest_memorybench.agents.mechanisms.settings import positive, require

CONTROLLER = """Recent conversation:
{recent}

User's new message: {message}

To reply to this message, do you need to recall something from earlier in the conversation than the
recent messages shown? Answer yes or no."""

USE_SUMMARIES = """User's new message: {message}

Summaries of the earlier exchanges recalled for it:
{summaries}

Can the message be answered correctly from these summaries alone, without the full exchanges? Answer yes
or no."""

SUMMARY = """Summarise this exchange in a few sentences, keeping every name, number, date and instruction.

{exchange}"""


@dataclass(frozen=True)
class ScmSettings:
    """SCM's parameters: memories activated, the flash memory's messages and the recency decay."""

    k: int = 5
    recent: int = 2
    decay: float = 0.99

    def __post_init__(self) -> None:
        positive(k=self.k)
        require(0 < self.decay <= 1, f"decay must be above 0 and at most 1, got {self.decay:g}")
        require(self.recent >= 0, f"recent must be 0 or more, got {self.recent}")


class SelfControlledMemory(MemorySystem):
    """`scm`: a controller decides whether memory is needed and whether summaries will do."""

    name = "scm"
    settings_type = ScmSettings

    def start(self) -> None:
        self.memories: list[str] = []
        self.summaries: dict[int, str] = {}  # made when a prompt first needs them
        self.index = self.new_index()
        self.controller_yes = 0
        self.summaries_used = 0

    async def write(self, entries: Sequence[Entry]) -> None:
        texts = [exchange_text(exchange) for exchange in exchanges(entries)]
        self.memories += texts
        await self.index.add(texts, "write")

    async def ranked(self, query: str, k: int) -> list[int]:
        """The `k` best memories by normalised relevance plus normalised recency."""
        if not self.memories:
            return []
        ago = np.arange(len(self.memories) - 1, -1, -1, dtype=float)
        relevance = normalised(await self.index.relevance(query))
        return top(relevance + normalised(self.settings.decay**ago), k)

    async def answer(self, entry: Entry) -> str:
        recent = exchange_text(self.log[-self.settings.recent - 1 : -1]) if self.settings.recent else ""
        verdict = await self.model.work(
            CONTROLLER.format(recent=recent or "(none)", message=entry.text), "read"
        )
        memories: list[str] = []
        if first_word(verdict) != "no":
            self.controller_yes += 1
            memories = await self._activated(entry, sorted(await self.ranked(entry.text, self.settings.k)))
        room = self.room(entry)
        memories = room.newest(memories)
        turns = self.turns_in(room, self.settings.recent)
        system = system_prompt(section("Memories", memories))
        return await self.reply_with(system, entry, turns, memories=memories)

    async def _activated(self, entry: Entry, chosen: list[int]) -> list[str]:
        """The chosen memories as the prompt shows them: their summaries, when the controller says
        those are enough to answer, else the exchanges themselves."""
        if not chosen:
            return []
        for i in chosen:
            if i not in self.summaries:
                made = await self.model.work(SUMMARY.format(exchange=self.memories[i]), "read")
                self.summaries[i] = f"(summary) {made.strip()}"
        summaries = [self.summaries[i] for i in chosen]
        verdict = await self.model.work(
            USE_SUMMARIES.format(message=entry.text, summaries="\n".join(summaries)), "read"
        )
        if first_word(verdict) == "yes":
            self.summaries_used += 1
            return summaries
        return [self.memories[i] for i in chosen]

    async def stored(self) -> list[str]:
        """What it holds, for what it wrote (`conversation/written.py`): the memory stream: an exchange a
        memory."""
        return list(self.memories)

    async def search(self, query: str, k: int) -> list[str]:
        return [self.memories[i] for i in await self.ranked(query, k)]
