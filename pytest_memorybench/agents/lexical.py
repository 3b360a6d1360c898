"""Lexical search, shared by the offline agents and the memory mechanisms: words, and BM25 kept up to date.

An agent adds to its memory after every message and searches it before every reply, and a probe
forks it once for every question, so all three must be cheap at a million tokens.  A batch index
(bm25s) rebuilt before every search costs seconds per message at 120k tokens and minutes at 1M,
and a deep copy per fork makes a run's cost grow with the square of its conversation.  `Bm25`
keeps Okapi BM25's postings as documents arrive (k1 = 1.5, b = 0.75,
idf = ln(1 + (N − df + 0.5) / (df + 0.5)), as Lucene and bm25s compute it): adding costs the
document's words, a search the postings of the query's words, and a fork nothing, because a fork
reads its parent's postings below the point it forked at and keeps what it adds for itself.
Scores carry BM25's (k1 + 1) factor, which Lucene leaves out; rankings and ratios between scores
are the same.  The offline `recall` agent and the mechanisms' lexical index both search with it.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Generic, TypeVar

from pytest_memorybench.core.heavy import heavy_import

if TYPE_CHECKING:
    import numpy as np

K1 = 1.5
B = 0.75
_WORD = re.compile(r"[a-z0-9]+")
# bm25s's English list holds articles and prepositions only; conversation is full of pronouns and
# question words that would otherwise make every "my ..." statement match every "my ..." question.
_CONVERSATIONAL = {
    "i", "me", "my", "mine", "you", "your", "yours", "we", "our", "us", "he", "she", "him", "her",
    "his", "they", "them", "their", "what", "which", "who", "whom", "whose", "when", "where", "why",
    "how", "do", "does", "did", "am", "have", "has", "had", "can", "could", "would", "should",
}  # fmt: skip


@cache
def stopwords() -> frozenset[str]:
    """bm25s's English stopwords and ours; bm25s (and the scipy.sparse it imports) loads on first use."""
    return frozenset(heavy_import("bm25s.stopwords").STOPWORDS_EN) | _CONVERSATIONAL


def terms(text: str) -> list[str]:
    """The words BM25 matches on: lower case, letters and digits, stopwords left out (repeats kept)."""
    skip = stopwords()
    return [word for word in _WORD.findall(text.lower()) if word not in skip]


Item = TypeVar("Item")


class Growing(Generic[Item]):
    """A list that only grows, forked at no cost: a fork reads its parent's first items (those it had
    when forked, whatever the parent adds later) and appends to a list of its own."""

    def __init__(self, parent: Growing[Item] | None = None) -> None:
        self._parent = parent
        self._shared = len(parent) if parent is not None else 0
        self._own: list[Item] = []

    def __len__(self) -> int:
        return self._shared + len(self._own)

    def __getitem__(self, position: int) -> Item:
        if position < self._shared:
            assert self._parent is not None
            return self._parent[position]
        return self._own[position - self._shared]

    def append(self, item: Item) -> None:
        self._own.append(item)

    def fork(self) -> Growing[Item]:
        return Growing(self)


class Bm25:
    """Okapi BM25 over documents given as their words, kept up to date as documents arrive."""

    def __init__(self, parent: Bm25 | None = None) -> None:
        self._parent = parent
        self._shared = len(parent) if parent is not None else 0  # documents read through the parent
        self._postings: dict[str, list[tuple[int, int]]] = {}  # word -> (id, count), ids ascending
        self._lengths: Growing[int] = Growing(parent._lengths) if parent is not None else Growing()
        self._total: int = parent._total if parent is not None else 0  # the documents' summed lengths

    def __len__(self) -> int:
        return len(self._lengths)

    def fork(self) -> Bm25:
        """An index holding what this one holds now; what either adds later, the other never sees."""
        return Bm25(self)

    def add(self, words: Sequence[str]) -> int:
        """Index a document by its words; its id (ids count from 0 in the order added)."""
        document = len(self._lengths)
        for word, count in Counter(words).items():
            self._postings.setdefault(word, []).append((document, count))
        self._lengths.append(len(words))
        self._total += len(words)
        return document

    def _postings_below(self, word: str, end: int) -> list[tuple[int, int]]:
        """(id, count) of the documents [0, end) holding `word`, ids ascending."""
        found = self._parent._postings_below(word, min(end, self._shared)) if self._parent is not None else []
        own = self._postings.get(word, [])
        if own and own[-1][0] >= end:  # a parent's postings hold documents its fork never saw
            own = own[: bisect_left(own, (end,))]
        return found + own if found else own

    def idf(self, word: str) -> float:
        """How rare `word` is among the documents."""
        found = len(self._postings_below(word, len(self)))
        return math.log(1 + (len(self) - found + 0.5) / (found + 0.5))

    def matches(self, words: Sequence[str]) -> dict[int, float]:
        """The BM25 score of every document holding one of `words`; cost: the postings of those words.

        A word the query repeats counts as often as it occurs, as in Lucene and bm25s; words are
        summed in the query's order, so equal scores come out equal whatever the hash seed.
        """
        documents = len(self)
        scores: dict[int, float] = {}
        if not documents:
            return scores
        average = max(self._total / documents, 1.0)
        for word, repeats in Counter(words).items():
            postings = self._postings_below(word, documents)
            if not postings:
                continue
            weight = repeats * math.log(1 + (documents - len(postings) + 0.5) / (len(postings) + 0.5))
            lengths = self._lengths
            for document, count in postings:
                saturation = count * (K1 + 1) / (count + K1 * (1 - B + B * lengths[document] / average))
                scores[document] = scores.get(document, 0.0) + weight * saturation
        return scores

    def scores(self, words: Sequence[str]) -> np.ndarray:
        """Every document's BM25 score for a query of `words` (0 where it holds none of them)."""
        import numpy as np  # the mechanisms' dense scores; `matches` and the recall agent need none

        scores = np.zeros(len(self))
        found = self.matches(words)
        if found:
            scores[np.fromiter(found, dtype=int, count=len(found))] = list(found.values())
        return scores
