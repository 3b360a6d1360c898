"""A memory's search index: keys added one message at a time, ranked against a query at once.

A mechanism adds to its index after every message and searches it before every reply, so both
must be cheap at a million tokens.  `bm25s`, which ranks the `recall` agent's statements, indexes
a corpus in one batch: rebuilt before every search, a 120k-token conversation costs seconds per
message and a 1M one minutes.  `LexicalIndex` keeps BM25's postings as they grow (the same
Okapi formula, k1 = 1.5, b = 0.75, and the same words as `recall`), so adding is constant time and
a search touches only the postings of the query's words.  `DenseIndex` keeps unit vectors from an
embedder in one growing matrix and ranks by cosine similarity.

Scores are similarities to rank by; `relevance` puts them in [0, 1] for mechanisms that mix them
with other signals (Generative Agents, SCM), and every id the index holds gets one.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from pytest_memorybench.agents.recall import terms

if TYPE_CHECKING:
    from pytest_memorybench.agents.memory.embedders import Embedder
    from pytest_memorybench.agents.memory.model import MemoryModel, Phase

K1 = 1.5
B = 0.75


class LexicalIndex:
    """Okapi BM25 over the keys' words, kept up to date as keys arrive."""

    def __init__(self) -> None:
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)  # word -> (id, count)
        self._lengths: list[int] = []

    def __len__(self) -> int:
        return len(self._lengths)

    async def add(self, keys: Sequence[str], phase: Phase = "write") -> list[int]:
        ids = []
        for key in keys:
            words = terms(key)
            ids.append(len(self._lengths))
            for word, count in Counter(words).items():
                self._postings[word].append((ids[-1], count))
            self._lengths.append(len(words))
        return ids

    async def scores(self, query: str, phase: Phase = "read") -> np.ndarray:
        scores = np.zeros(len(self._lengths))
        if not self._lengths:
            return scores
        lengths = np.asarray(self._lengths, dtype=float)
        average = max(float(lengths.mean()), 1.0)
        for word in set(terms(query)):
            postings = self._postings.get(word)
            if not postings:
                continue
            ids = np.fromiter((doc for doc, _ in postings), dtype=int, count=len(postings))
            counts = np.fromiter((count for _, count in postings), dtype=float, count=len(postings))
            idf = math.log(1 + (len(lengths) - len(postings) + 0.5) / (len(postings) + 0.5))
            scores[ids] += idf * counts * (K1 + 1) / (counts + K1 * (1 - B + B * lengths[ids] / average))
        return scores

    async def relevance(self, query: str, phase: Phase = "read") -> np.ndarray:
        scores = await self.scores(query, phase)
        best = float(scores.max()) if len(scores) else 0.0
        return scores / best if best > 0 else scores

    async def search(
        self, query: str, k: int, among: Sequence[int] | None = None, phase: Phase = "read"
    ) -> list[int]:
        """The ids of the `k` best keys (only those `among`, when given), best first; ties go to
        the newer key.  Keys sharing no word with the query are not returned."""
        return top(await self.scores(query, phase), k, among, positive=True)


class DenseIndex:
    """Unit vectors from an embedder, ranked by cosine similarity; embedding calls are charged to
    the memory's model in the phase they happen in."""

    def __init__(self, embedder: Embedder, model: MemoryModel) -> None:
        self.embedder = embedder
        self.model = model
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def __deepcopy__(self, memo: dict[int, object]) -> DenseIndex:
        from copy import deepcopy

        twin = DenseIndex(self.embedder, deepcopy(self.model, memo))  # the embedder is shared
        twin._vectors, twin._count = self._vectors[: self._count].copy(), self._count
        return twin

    async def add(self, keys: Sequence[str], phase: Phase = "write") -> list[int]:
        if not keys:
            return []
        vectors, spent = await self.embedder.embed(list(keys))
        self.model.charge(phase, spent)
        if self._count + len(vectors) > len(self._vectors):  # grow by doubling: adding stays cheap
            grown = np.zeros(
                (max(2 * len(self._vectors), self._count + len(vectors), 64), vectors.shape[1]),
                dtype=np.float32,
            )
            if self._count:
                grown[: self._count] = self._vectors[: self._count]
            self._vectors = grown
        self._vectors[self._count : self._count + len(vectors)] = vectors
        ids = list(range(self._count, self._count + len(vectors)))
        self._count += len(vectors)
        return ids

    async def scores(self, query: str, phase: Phase = "read") -> np.ndarray:
        if not self._count:
            return np.zeros(0)
        vector, spent = await self.embedder.embed([query])
        self.model.charge(phase, spent)
        return self._vectors[: self._count] @ vector[0]

    async def relevance(self, query: str, phase: Phase = "read") -> np.ndarray:
        return (await self.scores(query, phase) + 1.0) / 2.0  # cosine from [-1, 1] to [0, 1]

    async def search(
        self, query: str, k: int, among: Sequence[int] | None = None, phase: Phase = "read"
    ) -> list[int]:
        return top(await self.scores(query, phase), k, among)


Index = LexicalIndex | DenseIndex


def make_index(embedder: Embedder | None, model: MemoryModel) -> Index:
    return LexicalIndex() if embedder is None else DenseIndex(embedder, model)


def top(
    scores: np.ndarray, k: int, among: Sequence[int] | None = None, *, positive: bool = False
) -> list[int]:
    """The ids of the `k` highest scores, best first, newer first among equals."""
    ids = np.arange(len(scores)) if among is None else np.asarray(list(among), dtype=int)
    if not len(ids) or k <= 0:
        return []
    chosen = scores[ids]
    if positive:
        ids, chosen = ids[chosen > 0], chosen[chosen > 0]
    order = np.lexsort((-ids, -chosen))[:k]
    return [int(ids[position]) for position in order]
