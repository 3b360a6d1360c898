"""`light`: BEAM's LIGHT (§3) — an episodic index, a working memory and a scratchpad.

After each user–assistant exchange the model extracts key–value pairs and a summary of it; each
pair and the summary are indexed as keys whose value is the raw dialogue segment (§3.1).  It also
reads the exchange with the one before and writes salient notes (facts, life events, intentions,
time and place) that are merged into the scratchpad, one note a line, repeats dropped; past
`scratchpad_max` tokens the model compresses the scratchpad to `scratchpad_target` (§3.2: 30K and
15K; the released `light.py` asks for 14,000 in its compression prompt: `scratchpad_max=14000`).
Nothing is cut without the model: a compression still over the target is compressed once more, and
kept as it is if still over (counted in `over_target`); one that comes back empty leaves the notes
as they were.

To answer, the question retrieves the top `k` segments (the paper's K ablation tries 5 to 20; 5 is
its RAG baseline's and our default), the last `z` exchanges are the working memory (the released
code keeps the last 100 chunks; the paper leaves z open), and the scratchpad is cut into chunks
of about `chunk_tokens`, each kept only if the model answers "yes" when asked whether it is
relevant to the question (the paper chunks semantically; we cut at note boundaries).  The prompt
holds question, segments, notes and working memory; what does not fit the model's window is
dropped in that order from the end: the working memory's oldest turns first, then the notes.
A reply the model does not give as JSON, or a relevance answer that is neither yes nor no, counts
as no key–value pairs and as "not relevant", as a failed parse does in the released code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem, exchange_text, exchanges
from pytest_memorybench.agents.mechanisms.model import first_word
from pytest_memorybench.agents.mechanisms.prompt import (
    section,
    system_prompt,
    tokens,
)
from pytest_memorybench.agents.mechanisms.settings import positive, require

EXTRACT = """Read this exchange from a conversation between a user and an assistant.

{segment}

Extract the facts it holds as key-value pairs: each key an entity (a person, place, object, event or
date), each value what the exchange says about it. Then summarise the exchange in one sentence.
Reply with JSON only: {{"key_values": {{"entity": "detail", ...}}, "summary": "..."}}"""

NOTES = """You keep a scratchpad of salient notes about a conversation: facts, the user's life events
and details, intentions and plans, times and places.

Previous exchange:
{previous}

Current exchange:
{segment}

Write the new notes the current exchange gives (read with the previous one), one short note per line.
Reply with NONE if there are none."""

COMPRESS = """Compress these scratchpad notes into at most {target} tokens. Keep every fact, name, number,
date and intention; merge repeats; one note per line.

{notes}"""

RELEVANT = """Question: {question}

Notes:
{chunk}

Is any of these notes relevant to answering the question? Answer yes or no."""


@dataclass(frozen=True)
class LightSettings:
    """LIGHT's parameters: segments retrieved, working-memory exchanges, the scratchpad's size limits and the
    chunk size its relevance filter reads.
    """

    k: int = 5
    z: int = 100
    scratchpad_max: int = 30_000
    scratchpad_target: int = 15_000
    chunk_tokens: int = 500

    def __post_init__(self) -> None:
        positive(
            k=self.k,
            z=self.z,
            scratchpad_max=self.scratchpad_max,
            scratchpad_target=self.scratchpad_target,
            chunk_tokens=self.chunk_tokens,
        )
        require(
            self.scratchpad_target < self.scratchpad_max,
            f"scratchpad_target ({self.scratchpad_target}) must be below scratchpad_max"
            f" ({self.scratchpad_max})",
        )


class Light(MemorySystem):
    """`light`: BEAM's LIGHT, episodic segments with extracted keys, working memory and a filtered
    scratchpad."""

    name = "light"
    settings_type = LightSettings

    def start(self) -> None:
        self.segments: list[str] = []
        self.key_segment: list[int] = []  # index id -> segment
        self.index = self.new_index()
        self.notes: list[str] = []
        self.previous = "(none)"
        self.compressions = 0
        self.over_target = 0  # compressions the model left over the target

    async def write(self, entries: Sequence[Entry]) -> None:
        for exchange in exchanges(entries):
            segment = exchange_text(exchange)
            self.segments.append(segment)
            keys = await self._keys(segment)
            self.key_segment += [len(self.segments) - 1] * len(await self.index.add(keys, "write"))
            await self._take_notes(segment)
            self.previous = segment

    async def _keys(self, segment: str) -> list[str]:
        extracted = await self.model.work_json(EXTRACT.format(segment=segment), "write")
        keys: list[str] = []
        if isinstance(extracted, dict):
            pairs = extracted.get("key_values")
            if isinstance(pairs, dict):
                keys += [f"{key}: {value}" for key, value in pairs.items() if str(key).strip()]
            if isinstance(extracted.get("summary"), str) and extracted["summary"].strip():
                keys.append(extracted["summary"])
        return keys

    async def _take_notes(self, segment: str) -> None:
        reply = await self.model.work(NOTES.format(previous=self.previous, segment=segment), "write")
        known = set(self.notes)
        for line in reply.splitlines():
            note = line.strip().lstrip("-*• ").strip()
            if note and note.upper().rstrip(".") != "NONE" and note not in known:
                self.notes.append(note)
                known.add(note)
        if tokens("\n".join(self.notes)) > self.settings.scratchpad_max:
            await self.compress()

    async def compress(self) -> None:
        """The scratchpad compressed by the model to its target: twice at most, never cut by us."""
        notes = self.notes
        for _ in range(2):
            reply = await self.model.work(
                COMPRESS.format(target=self.settings.scratchpad_target, notes="\n".join(notes)), "write"
            )
            compressed = [line.strip().lstrip("-*• ").strip() for line in reply.splitlines()]
            if not any(compressed):
                break
            notes = [line for line in compressed if line]
            if tokens("\n".join(notes)) <= self.settings.scratchpad_target:
                break
        if tokens("\n".join(notes)) > self.settings.scratchpad_target:
            self.over_target += 1
        self.notes = notes
        self.compressions += 1

    async def _ranked_segments(self, query: str, k: int) -> list[int]:
        chosen: list[int] = []
        for key in await self.index.search(query, 8 * k):
            if self.key_segment[key] not in chosen:
                chosen.append(self.key_segment[key])
            if len(chosen) == k:
                break
        return chosen

    def scratchpad_chunks(self) -> list[str]:
        chunks: list[list[str]] = [[]]
        size = 0
        for note in self.notes:
            cost = tokens(note)
            if chunks[-1] and size + cost > self.settings.chunk_tokens:
                chunks.append([])
                size = 0
            chunks[-1].append(note)
            size += cost
        return ["\n".join(chunk) for chunk in chunks if chunk]

    async def answer(self, entry: Entry) -> str:
        ranked = await self._ranked_segments(entry.text, self.settings.k)
        relevant = []
        for chunk in self.scratchpad_chunks():
            verdict = await self.model.work(RELEVANT.format(question=entry.text, chunk=chunk), "read")
            if first_word(verdict) == "yes":
                relevant.append(chunk)
        room = self.room(entry)
        found = room.best(ranked, self.segments)
        notes = room.newest([note for chunk in relevant for note in chunk.splitlines()][::-1])[::-1]
        turns = self.turns_in(room, 2 * self.settings.z)
        system = system_prompt(
            section("Retrieved conversation segments", found), section("Scratchpad notes", notes)
        )
        return await self.reply_with(system, entry, turns, memories=[*found, *notes])

    async def stored(self) -> list[str]:
        """What it holds, for what it wrote (`conversation/written.py`): each dialogue segment its keys point
        at, and the scratchpad's notes."""
        return [*self.segments, *self.notes]

    async def search(self, query: str, k: int) -> list[str]:
        return [self.segments[i] for i in await self._ranked_segments(query, k)]
