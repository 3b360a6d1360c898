"""`memorybank`: MemoryBank (Zhong et al. 2024) — memories that fade unless retrieved.

Every exchange is a memory stamped with the benchmark's simulated time.  When the day changes, the
model summarises the day's exchanges into an event summary, folds that into the global summary of
all days (§2.1's hierarchical summary: the previous global summary and the new day's, so that no
prompt holds every day) and updates the global portrait of the user (personality, preferences,
facts) from it.  A question retrieves the top `k` memories by
similarity among those still remembered; each retrieved memory's strength S grows by 1 and its
clock restarts.  Retention follows the Ebbinghaus curve R = exp(-t / S), t in days since the memory
was made or last retrieved, S = 1 at first; a memory whose R falls below `forget_below` is forgotten
for good.  (MemoryBank's code draws against R at random; a threshold keeps runs reproducible.)
`search` (evidence recall's `retrieve`) finds only what the next answer could: memories above the
threshold as of the last message heard, without forgetting or strengthening any.  The prompt holds
the portrait, the global summary, the retrieved memories and the last `recent` messages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem, exchange_text, exchanges
from pytest_memorybench.agents.mechanisms.prompt import section, system_prompt
from pytest_memorybench.agents.mechanisms.settings import positive, require

SECONDS_PER_DAY = 86_400.0

DAY_SUMMARY = (
    "Summarise the events and facts of this day's conversation with the user ({day}) in a few sentences.\n"
    """Keep names, numbers, dates and anything the user asked to be remembered.

{exchanges}"""
)

PORTRAIT = """Here is what you know about the user:
{portrait}

And the summary of the latest day's conversation:
{summary}

Rewrite the user's portrait (personality, preferences, facts about their life) in a short paragraph."""

GLOBAL_SUMMARY = """Summary of the conversation with the user so far:
{overall}

Summary of the latest day ({day}):
{summary}

Rewrite the summary of the conversation so far to include the latest day, in a short paragraph. Keep names,
numbers, dates and anything the user asked to be remembered."""


@dataclass
class Memory:
    """One exchange as MemoryBank keeps it: when it was made and last retrieved, how strong it is, whether it
    is forgotten.
    """

    text: str
    made: datetime | None
    last_retrieved: datetime | None
    strength: float = 1.0
    forgotten: bool = False

    def retention(self, now: datetime | None) -> float:
        if now is None or self.last_retrieved is None:
            return 1.0
        days = max((now - self.last_retrieved).total_seconds(), 0.0) / SECONDS_PER_DAY
        return math.exp(-days / self.strength)


@dataclass(frozen=True)
class MemoryBankSettings:
    """MemoryBank's parameters: memories retrieved, the retention below which one is forgotten, recent turns
    in the prompt.
    """

    k: int = 3
    forget_below: float = 0.2
    recent: int = 4

    def __post_init__(self) -> None:
        positive(k=self.k)
        require(
            0 <= self.forget_below < 1, f"forget_below must be from 0 to below 1, got {self.forget_below:g}"
        )
        require(self.recent >= 0, f"recent must be 0 or more, got {self.recent}")


class MemoryBank(MemorySystem):
    """`memorybank`: memories that fade along the forgetting curve, daily summaries and a user portrait."""

    name = "memorybank"
    settings_type = MemoryBankSettings
    answer_changes_memory = True  # recalling strengthens a memory

    def start(self) -> None:
        self.memories: list[Memory] = []
        self.index = self.new_index()
        self.summaries: list[str] = []
        self.overall = ""  # the global summary of every day's
        self.portrait = ""
        self.day: date | None = None
        self.day_texts: list[str] = []

    async def write(self, entries: Sequence[Entry]) -> None:
        for exchange in exchanges(entries):
            moment = exchange[0].time
            if moment is not None and self.day is not None and moment.date() != self.day:
                await self._close_day()
            if moment is not None:
                self.day = moment.date()
            text = exchange_text(exchange)
            self.memories.append(Memory(text, moment, moment))
            self.day_texts.append(text)
            await self.index.add([text], "write")

    async def _close_day(self) -> None:
        if not self.day_texts:
            return
        summary = await self.model.work(
            DAY_SUMMARY.format(day=self.day, exchanges="\n\n".join(self.day_texts)), "write"
        )
        self.summaries.append(f"{self.day}: {summary.strip()}")
        overall = GLOBAL_SUMMARY.format(
            overall=self.overall or "(nothing yet)", day=self.day, summary=summary
        )
        self.overall = (await self.model.work(overall, "write")).strip()
        self.portrait = (
            await self.model.work(
                PORTRAIT.format(portrait=self.portrait or "(nothing yet)", summary=summary), "write"
            )
        ).strip()
        self.day_texts = []

    def forget(self, now: datetime | None) -> None:
        for memory in self.memories:
            if not memory.forgotten and memory.retention(now) < self.settings.forget_below:
                memory.forgotten = True

    def remembered(self, now: datetime | None = None) -> list[int]:
        """The memories not forgotten, and (given `now`) not due to be by then."""
        return [
            i
            for i, memory in enumerate(self.memories)
            if not memory.forgotten and (now is None or memory.retention(now) >= self.settings.forget_below)
        ]

    async def answer(self, entry: Entry) -> str:
        if entry.time is not None and self.day is not None and entry.time.date() != self.day:
            await self._close_day()
            self.day = entry.time.date()
        self.forget(entry.time)
        retrieved = await self.index.search(entry.text, self.settings.k, self.remembered())
        for i in retrieved:
            self.memories[i].strength += 1
            self.memories[i].last_retrieved = entry.time
        known = [text for text in (self.portrait, self.overall) if text]
        room = self.room(entry, *known)
        memories = room.newest([self.memories[i].text for i in sorted(retrieved)])
        turns = self.turns_in(room, self.settings.recent)
        system = system_prompt(
            section("What you know about the user", [self.portrait] if self.portrait else []),
            section("Summary of the conversation so far", [self.overall] if self.overall else []),
            section("Memories recalled", memories),
        )
        return await self.reply_with(system, entry, turns, memories=[*known, *memories])

    async def stored(self) -> list[str]:
        """What it holds, for what it wrote (`conversation/written.py`): the exchanges not yet forgotten, the
        daily summaries, the global summary and the portrait."""
        return [
            *(memory.text for memory in self.memories if not memory.forgotten),
            *self.summaries,
            *(text for text in (self.overall, self.portrait) if text),
        ]

    async def search(self, query: str, k: int) -> list[str]:
        now = self.log[-1].time if self.log else None
        return [self.memories[i].text for i in await self.index.search(query, k, self.remembered(now))]
