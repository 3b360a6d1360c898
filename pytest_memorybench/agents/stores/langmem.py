"""`langmem`: LangChain's LangMem memory manager in process, over LangGraph's in-memory `BaseStore`.

    langmem:openai:gpt-4o-mini                      extraction by gpt-4o-mini, OpenAI's embeddings
    langmem:openai:NAME@URL                         both on a compatible server
    langmem(query_limit=10):openai:NAME@URL --mb-embedder openai:nomic-embed-text@URL2

LangMem keeps no store of its own: its `create_memory_store_manager` reads and writes memories in a
LangGraph `BaseStore`, here LangGraph's `InMemoryStore` with a vector index (LangMem's documented
setup), one per store object.  A namespace is LangMem's `("memories", "{langgraph_user_id}")` with
the harness's namespace as the user id.  Each `add`, one session of the benchmark's history, is one
`ainvoke` of the manager: it searches the store for the memories the session touches (its
`query_limit` best, LangMem's default 5), and its chat model inserts, updates and deletes memories
with tool calls (LangMem's `Memory` schema, a `content` each).  LangMem has no time of its own (its
items carry the wall clock's `created_at`), so the session's date goes in as the first message of
what the manager reads ("These messages were said on …"), and each memory a session wrote or last
changed is dated by that session in the hits.  Search is the store's vector search in the
namespace, `limit` = k.  Its chat model and embedder are the MODEL_SPEC's (`--mb-embedder
openai:MODEL@URL` names another embedder), on one HTTP client that counts their tokens as the
store's writes and reads.  Tested with langmem 0.0.30 (langgraph 1.2, langchain-openai 1.7) on the
test suite's scripted model server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.mechanisms.settings import positive
from pytest_memorybench.agents.stores.dates import SAID_ON
from pytest_memorybench.agents.stores.endpoints import Endpoint, count_usage, openai_endpoints
from pytest_memorybench.agents.stores.hosted import require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.records import Message, Usage

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

MEMORIES = "memories"  # LangMem's default namespace: ("memories", "{langgraph_user_id}")
LIST_ALL = 1_000_000  # a listing's limit when every memory is wanted


@dataclass(frozen=True)
class LangMemSettings:
    """How many stored memories the manager reconsiders with each session (`query_limit`, LangMem's
    5), and whether it may delete memories (`deletes`, LangMem's default for a store manager)."""

    query_limit: int = 5
    deletes: bool = True

    def __post_init__(self) -> None:
        positive(query_limit=self.query_limit)


class LangMemStore:
    """A LangMem store manager over an `InMemoryStore`; the models made on first use, in the loop
    that uses them.  `usage` is what its chat and embedding calls cost."""

    def __init__(self, settings: LangMemSettings, llm: Endpoint, embedder: Endpoint) -> None:
        self.settings = settings
        self.llm = llm
        self.embedder = embedder
        self.usage = Usage()
        self._made: tuple[Any, Any] | None = None  # (the manager, the store)
        self._http: Any = None
        self._embeds: Any = None
        self._dates: dict[tuple[str, str], datetime] = {}  # (namespace, key) -> the session that wrote it
        self._lock = asyncio.Lock()

    async def add(self, messages: list[Message], namespace: str) -> None:
        """One session, one `ainvoke` of the manager, its date the first thing the manager reads."""
        manager, _ = await self._manager()
        when = messages[0].timestamp
        said = [{"role": "system", "content": SAID_ON.format(date=f"{when:%Y-%m-%d %H:%M}")}]
        turns = said + [{"role": message.role, "content": message.text} for message in messages]
        config = {"configurable": {"langgraph_user_id": namespace}}
        async with self._lock:  # the manager reads the store, then writes: one session at a time
            written = await manager.ainvoke({"messages": turns}, config=config)
        for put in written:
            self._dates[(namespace, str(put["key"]))] = when

    async def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        _, store = await self._manager()
        found = await store.asearch((MEMORIES, namespace), query=query, limit=k)
        return [
            Hit(_content(item.value), item.score, self._dates.get((namespace, item.key)))
            for item in found
            if _content(item.value)
        ]

    async def stored(self, namespace: str) -> list[str]:
        _, store = await self._manager()
        found = await store.asearch((MEMORIES, namespace), limit=LIST_ALL)
        return [text for item in found if (text := _content(item.value))]

    async def clear(self, namespace: str) -> None:
        _, store = await self._manager()
        for item in await store.asearch((MEMORIES, namespace), limit=LIST_ALL):
            await store.adelete(item.namespace, item.key)
        self._dates = {key: when for key, when in self._dates.items() if key[0] != namespace}

    async def aclose(self) -> None:
        if self._embeds is not None:
            await self._embeds.close()
        if self._http is not None:
            await self._http.aclose()

    async def _manager(self) -> tuple[Any, Any]:
        if self._made is None:
            import openai
            from langchain_openai import ChatOpenAI
            from langgraph.store.base import IndexConfig
            from langgraph.store.memory import InMemoryStore
            from langmem import create_memory_store_manager
            from pydantic import SecretStr

            self._http = openai.DefaultAsyncHttpxClient(timeout=600, event_hooks={"response": [self._count]})
            self._embeds = openai.AsyncOpenAI(
                api_key=self.embedder.api_key, base_url=self.embedder.base_url, http_client=self._http
            )
            size = len(await self._embed(["size"]))
            index: IndexConfig = {"dims": size, "embed": self._embed}
            store = InMemoryStore(index=index)
            model = ChatOpenAI(
                model=self.llm.model,
                base_url=self.llm.base_url,
                api_key=SecretStr(self.llm.api_key) if self.llm.api_key else None,
                http_async_client=self._http,
            )
            manager = create_memory_store_manager(
                model,
                namespace=(MEMORIES, "{langgraph_user_id}"),
                store=store,
                query_limit=self.settings.query_limit,
                enable_deletes=self.settings.deletes,
            )
            self._made = (manager, store)
        return self._made

    async def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        """LangGraph's index embeds through this (an async `embed` function, which it accepts as
        such); a server that returns a vector a token (llama.cpp serving a chat model) is pooled."""
        from pytest_memorybench.agents.mechanisms.embedders import pooled

        response = await self._embeds.embeddings.create(model=self.embedder.model, input=list(texts))
        rows = sorted(response.data, key=lambda item: item.index)
        return [[float(x) for x in pooled(item.embedding)] for item in rows]

    async def _count(self, response: Any) -> None:
        await count_usage(self.usage, response)


def _content(value: Any) -> str:
    """A memory's text: LangMem keeps `{"kind": "Memory", "content": {"content": text}}`."""
    content = value.get("content") if isinstance(value, dict) else None
    if isinstance(content, dict):
        content = content.get("content")
    return content if isinstance(content, str) else ""


def _make(settings: LangMemSettings, options: AgentOptions, model: AgentSpec) -> LangMemStore:
    for package in ("langmem", "langchain_openai"):
        require_package("langmem", package)
    llm, embedder = openai_endpoints("langmem", "LangMem", model, options)
    return LangMemStore(settings, llm, embedder)


LANGMEM = BuiltinStore(LangMemSettings, _make)
