"""A memory's search index: keys added one message at a time, ranked against a query at once.

A mechanism adds to its index after every message and searches it before every reply, so both
must be cheap at a million tokens.  `LexicalIndex` ranks with the BM25 kept up to date of
`agents/lexical.py` (the offline `recall` agent's, with the same words); `DenseIndex` keeps unit
vectors from an embedder in one growing matrix and ranks by cosine similarity.

Scores are similarities to rank by; `relevance` puts them in [0, 1] for mechanisms that mix them
with other signals (Generative Agents, SCM), and every id the index holds gets one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from pytest_memorybench.agents.lexical import Bm25, terms

if TYPE_CHECKING:
    from pytest_memorybench.agents.mechanisms.embedders import Embedder
    from pytest_memorybench.agents.mechanisms.model import MemoryModel, Phase
    from pytest_memorybench.core.records import Usage


class Meter(Protocol):
    """Where an index's embedding calls are charged: a memory's model, or a store's own usage."""

    def charge(self, phase: Phase, spent: Usage) -> None: ...


class LexicalIndex:
    """BM25 over the keys' words, kept up to date as keys arrive; no model calls, so no phase is charged."""

    def __init__(self) -> None:
        self._bm25 = Bm25()

    def __len__(self) -> int:
        return len(self._bm25)

    async def add(self, keys: Sequence[str], phase: Phase = "write") -> list[int]:
        return [self._bm25.add(terms(key)) for key in keys]

    async def scores(self, query: str, phase: Phase = "read") -> np.ndarray:
        return self._bm25.scores(terms(query))

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

    def __init__(self, embedder: Embedder, model: Meter) -> None:
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
        similarities: np.ndarray = self._vectors[: self._count] @ vector[0]
        return similarities

    async def relevance(self, query: str, phase: Phase = "read") -> np.ndarray:
        return (await self.scores(query, phase) + 1.0) / 2.0  # cosine from [-1, 1] to [0, 1]

    async def search(
        self, query: str, k: int, among: Sequence[int] | None = None, phase: Phase = "read"
    ) -> list[int]:
        return top(await self.scores(query, phase), k, among)


Index = LexicalIndex | DenseIndex


def make_index(embedder: Embedder | None, model: MemoryModel) -> Index:
    """The index a mechanism searches: BM25 when the run ranks lexically, else dense over the embedder."""
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


def normalised(values: np.ndarray, flat: float = 0.0) -> np.ndarray:
    """Min–max to [0, 1], so signals of different ranges weigh alike; values all equal become `flat`."""
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.full(len(values), flat)
