"""The stores every comparison needs beside a product: `bm25`, `dense`, `none` and `gold`.

`bm25` and `dense` are the baselines the comparison harnesses ship (a product is never compared
with nothing): each message is one memory, ranked by BM25 over its words or by cosine similarity
under `--mb-embedder`, in the same indexes the memory mechanisms use.  `none` finds nothing: the
no-memory control, which shows what the answering model knows, or guesses, without any memory.
`gold` finds, for each question, exactly the messages the benchmark labels as its evidence: the
answering model's ceiling, what it can do with perfect memory in the same prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.evidence_match import holds
from pytest_memorybench.agents.mechanisms.embedders import Embedder, make_embedder
from pytest_memorybench.agents.mechanisms.index import DenseIndex, Index, LexicalIndex
from pytest_memorybench.agents.mechanisms.model import Phase
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.records import Message, Usage

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec


@dataclass
class _Namespace:
    index: Index
    messages: list[Message] = field(default_factory=list)


class IndexStore:
    """Each message a memory in a namespace's own index; search returns the k best, best first.

    Keeps `usage`: embedding calls (a dense index's), which the harness counts as the store's."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder
        self.usage = Usage()
        self._namespaces: dict[str, _Namespace] = {}

    def charge(self, phase: Phase, spent: Usage) -> None:
        self.usage.add(spent)

    def _space(self, namespace: str) -> _Namespace:
        if namespace not in self._namespaces:
            index: Index = LexicalIndex() if self.embedder is None else DenseIndex(self.embedder, self)
            self._namespaces[namespace] = _Namespace(index)
        return self._namespaces[namespace]

    async def add(self, messages: list[Message], namespace: str) -> None:
        space = self._space(namespace)
        await space.index.add([message.text for message in messages])
        space.messages.extend(messages)

    async def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        space = self._namespaces.get(namespace)
        if space is None:
            return []
        found = await space.index.search(query, k)
        return [
            Hit(f"{space.messages[i].role}: {space.messages[i].text}", None, space.messages[i].timestamp)
            for i in found
        ]

    async def stored(self, namespace: str) -> list[str]:
        space = self._namespaces.get(namespace)
        return [f"{message.role}: {message.text}" for message in space.messages] if space else []

    async def clear(self, namespace: str) -> None:
        self._namespaces.pop(namespace, None)

    async def aclose(self) -> None:
        close = getattr(self.embedder, "aclose", None)
        if close is not None:
            await close()


class NoStore:
    """Remembers nothing: the answering model alone."""

    def add(self, messages: list[Message], namespace: str) -> None:
        return None

    def search(self, query: str, namespace: str, k: int) -> list[str]:
        return []

    def clear(self, namespace: str) -> None:
        return None


class GoldStore:
    """Remembers every message; a question's search returns exactly the ones that hold its labelled
    evidence (`conversation/evidence.py`'s match), in the order they were said.

    The harness tells it each question's evidence before asking (`prime_evidence`), by question, so
    probes asked at once on forks of one conversation each find their own."""

    keeps_every_message = False  # its search holds a question's evidence, not everything it heard

    def __init__(self) -> None:
        self._messages: dict[str, list[Message]] = {}
        self._evidence: dict[tuple[str, str], list[str]] = {}

    def prime_evidence(self, namespace: str, question: str, evidence: list[str]) -> None:
        self._evidence[(namespace, question)] = list(evidence)

    async def add(self, messages: list[Message], namespace: str) -> None:
        self._messages.setdefault(namespace, []).extend(messages)

    async def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        evidence = self._evidence.get((namespace, query), [])
        return [
            Hit(f"{message.role}: {message.text}", None, message.timestamp)
            for message in self._messages.get(namespace, [])
            if any(holds(f"{message.role}: {message.text}", piece) for piece in evidence)
        ]

    async def stored(self, namespace: str) -> list[str]:
        return [f"{message.role}: {message.text}" for message in self._messages.get(namespace, [])]

    async def clear(self, namespace: str) -> None:
        self._messages.pop(namespace, None)
        self._evidence = {key: value for key, value in self._evidence.items() if key[0] != namespace}


@dataclass(frozen=True)
class NoSettings:
    """The store has no settings of its own: `--mb-k` and `--mb-embedder` are the run's."""


def _dense(settings: NoSettings, options: AgentOptions, model: AgentSpec) -> IndexStore:
    if options.embedder is None or options.embedder.kind == "lexical":
        raise usage_error(
            "--agent dense:…: the dense store ranks with an embedder; give --mb-embedder wordllama or"
            " --mb-embedder openai:MODEL@URL (bm25: the lexical store)"
        )
    return IndexStore(make_embedder(options.embedder))


def _bm25(settings: NoSettings, options: AgentOptions, model: AgentSpec) -> IndexStore:
    return IndexStore()


def _none(settings: NoSettings, options: AgentOptions, model: AgentSpec) -> Any:
    return NoStore()


def _gold(settings: NoSettings, options: AgentOptions, model: AgentSpec) -> GoldStore:
    return GoldStore()


BM25 = BuiltinStore(NoSettings, _bm25)
DENSE = BuiltinStore(NoSettings, _dense)
NONE = BuiltinStore(NoSettings, _none)
GOLD = BuiltinStore(NoSettings, _gold)
