"""Reference memory agents: three memory components behind the extractive answerer, all offline.

MemBench (§4.1) compares memory mechanisms behind one base model: FullMemory (everything it
stored goes into the prompt, as far as the model's context allows), RecentMemory (only the latest
turns) and RetrievalMemory (the top 10 memories by similarity to the question, within a word
budget).  Here the "model" is the extractive answerer of `agents/reference/extractive.py` (the
`recall` agent's): it reads what the memory component gives it for a question and answers from
that alone.  With the answerer fixed,
differences between the three are the memory's own, which is the paper's point; the capacity
curve shows where each one stops seeing the evidence.

  full-memory       reads every stored message, newest first, up to `context_words` words
                    (default 24,000, about the 32k-token context of the paper's 7-9B models);
                    older messages fall out of the window, as in a long trajectory
  recent-memory     reads the last `turns` messages (default 200)
  retrieval-memory  reads the `k` (default 10) messages BM25 ranks highest for the whole
                    question, options included, stopping before `max_words` (default 4,000)
                    would overflow; the paper retrieves with multilingual-e5 embeddings, we stay
                    lexical so the agent needs no model

`retrieve(query, k)` returns, for every component, the k messages read that the answerer ranks
first; `context()` what it read for the last question (all of it: the context recall).  (MemBench's own Full
and Recent memories return every stored id to its recall metric; the paper reports recall for its retrieval
memory only.)  Like the `recall` agent, they keep every message that is not a question, acknowledge statements
and fork by copying.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Protocol

from pytest_memorybench.agents.reference.extractive import Statements, answer, is_question, split_choices
from pytest_memorybench.agents.reference.oracle import ACKNOWLEDGEMENT
from pytest_memorybench.core.records import Message

DEFAULT_CONTEXT_WORDS = 24_000
DEFAULT_RECENT_TURNS = 200
DEFAULT_K = 10
DEFAULT_MAX_WORDS = 4_000


class MemoryComponent(Protocol):
    """Stores messages; for a question, gives the ones the answerer may read, in store order or rank."""

    def store(self, text: str) -> None: ...

    def read(self, query: str) -> list[str]: ...


def _words(text: str) -> int:
    return len(text.split())


class _Log:
    """Messages kept as text, oldest first."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def store(self, text: str) -> None:
        self.texts.append(text)


class FullMemory(_Log):
    """Every stored message, newest first, as far as `context_words` go."""

    def __init__(self, context_words: int = DEFAULT_CONTEXT_WORDS) -> None:
        super().__init__()
        self.context_words = context_words

    def read(self, query: str) -> list[str]:
        window: list[str] = []
        budget = self.context_words
        for text in reversed(self.texts):
            budget -= _words(text)
            if budget < 0:
                break
            window.append(text)
        return window[::-1]


class RecentMemory(_Log):
    """Only the last `turns` messages."""

    def __init__(self, turns: int = DEFAULT_RECENT_TURNS) -> None:
        super().__init__()
        if turns < 1:  # `del texts[:-0]` would keep everything
            raise ValueError(f"recent memory needs turns >= 1, got {turns}")
        self.turns = turns

    def store(self, text: str) -> None:
        super().store(text)
        del self.texts[: -self.turns]

    def read(self, query: str) -> list[str]:
        return list(self.texts)


class RetrievalMemory:
    """The `k` messages BM25 ranks highest for the question, within `max_words`."""

    def __init__(self, k: int = DEFAULT_K, max_words: int = DEFAULT_MAX_WORDS) -> None:
        self.k = k
        self.max_words = max_words
        self.index = Statements()

    def store(self, text: str) -> None:
        self.index.add(text)

    def read(self, query: str) -> list[str]:
        found: list[str] = []
        budget = self.max_words
        for position in self.index.ranked(query, self.k):
            budget -= _words(self.index.texts[position])
            if budget < 0:
                break
            found.append(self.index.texts[position])
        return found


class MemoryAgent:
    """A memory component with the extractive answerer reading what it gives."""

    def __init__(self, memory: MemoryComponent) -> None:
        self.memory = memory
        self._fresh = copy.deepcopy(memory)
        self.last_context: list[str] = []

    async def reply(self, message: Message) -> str:
        if not is_question(message.text):
            self.memory.store(message.text)
            return ACKNOWLEDGEMENT
        self.last_context = self.memory.read(message.text)
        return answer(message.text, Statements(self.last_context))

    async def context(self) -> list[str]:
        """What the answerer read for the last question."""
        return list(self.last_context)

    async def observe(self, messages: Sequence[Message]) -> None:
        for message in messages:
            if not split_choices(message.text)[
                1
            ]:  # as the `recall` agent does: a quiz in the history is no content
                self.memory.store(message.text)

    async def retrieve(self, query: str, k: int) -> list[str]:
        read = Statements(self.memory.read(query))
        return [read.texts[position] for position in read.ranked(query, k)]

    async def reset(self) -> None:
        self.memory = copy.deepcopy(self._fresh)
        self.last_context = []

    async def fork(self) -> MemoryAgent:
        return copy.deepcopy(self)


class FullMemoryAgent(MemoryAgent):
    """`full-memory`."""

    def __init__(self, context_words: int = DEFAULT_CONTEXT_WORDS) -> None:
        super().__init__(FullMemory(context_words))


class RecentMemoryAgent(MemoryAgent):
    """`recent-memory`."""

    def __init__(self, turns: int = DEFAULT_RECENT_TURNS) -> None:
        super().__init__(RecentMemory(turns))


class RetrievalMemoryAgent(MemoryAgent):
    """`retrieval-memory`."""

    def __init__(self, k: int = DEFAULT_K, max_words: int = DEFAULT_MAX_WORDS) -> None:
        super().__init__(RetrievalMemory(k, max_words))
