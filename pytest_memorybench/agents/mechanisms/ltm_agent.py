"""`ltm-agent`: GoodAI's baseline LTM agent (GoodAI §4; `goodai-ltm-benchmark`'s LTM agent).

A vector memory of the conversation's exchanges and a JSON scratchpad that is always in the
prompt.  For each user message the model first writes up to `queries` search queries for what it
needs to remember; each query (and the message itself) retrieves the top `k` exchanges, and those
not already among the recent turns in the prompt are added.  After the reply the model rewrites
the scratchpad with what the exchange taught it.  The prompt is kept within `context` tokens (the
agent's 16k) or the model's window if that is smaller: scratchpad, then retrieved memories, then
as many recent turns as still fit.  Queries that are not a JSON list fall back to the message
alone; a scratchpad reply that is not a JSON object leaves the scratchpad as it was.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem, exchange_text, exchanges
from pytest_memorybench.agents.mechanisms.prompt import section, system_prompt
from pytest_memorybench.agents.mechanisms.settings import positive
from pytest_memorybench.core.json_values import JsonObject

QUERIES = """You are about to reply to the user's message below. Your long-term memory holds the whole
conversation so far. Write up to {count} short search queries for what you need to remember to reply well.

Recent conversation:
{recent}

User's message: {message}

Reply with a JSON list of strings only."""

SCRATCHPAD = """Your scratchpad is a JSON object of what you must keep in mind about the user and the
conversation: facts, preferences, instructions still to follow, open tasks.

Scratchpad:
{scratchpad}

Latest exchange:
{exchange}

Rewrite the scratchpad to include what this exchange adds or changes. Reply with the JSON object only."""


@dataclass(frozen=True)
class LtmAgentSettings:
    """GoodAI's LTM agent's parameters: search queries per message, chunks per query and its context
    budget."""

    queries: int = 3
    k: int = 5
    context: int = 16_000

    def __post_init__(self) -> None:
        positive(queries=self.queries, k=self.k, context=self.context)


class LtmAgent(MemorySystem):
    """`ltm-agent`: GoodAI's agent, a vector memory searched with written queries and a JSON scratchpad."""

    name = "ltm-agent"
    settings_type = LtmAgentSettings

    def start(self) -> None:
        self.chunks: list[str] = []
        self.chunk_end: list[int] = []  # the log position after each chunk's last entry
        self.index = self.new_index()
        self.scratchpad: JsonObject = {}

    @property
    def budget(self) -> int:
        return min(int(self.settings.context), self.prompt_budget)

    async def write(self, entries: Sequence[Entry]) -> None:
        for exchange in exchanges(entries):
            text = exchange_text(exchange)
            self.chunks.append(text)
            self.chunk_end.append(exchange[-1].index + 1)
            await self.index.add([text], "write")
            prompt = SCRATCHPAD.format(
                scratchpad=json.dumps(self.scratchpad, ensure_ascii=False), exchange=text
            )
            updated = await self.model.work_json(prompt, "write")
            if isinstance(updated, dict):
                self.scratchpad = updated

    async def answer(self, entry: Entry) -> str:
        recent = exchange_text(self.log[-7:-1]) or "(none)"
        asked = await self.model.work_json(
            QUERIES.format(count=self.settings.queries, recent=recent, message=entry.text), "read"
        )
        queries = (
            [entry.text] + [q for q in asked if isinstance(q, str) and q.strip()][: self.settings.queries]
            if isinstance(asked, list)
            else [entry.text]
        )
        scratchpad = json.dumps(self.scratchpad, ensure_ascii=False)
        room = self.room(entry, scratchpad, total=self.budget)
        turns = self.turns_in(room, len(self.log), part=2)
        in_context = len(self.log) - 1 - len(turns)  # log positions from here on are in the prompt
        found: list[int] = []
        for query in queries:
            for chunk in await self.index.search(query, self.settings.k):
                if chunk not in found and self.chunk_end[chunk] <= in_context:
                    found.append(chunk)
        memories = room.newest([self.chunks[i] for i in sorted(found)])
        pad = [scratchpad] if self.scratchpad else []
        system = system_prompt(section("Scratchpad (JSON)", pad), section("Long-term memories", memories))
        return await self.reply_with(system, entry, turns, memories=[*pad, *memories])

    async def stored(self) -> list[str]:
        """What it holds, for what it wrote (`conversation/written.py`): the exchanges its vector memory
        holds, and the scratchpad."""
        return [*self.chunks, *([json.dumps(self.scratchpad, ensure_ascii=False)] if self.scratchpad else [])]

    async def search(self, query: str, k: int) -> list[str]:
        return [self.chunks[i] for i in await self.index.search(query, k)]
