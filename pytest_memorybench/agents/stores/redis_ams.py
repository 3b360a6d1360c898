"""`redis-ams`: Redis's Agent Memory Server through its official client, a namespace per conversation.

    redis-ams(url=http://localhost:8000):openai:gpt-4o-mini   a server you run (its token, if it
                                                              wants one, in REDIS_AMS_API_KEY)
    redis-ams(profile=vendor,url=…):openai:…                  as Redis's own harness runs its memory

Each conversation is an Agent Memory Server namespace, and its user id too: the server's search
falls back, when its filters find nothing, to a search without the namespace (api.py, its
"soft-filter fallback"), which would reach other conversations' memories; the user id is a filter
that fallback keeps.  Each `add`, one session of the benchmark's history, is one working-memory
session (`PUT /v1/working-memory/{id}`), each message with its simulated time as `created_at` and
its text after one speaker label (`Message.labelled`), the session's date said first in a system
message: the server's extraction prompt prints no message's time, only "Current date and time" as
today's, so a date it is to resolve "yesterday" against must be in the text (Redis's harness sends
its memory the conversation's date as a first event the same way).  The server extracts long-term
memories from a session in the background, after the session has been quiet for its debounce (30 s
by default), then marks the session's messages extracted and indexes the memories; `wait` polls each
session until every message is marked, then the namespace's memory count until it has not changed
for `stable` seconds (Redis's harness waits for a stable count), however long that takes within
`--mb-timeout`.  Search is the server's long-term search (semantic, with its recency re-ranking as
the server does it by default) filtered to the namespace and user; each memory is a hit dated by
the session it came from (the server dates a memory by when it extracted it, today), with the
event's date where the extraction resolved one to another day (`about`).  `stored()` lists the
namespace's memories (a search without text lists them); `clear` deletes them and the working
memory.  The server's version (its OpenAPI document's) is recorded with the run.  The server
extracts with its own model, which the run does not see.  Tested with agent-memory-client 0.14.0
against a loopback server of the endpoints it calls (tests/support/redis_ams_server.py), not against
the server itself (it needs Python 3.12 and a Redis with vector search, which this machine lacks).
"""

from __future__ import annotations

import asyncio
import os
import re
import time
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import positive, require
from pytest_memorybench.agents.stores.dates import in_utc, naive_utc
from pytest_memorybench.agents.stores.hosted import Unprocessed, refused, require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

KEY_VARIABLE = "REDIS_AMS_API_KEY"
LOCAL = "http://localhost:8000"  # the server's own default port (`agent-memory api`)
PAGE = 100  # the most one search returns (SearchRequest.limit, le=100)
_EXTRACTED = "t"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class RedisAmsSettings:
    """The server's URL, how often `wait` asks, and how long the namespace's memory count must stay
    the same before `wait` takes the extraction as done."""

    url: str = LOCAL
    poll: float = 0.5
    stable: float = 10.0

    def __post_init__(self) -> None:
        positive(poll=self.poll)
        require(self.stable >= 0, f"stable must be 0 or more seconds, got {self.stable:g}")


class RedisAmsStore:
    """The client behind the store protocol, the sessions `wait` has to see and each session's date."""

    def __init__(self, settings: RedisAmsSettings, key: str | None, timeout: float | None) -> None:
        self.settings = settings
        self.timeout = sdk_timeout(timeout)
        self.key = key
        self.unprocessed = Unprocessed(settings.poll)
        self._settling: set[str] = set()  # namespaces whose count `wait` has to see stand still
        self._dates: dict[str, datetime] = {}  # working-memory session -> the session's time
        self._client: Any = None
        self.server_version: str | None = None

    @property
    def client(self) -> Any:
        if self._client is None:
            from agent_memory_client import MemoryAPIClient, MemoryClientConfig

            self._client = MemoryAPIClient(
                MemoryClientConfig(base_url=self.settings.url, timeout=self.timeout)
            )
            if self.key:  # the client takes no key; the server reads a bearer token
                self._client._client.headers.update({"Authorization": f"Bearer {self.key}"})
        return self._client

    async def add(self, messages: list[Message], namespace: str) -> None:
        from agent_memory_client.models import MemoryMessage, WorkingMemory

        if self.server_version is None:
            self.server_version = await self._version()
        when = messages[0].timestamp
        session = _SAFE.sub("-", f"{namespace}-{messages[0].session or ''}-{messages[0].id or 0}")
        said = [MemoryMessage(role="system", content=_dated(when), created_at=_sent(when))]
        said += [
            MemoryMessage(role=message.role, content=message.labelled(), created_at=_sent(message.timestamp))
            for message in messages
        ]
        memory = WorkingMemory(session_id=session, namespace=namespace, user_id=namespace, messages=said)
        await self._call(self.client.put_working_memory, session, memory, user_id=namespace)
        self._dates[session] = naive_utc(when) or when  # what hits are dated by, simulated as sent
        self.unprocessed.add(namespace, session)
        self._settling.add(namespace)

    async def wait(self, namespace: str) -> None:
        async def extracted(session: str) -> bool:
            memory = await self._session(session, namespace)
            return all(message.discrete_memory_extracted == _EXTRACTED for message in memory.messages)

        await self.unprocessed.await_each(namespace, extracted)
        if namespace not in self._settling:
            return
        count, since = await self._count(namespace), time.monotonic()
        while time.monotonic() - since < self.settings.stable:
            await asyncio.sleep(self.settings.poll)
            now = await self._count(namespace, count)
            if now != count:
                count, since = now, time.monotonic()
        self._settling.discard(namespace)

    async def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        return [await self._hit(memory, namespace) for memory in await self._memories(namespace, query, k)]

    async def stored(self, namespace: str) -> list[str]:
        return [memory.text for memory in await self._memories(namespace, "", None)]

    async def clear(self, namespace: str) -> None:
        self.unprocessed.forget(namespace)
        self._settling.discard(namespace)
        ids = [memory.id for memory in await self._memories(namespace, "", None)]
        for start in range(0, len(ids), PAGE):
            await self._call(self.client.delete_long_term_memories, ids[start : start + PAGE])
        sessions: list[str] = []
        while True:
            found = await self._call(
                self.client.list_sessions,
                limit=PAGE,
                offset=len(sessions),
                namespace=namespace,
                user_id=namespace,
            )
            sessions += found.sessions
            if not found.sessions or len(sessions) >= found.total:
                break
        for session in sessions:
            await self._call(
                self.client.delete_working_memory, session, namespace=namespace, user_id=namespace
            )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()

    async def _memories(self, namespace: str, text: str, limit: int | None) -> list[Any]:
        """The namespace's memories most like `text` (every one, in pages, for no text), at most `limit`."""
        found: list[Any] = []
        while limit is None or len(found) < limit:
            size = PAGE if limit is None else min(PAGE, limit - len(found))
            page = await self._page(namespace, text, size, len(found))
            found += page.memories
            if len(page.memories) < size:  # a short page is the last (`total` counts only what was read)
                break
        return found

    async def _count(self, namespace: str, known: int = 0) -> int:
        """How many memories the namespace holds, listed from just before the `known` count on (one
        call while it grows by less than a page): the server's `total` is no count of them
        (memory_vector_db.py: the results it read, at most `offset + limit`)."""
        offset = max(0, known - 1)
        while True:
            listed = len((await self._page(namespace, "", PAGE, offset)).memories)
            if not listed and offset:  # fewer than before (merged duplicates): count from the start
                offset = 0
                continue
            if listed < PAGE:
                return offset + listed
            offset += PAGE

    async def _page(self, namespace: str, text: str, limit: int, offset: int) -> Any:
        """One search of the namespace's memories, filtered by the user too (the fallback keeps it)."""
        from agent_memory_client.filters import Namespace, UserId

        return await self._call(
            self.client.search_long_term_memory,
            text=text,
            namespace=Namespace(eq=namespace),
            user_id=UserId(eq=namespace),
            limit=limit,
            offset=offset,
        )

    async def _hit(self, memory: Any, namespace: str) -> Hit:
        """A memory dated by its session; the event's date where the extraction put it on another day."""
        said = await self._session_date(memory.session_id, namespace)
        about = naive_utc(memory.event_date)
        if about is not None and said is not None and about.date() == said.date():
            about = None
        return Hit(memory.text, max(0.0, 1.0 - float(memory.dist)), said, about=about)  # the server's score

    async def _session_date(self, session: str | None, namespace: str) -> datetime | None:
        """A session's time: as this store sent it, else its working memory's first message's."""
        if not session:
            return None
        if session not in self._dates:
            from agent_memory_client import MemoryNotFoundError

            try:
                memory = await self._session(session, namespace)
            except MemoryNotFoundError:
                return None
            times = [naive_utc(message.created_at) for message in memory.messages]
            first = min((time for time in times if time is not None), default=None)
            if first is None:
                return None
            self._dates[session] = first
        return self._dates[session]

    async def _session(self, session: str, namespace: str) -> Any:
        """A working-memory session as the server keeps it.  The client calls `get_working_memory`
        deprecated for `get_or_create_working_memory`, which would make a session that is missing,
        and a missing session here is a failure to see, not an empty one to wait on."""
        warnings.filterwarnings("ignore", "get_working_memory is deprecated", DeprecationWarning)
        return await self._call(
            self.client.get_working_memory, session, user_id=namespace, namespace=namespace
        )

    async def _version(self) -> str:
        """The server's version, as its OpenAPI document gives it (the server has no version call)."""
        answer = await self._call(self.client._client.get, "/openapi.json")
        answer.raise_for_status()
        return f"agent-memory-server {answer.json()['info']['version']}"

    @staticmethod
    async def _call(method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the client; a refused token as PermissionError, which the harness does not retry."""
        import httpx
        from agent_memory_client import MemoryServerError

        try:
            return await method(*args, **kwargs)
        except MemoryServerError as exc:
            if exc.status_code in (401, 403):
                raise refused("Agent Memory Server", exc.status_code, KEY_VARIABLE) from None
            raise
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code in (401, 403):
                raise refused("Agent Memory Server", exc.response.status_code, KEY_VARIABLE) from None
            raise


def _sent(when: datetime) -> datetime:
    """A message's time as the server takes it: the server (and its client) refuse a `created_at` more
    than 300 s ahead of their clock, so a simulated time past now goes as now; the session's own
    date, in its first message's text, and the hits' dates stay the simulated ones."""
    return min(in_utc(when), datetime.now(timezone.utc))


def _dated(when: datetime) -> str:
    """The session's date as the first message says it, in the words of the server's own prompt."""
    return f"The date and time of this conversation: {in_utc(when):%A, %B %d, %Y at %I:%M %p} UTC."


def _make(settings: RedisAmsSettings, options: AgentOptions, model: AgentSpec) -> RedisAmsStore:
    require_package("redis-ams", "agent_memory_client")
    return RedisAmsStore(settings, os.environ.get(KEY_VARIABLE) or None, options.timeout)


REDIS_AMS = BuiltinStore(RedisAmsSettings, _make)
