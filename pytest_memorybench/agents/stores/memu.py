"""`memu`: NevaMind's memU memory engine (memu-py 1.5.1) in process, a memU user per conversation.

    memu:openai:gpt-4o-mini                  extraction by gpt-4o-mini, OpenAI's embeddings
    memu:openai:NAME@URL                     both on a compatible server
    memu(memory_types=profile+event+knowledge):openai:NAME@URL --mb-embedder openai:nomic-embed-text@URL2

memu-py 1.x is memU's self-hosted engine (`memu.app.MemoryService`), not the client of memU's cloud
that the 0.x releases were (`MemuClient.memorize_conversation`, `retrieve_related_memory_items`, as
MemOS's evaluation drives it): that cloud API is not in the pinned release.  The engine runs here in
memory (`inmemory` metadata store, brute-force vectors), one engine per namespace, whose memU user
it is (`user={"user_id": namespace}`, searches `where={"user_id": namespace}`): memU 1.5.1 makes its
categories once per engine, for the first user it memorizes, so engines shared by conversations
would file every later conversation's items under the first one's categories.  Each `add`, one
session of the benchmark's history, is one `memorize` of a conversation resource: the session's
messages as memU's conversation JSON (`role`, `content`, `created_at`: memU prints each message's
`created_at` before it in what its extraction reads; a named speaker opens its text, `Name: …`,
as memU prints only the role), written to a file of its own in the engine's resources folder.
memU then extracts memory items of its `memory_types` (its default profile and
event) with its chat model, files them under its categories and rewrites their summaries.  Its
items carry the wall clock's `created_at`, so each hit is dated by the session whose resource it
came from.  `memorize` returns once the items are stored: nothing is left to wait for.  Search is
memU's `retrieve` with its `rag` method on items alone, the harness's question as the query (no
rewriting, no sufficiency checks: the harness owns the query and k), top k items by cosine
similarity.  `stored()` is `list_memory_items`; `clear` is `clear_memory` of the user, and drops
its engine.  Its chat model
and embedder are the MODEL_SPEC's (`--mb-embedder openai:MODEL@URL` names another embedder); memU's
own LLM interceptor counts their tokens as the store's writes and reads.  memu-py 1.5.1 requires
Python 3.13 (its wheels are built for glibc 2.39 and later).  Tested with memu-py 1.5.1 on the test
suite's scripted model server.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.mechanisms.settings import require
from pytest_memorybench.agents.stores.dates import iso_utc
from pytest_memorybench.agents.stores.endpoints import Endpoint, openai_endpoints
from pytest_memorybench.agents.stores.hosted import require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.records import Message, Usage

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

CONVERSATION = "conversation"  # memU's modality for a chat transcript
_MEMORY_TYPES = ("profile", "event", "knowledge", "behavior", "skill", "tool")  # memu.database.models
_EMBEDDING = "embedding"  # memU's profile name for the embedder
NEEDS_PYTHON = (3, 13)  # memu-py 1.5.1's Requires-Python


@dataclass(frozen=True)
class MemUSettings:
    """The memory types memU extracts (`+`-separated; memU's default `profile+event`).  Items are
    ranked by memU's default, cosine similarity: its other ranking (`salience`) weights them by
    recency on the wall clock's `created_at`, not the benchmark's time."""

    memory_types: str = "profile+event"

    def __post_init__(self) -> None:
        unknown = [kind for kind in self.types if kind not in _MEMORY_TYPES]
        require(
            bool(self.types) and not unknown,
            f"memory_types takes {'+'.join(_MEMORY_TYPES)} joined by +, got {self.memory_types!r}",
        )

    @property
    def types(self) -> list[str]:
        return [kind for kind in self.memory_types.split("+") if kind]


class MemUStore:
    """A memU `MemoryService` in memory per namespace, made on its first add; `usage` is what their
    model calls cost."""

    def __init__(self, settings: MemUSettings, llm: Endpoint, embedder: Endpoint) -> None:
        self.settings = settings
        self.llm = llm
        self.embedder = embedder
        self.usage = Usage()
        self._services: dict[str, Any] = {}
        self._folder = tempfile.TemporaryDirectory(prefix="memorybench-memu-")
        self._dates: dict[str, datetime] = {}  # resource id -> the time of the session it holds
        self._lock = threading.Lock()
        self._resources = 0

    async def add(self, messages: list[Message], namespace: str) -> None:
        """One session, one conversation resource memorized, each message dated."""
        conversation = [
            {"role": message.role, "content": _content(message), "created_at": iso_utc(message.timestamp)}
            for message in messages
        ]
        with self._lock:
            self._resources += 1
            path = Path(self._folder.name) / f"session-{self._resources}.json"
        path.write_text(json.dumps(conversation, ensure_ascii=False), encoding="utf-8")
        answer = await self._memu(namespace).memorize(
            resource_url=str(path), modality=CONVERSATION, user={"user_id": namespace}
        )
        for resource in answer.get("resources") or [answer.get("resource") or {}]:
            if resource.get("id"):
                self._dates[str(resource["id"])] = messages[0].timestamp

    async def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        service = self._services.get(namespace)
        if service is None:
            return []
        service.retrieve_config.item.top_k = k  # the harness's k; read when the items are recalled
        found = await service.retrieve(
            queries=[{"role": "user", "content": {"text": query}}], where={"user_id": namespace}
        )
        return [
            Hit(item["summary"], item.get("score"), self._dates.get(str(item.get("resource_id"))))
            for item in found.get("items") or []
            if item.get("summary")
        ]

    async def stored(self, namespace: str) -> list[str]:
        service = self._services.get(namespace)
        if service is None:
            return []
        listed = await service.list_memory_items(where={"user_id": namespace})
        return [item["summary"] for item in listed.get("items") or [] if item.get("summary")]

    async def clear(self, namespace: str) -> None:
        service = self._services.pop(namespace, None)
        if service is not None:
            await service.clear_memory(where={"user_id": namespace})

    def close(self) -> None:
        self._folder.cleanup()

    def _memu(self, namespace: str) -> Any:
        if namespace not in self._services:
            from memu.app import MemoryService

            service = MemoryService(
                llm_profiles={"default": _profile(self.llm), _EMBEDDING: _profile(self.embedder)},
                blob_config={"resources_dir": self._folder.name},
                database_config={"metadata_store": {"provider": "inmemory"}},
                memorize_config={"memory_types": self.settings.types},
                retrieve_config={
                    "method": "rag",
                    "route_intention": False,
                    "sufficiency_check": False,
                    "category": {"enabled": False},
                    "resource": {"enabled": False},
                    "item": {"enabled": True, "ranking": "similarity"},
                },
            )
            service.intercept_after_llm_call(self._count, name="memorybench-usage")
            self._services[namespace] = service
        return self._services[namespace]

    def _count(self, _call: Any, _request: Any, _response: Any, usage: Any) -> None:
        """memU's own account of a model call's tokens (an embedding reports no output)."""
        self.usage.add(Usage(int(usage.input_tokens or 0), int(usage.output_tokens or 0), calls=1))


def _content(message: Message) -> str:
    """A message's text, with its speaker's name where the benchmark names one (memU prints only
    the role, `[user]`, and its extraction attributes what it reads to "the user")."""
    return message.labelled() if message.speaker else message.text


def _profile(endpoint: Endpoint) -> dict[str, Any]:
    """A memU LLM profile through OpenAI's SDK (memU chats with its `default` profile and embeds
    with its `embedding` one); OpenAI's own key where the endpoint is OpenAI's."""
    return {
        "client_backend": "sdk",
        "base_url": endpoint.base_url or "https://api.openai.com/v1",
        "api_key": endpoint.api_key or os.environ.get("OPENAI_API_KEY", ""),
        "chat_model": endpoint.model,
        "embed_model": endpoint.model,
    }


def _make(settings: MemUSettings, options: AgentOptions, model: AgentSpec) -> MemUStore:
    if sys.version_info < NEEDS_PYTHON:  # the extra installs nothing there: say why, not "install it"
        raise usage_error(
            f"--agent memu:…: memU's engine (memu-py 1.5.1) needs Python {'.'.join(map(str, NEEDS_PYTHON))}"
            f" or later and this is Python {sys.version_info.major}.{sys.version_info.minor}; run the"
            " benchmark from a newer Python's environment with pip install 'pytest-memorybench[memu]'"
        )
    require_package("memu", "memu.app")
    llm, embedder = openai_endpoints("memu", "memU", model, options)
    return MemUStore(settings, llm, embedder)


MEMU = BuiltinStore(MemUSettings, _make)
