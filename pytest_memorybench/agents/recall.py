"""`recall`: the extractive retrieval baseline.

It remembers every statement it has seen (questions excluded: they carry no facts and would match
the same question asked again), ranks them with BM25 against each question, and answers with the
best match.  Memory systems usually let the newest fact win, so among statements scoring within
`RECENCY_BAND` of the best it picks the most recent.  No model is involved: the scores it gets
show how far plain lexical retrieval goes on a scenario, between `null` and `oracle`.
"""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Sequence

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN

from pytest_memorybench.agents.null import ABSTENTION
from pytest_memorybench.agents.oracle import ACKNOWLEDGEMENT
from pytest_memorybench.records import Message

logging.getLogger("bm25s").setLevel(logging.WARNING)  # its per-index DEBUG lines clutter reports

RECENCY_BAND = 0.8
_WORD = re.compile(r"[a-z0-9]+")
# bm25s's English list holds articles and prepositions only; conversation is full of pronouns and
# question words that would otherwise make every "my ..." statement match every "my ..." question.
_STOPWORDS = frozenset(STOPWORDS_EN) | {
    "i", "me", "my", "mine", "you", "your", "yours", "we", "our", "us", "he", "she", "him", "her",
    "his", "they", "them", "their", "what", "which", "who", "whom", "whose", "when", "where", "why",
    "how", "do", "does", "did", "am", "have", "has", "had", "can", "could", "would", "should",
}  # fmt: skip


def _terms(text: str) -> list[str]:
    return [word for word in _WORD.findall(text.lower()) if word not in _STOPWORDS]


def _is_question(text: str) -> bool:
    return "?" in text


class RecallAgent:
    def __init__(self) -> None:
        self._memory: list[str] = []
        self._index: bm25s.BM25 | None = None
        self._indexed = 0

    async def reply(self, message: Message) -> str:
        if not _is_question(message.text):
            self._remember(message.text)
            return ACKNOWLEDGEMENT
        best = self._ranked(message.text, 1)
        return best[0] if best else ABSTENTION

    async def observe(self, messages: Sequence[Message]) -> None:
        for message in messages:
            if not _is_question(message.text):
                self._remember(message.text)

    async def retrieve(self, query: str, k: int) -> list[str]:
        return self._ranked(query, k)

    async def reset(self) -> None:
        self.__init__()  # type: ignore[misc]

    async def fork(self) -> RecallAgent:
        return copy.deepcopy(self)

    def _remember(self, text: str) -> None:
        if _terms(text):
            self._memory.append(text)

    def _ranked(self, query: str, k: int) -> list[str]:
        """Top-k statements by BM25; within the recency band of the best, newer ranks first."""
        terms = _terms(query)
        if not terms or not self._memory:
            return []
        scores = self._bm25().get_scores(terms)
        best = float(np.max(scores))
        if best <= 0.0:
            return []
        in_band = scores >= RECENCY_BAND * best
        position = np.arange(len(scores))
        # Sort key: statements in the band first (newest first), then the rest by score.
        order = sorted(
            (int(i) for i in np.flatnonzero(scores > 0)),
            key=lambda i: (not in_band[i], -position[i] if in_band[i] else -scores[i]),
        )
        return [self._memory[i] for i in order[:k]]

    def _bm25(self) -> bm25s.BM25:
        if self._index is None or self._indexed != len(self._memory):
            index = bm25s.BM25()
            index.index([_terms(text) for text in self._memory], show_progress=False)
            self._index, self._indexed = index, len(self._memory)
        return self._index
