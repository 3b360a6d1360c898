"""`rag`: retrieval-augmented generation with the seeds' chunkings.

  chunk=pair       each user–assistant exchange is one document, top 5 (BEAM's RAG baseline, §4.1)
  chunk=message    each message is one document, top 10 (MemBench's RetrievalMemory)
  chunk=paragraph  each paragraph of what the user says, labelled with its place ("Chapter 3,
                   Paragraph 2", or "Message 12, Paragraph 2" where no chapter heading opens the
                   message), top 5 (Huet et al. §5 chunk a book so; the paper does not give K)
  chunk=chapter    each message whole, labelled, top 17 (Huet et al. App. E.2: the most events
                   one question needs in their largest book)
`k` overrides the chunking's top K.  The retrieved documents, best first, are put before the
question as the only context (the papers' prompts), cut to the model's window; `recent=N` adds the
last N messages as chat turns, which none of the papers do (default 0).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem, exchange_text, exchanges
from pytest_memorybench.agents.mechanisms.prompt import section, system_prompt
from pytest_memorybench.agents.mechanisms.settings import one_of, require

CHUNKINGS = ("pair", "message", "paragraph", "chapter")
DEFAULT_K = {"pair": 5, "message": 10, "paragraph": 5, "chapter": 17}
_CHAPTER = re.compile(r"^\W*(chapter\s+[\w-]+)", re.IGNORECASE)


@dataclass(frozen=True)
class RagSettings:
    """How the conversation is cut into documents (pair, message, paragraph, chapter), how many are retrieved,
    and recent turns kept.
    """

    chunk: str = "pair"
    k: int = 0  # 0: the chunking's own top K
    recent: int = 0

    def __post_init__(self) -> None:
        one_of("chunk", self.chunk, CHUNKINGS)
        require(self.k >= 0, f"k must be 1 or more (0: the chunking's default), got {self.k}")
        require(self.recent >= 0, f"recent must be 0 or more, got {self.recent}")

    @property
    def top(self) -> int:
        return self.k or DEFAULT_K[self.chunk]


class Rag(MemorySystem):
    """`rag`: retrieval-augmented generation over chunks of the conversation."""

    name = "rag"
    settings_type = RagSettings

    def start(self) -> None:
        self.documents: list[str] = []
        self.index = self.new_index()

    async def write(self, entries: Sequence[Entry]) -> None:
        documents = list(self._documents(entries))
        await self.index.add(documents, "write")
        self.documents.extend(documents)

    def _documents(self, entries: Sequence[Entry]) -> list[str]:
        chunk = self.settings.chunk
        if chunk == "message":
            return [entry.line for entry in entries]
        if chunk == "pair":
            return [exchange_text(pair) for pair in exchanges(entries)]
        documents = []
        for entry in entries:
            if entry.role != "user":
                continue
            heading = _CHAPTER.match(entry.text)
            place = heading.group(1).title() if heading else f"Message {entry.index + 1}"
            if chunk == "chapter":
                documents.append(f"{place}: {entry.text}")
            else:
                paragraphs = [part.strip() for part in re.split(r"\n\s*\n", entry.text) if part.strip()]
                documents += [
                    f"{place}, Paragraph {number}: {text}" for number, text in enumerate(paragraphs, 1)
                ]
        return documents

    async def answer(self, entry: Entry) -> str:
        ranked = await self.index.search(entry.text, self.settings.top)
        turns = self.recent_turns(self.settings.recent, self.prompt_budget // 4)
        room = self.room(entry)
        room.spend(turn["content"] for turn in turns)
        kept = room.best(ranked, self.documents)
        system = system_prompt(section("Retrieved relevant chunks", kept))
        return await self.reply_with(system, entry, turns, memories=kept)

    async def stored(self) -> list[str]:
        """What it holds, for what it wrote (`conversation/written.py`): every document it indexed."""
        return list(self.documents)

    async def search(self, query: str, k: int) -> list[str]:
        return [self.documents[i] for i in await self.index.search(query, k)]
