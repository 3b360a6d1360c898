"""What every memory system shares: the agent protocol around a mechanism, and its prompts.

A mechanism says how it takes messages in (`write`, the *write* phase), how it answers one
(`answer`, the *read* phase) and what it finds for a query without asking its model (`search`,
which `retrieve(query, k)` exposes for evidence recall).  `MemorySystem` turns that into an agent:
a reply is read then written (the user's message and the reply, as one exchange), observed
messages are only written, a fork is a deep copy that shares the model's clients and the
embedder, and a reset starts the memory afresh.  `context()` gives what the last answering prompt
held: the memories the mechanism put in it (`reply_with(..., memories=...)`) and the earlier turns,
each as shown, for context recall beside the retrieval recall of `search`.

A mechanism lays its answering prompt out with `prompt.py`: `room(entry)` is what the prompt has
left for memories and turns once the question is in, and `recent_turns` takes its share of it.
An `Entry`'s line is stamped with the benchmark's simulated time.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from pytest_memorybench.agents.mechanisms.embedders import Embedder
from pytest_memorybench.agents.mechanisms.index import Index, make_index
from pytest_memorybench.agents.mechanisms.model import MemoryModel
from pytest_memorybench.agents.mechanisms.prompt import HEADINGS, PromptRoom, newest_that_fit, tokens
from pytest_memorybench.core.records import Message, Usage
from pytest_memorybench.models.llm import MESSAGE_OVERHEAD, Turn


@dataclass
class Entry:
    """One message the memory heard: its place in the conversation, who said it, what, and when."""

    index: int
    role: str
    text: str
    time: datetime | None = None
    session: str | None = None  # the benchmark's session it came in (`Message.session`)
    speaker: str | None = None  # who said it, where the benchmark names speakers (`Message.speaker`)

    @property
    def line(self) -> str:
        stamp = f"[{self.time:%Y-%m-%d %H:%M}] " if self.time else ""
        return f"{stamp}{self.role}: {self.text}"

    @property
    def turn(self) -> Turn:
        return {"role": "assistant" if self.role == "assistant" else "user", "content": self.text}


def exchange_text(entries: Sequence[Entry]) -> str:
    """Entries as one dialogue segment, a line each."""
    return "\n".join(entry.line for entry in entries)


def exchanges(entries: Sequence[Entry]) -> list[list[Entry]]:
    """Consecutive entries grouped as exchanges: a user message with the replies that follow it."""
    groups: list[list[Entry]] = []
    for entry in entries:
        if entry.role == "user" or not groups:
            groups.append([entry])
        else:
            groups[-1].append(entry)
    return groups


class MemorySystem(ABC):
    """A memory mechanism around a model, as an agent."""

    name: ClassVar[str]
    settings_type: ClassVar[type]
    answer_changes_memory: ClassVar[bool] = False  # answering updates the memory (a resume redoes it)

    def __init__(self, model: MemoryModel, embedder: Embedder | None = None, settings: Any = None) -> None:
        self.model = model
        self.embedder = embedder
        self.settings = settings if settings is not None else self.settings_type()
        self.log: list[Entry] = []
        self.last_context: list[str] = []
        self.start()

    # -- what a mechanism defines --------------------------------------------------------------

    @abstractmethod
    def start(self) -> None:
        """Set up an empty memory (the log of what was heard is the base's)."""

    @abstractmethod
    async def write(self, entries: Sequence[Entry]) -> None:
        """Take in `entries` (an exchange, or observed messages): the write phase."""

    @abstractmethod
    async def answer(self, entry: Entry) -> str:
        """The reply to `entry`, from memory: the read phase.  `entry` is in `log` already."""

    @abstractmethod
    async def search(self, query: str, k: int) -> list[str]:
        """The `k` memories the mechanism would find for `query`, without model calls."""

    # Optional, by presence: `async def stored(self) -> list[str]`, every memory the mechanism
    # holds as text, listed at a conversation's end to tell a question never stored from one stored
    # but not found (`conversation/written.py`).

    # -- the agent protocol ------------------------------------------------------------------------

    @property
    def usage(self) -> Usage:
        return self.model.usage

    @property
    def phase_usage(self) -> dict[str, Usage]:
        return self.model.phase_usage

    async def reply(self, message: Message) -> str:
        heard = self._hear(message.text, "user", message.timestamp)
        text = await self.answer(heard)
        said = self._hear(text, "assistant", message.timestamp)
        await self.write([heard, said])
        return text

    async def observe(self, messages: Sequence[Message]) -> None:
        await self.write(
            [
                self._hear(message.text, message.role, message.timestamp, message.session, message.speaker)
                for message in messages
            ]
        )

    async def catch_up(self, history: Sequence[Message]) -> None:
        """A resumed run's earlier exchanges, taken in as the replies took them: each user message
        is answered again when answering changes the memory (what was recalled, a function call),
        the answer thrown away, and the logged reply written with it.  With a deterministic model
        the memory ends as the uninterrupted run's did."""
        for user, said in zip(history[::2], history[1::2], strict=False):
            heard = self._hear(user.text, "user", user.timestamp)
            if self.answer_changes_memory:
                await self.answer(heard)
            await self.write([heard, self._hear(said.text, "assistant", user.timestamp)])

    async def retrieve(self, query: str, k: int) -> list[str]:
        return await self.search(query, k)

    async def context(self) -> list[str]:
        """What the last answering prompt held: the memories put in it, then its earlier turns."""
        return list(self.last_context)

    async def prime_answer(self, ideal: str) -> None:
        """The harness's cue to a calibration model (the estimate's stand-in): for the answer only."""
        primed = getattr(self.model.answerer, "prime_answer", None)
        if primed is not None:
            await primed(ideal)

    async def reset(self) -> None:
        self.log = []
        self.last_context = []
        self.start()

    async def fork(self) -> MemorySystem:
        return copy.deepcopy(self, {id(self.model): self.model.fork(), id(self.embedder): self.embedder})

    async def aclose(self) -> None:
        await self.model.aclose()
        close = getattr(self.embedder, "aclose", None)
        if close is not None:
            await close()

    # -- helpers for mechanisms ------------------------------------------------------------------

    def new_index(self) -> Index:
        return make_index(self.embedder, self.model)

    @property
    def prompt_budget(self) -> int:
        """Tokens an answering prompt may take: the model's window less the room for its reply."""
        return max(self.model.context_tokens - self.model.output_tokens, 256)

    memory_cap: int | None = None  # --mb-context-tokens: the memories and turns an answer may recall

    def room(self, entry: Entry, *beside: str, total: int | None = None) -> PromptRoom:
        """What the answering prompt has left for memories and turns once `entry`, the texts
        `beside` it (a portrait, a scratchpad) and the headings are in; of `total` tokens, by
        default the whole `prompt_budget`; never more than the run's cap on recalled memory."""
        total = self.prompt_budget if total is None else total
        left = total - sum(tokens(text) for text in beside) - tokens(entry.text) - HEADINGS
        return PromptRoom(left if self.memory_cap is None else min(left, self.memory_cap))

    def recent_turns(self, count: int, budget: int | None = None) -> list[Turn]:
        """The last `count` entries before the newest as chat turns, within `budget` tokens."""
        entries = self.log[-count - 1 : -1] if count > 0 else []
        if budget is not None:
            texts = newest_that_fit(
                [entry.text for entry in entries], budget, lambda text: tokens(text) + MESSAGE_OVERHEAD
            )
            entries = entries[len(entries) - len(texts) :]
        return [entry.turn for entry in entries]

    def turns_in(self, room: PromptRoom, count: int, part: int = 1) -> list[Turn]:
        """`recent_turns` within `part` of what `room` has left, spent from it."""
        turns = self.recent_turns(count, room.share(part))
        room.spend(turn["content"] for turn in turns)
        return turns

    async def reply_with(
        self, system: str, entry: Entry, turns: Sequence[Turn] = (), memories: Sequence[str] = ()
    ) -> str:
        """Ask the answering model, `system` and `turns` before the user's message; `memories` are
        the items of `system` recalled for it, which with `turns` are the prompt's `context()`."""
        self.last_context = [*memories, *(turn["content"] for turn in turns)]
        completion = await self.model.answer(system, [*turns, entry.turn])
        return completion.text

    def _hear(
        self,
        text: str,
        role: str,
        time: datetime | None,
        session: str | None = None,
        speaker: str | None = None,
    ) -> Entry:
        entry = Entry(
            len(self.log), "assistant" if role == "assistant" else "user", text, time, session, speaker
        )
        self.log.append(entry)
        return entry
