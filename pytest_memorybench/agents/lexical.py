"""Lexical search, shared by the offline agents and the memory mechanisms: words, and BM25 kept up to date.

An agent adds to its memory after every message and searches it before every reply, so both must
be cheap at a million tokens.  A batch index (bm25s) rebuilt before every search costs seconds
per message at 120k tokens and minutes at 1M; `Bm25` keeps Okapi BM25's postings as documents
arrive (k1 = 1.5, b = 0.75, idf = ln(1 + (N − df + 0.5) / (df + 0.5)), as Lucene and bm25s
compute it), so adding is constant time and a search touches only the postings of the query's
words.  Scores carry BM25's (k1 + 1) factor, which Lucene leaves out; rankings and ratios between
scores are the same.  The offline `recall` agent and the mechanisms' lexical index both search
with it.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np
from bm25s.stopwords import STOPWORDS_EN

K1 = 1.5
B = 0.75
_WORD = re.compile(r"[a-z0-9]+")
# bm25s's English list holds articles and prepositions only; conversation is full of pronouns and
# question words that would otherwise make every "my ..." statement match every "my ..." question.
STOPWORDS = frozenset(STOPWORDS_EN) | {
    "i", "me", "my", "mine", "you", "your", "yours", "we", "our", "us", "he", "she", "him", "her",
    "his", "they", "them", "their", "what", "which", "who", "whom", "whose", "when", "where", "why",
    "how", "do", "does", "did", "am", "have", "has", "had", "can", "could", "would", "should",
}  # fmt: skip


def terms(text: str) -> list[str]:
    """The words BM25 matches on: lower case, letters and digits, stopwords left out (repeats kept)."""
    return [word for word in _WORD.findall(text.lower()) if word not in STOPWORDS]


class Bm25:
    """Okapi BM25 over documents given as their words, kept up to date as documents arrive."""

    def __init__(self) -> None:
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)  # word -> (id, count)
        self._lengths: list[int] = []

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, words: Sequence[str]) -> int:
        """Index a document by its words; its id (ids count from 0 in the order added)."""
        document = len(self._lengths)
        for word, count in Counter(words).items():
            self._postings[word].append((document, count))
        self._lengths.append(len(words))
        return document

    def idf(self, word: str) -> float:
        """How rare `word` is among the documents."""
        found = len(self._postings.get(word, ()))
        return math.log(1 + (len(self._lengths) - found + 0.5) / (found + 0.5))

    def scores(self, words: Sequence[str]) -> np.ndarray:
        """Every document's BM25 score for a query of `words` (0 where it holds none of them).

        A word the query repeats counts as often as it occurs, as in Lucene and bm25s; words are
        summed in the query's order, so equal scores come out equal whatever the hash seed.
        """
        scores = np.zeros(len(self._lengths))
        if not self._lengths:
            return scores
        lengths = np.asarray(self._lengths, dtype=float)
        average = max(float(lengths.mean()), 1.0)
        for word, repeats in Counter(words).items():
            postings = self._postings.get(word)
            if not postings:
                continue
            ids = np.fromiter((doc for doc, _ in postings), dtype=int, count=len(postings))
            counts = np.fromiter((count for _, count in postings), dtype=float, count=len(postings))
            saturation = counts * (K1 + 1) / (counts + K1 * (1 - B + B * lengths[ids] / average))
            scores[ids] += repeats * self.idf(word) * saturation
        return scores
