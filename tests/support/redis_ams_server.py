"""A loopback server of the Agent Memory Server endpoints its client (agent-memory-client 0.14.0) calls.

    PUT    /v1/working-memory/{session}?user_id=     a session's messages (replaces the session)
    GET    /v1/working-memory/{session}?user_id=&namespace=   the session; 404 for none
    GET    /v1/working-memory/?limit=&offset=&namespace=&user_id=   the sessions' ids, a page
    DELETE /v1/working-memory/{session}?namespace=&user_id=    the session
    POST   /v1/long-term-memory/search?optimize_query=       memories like the text; none: a listing
    DELETE /v1/long-term-memory?memory_ids=…&memory_ids=…     memories by id
    GET    /openapi.json                                      the OpenAPI document (its info.version)

The rules, each from agent-memory-server 0.15.2 (`agent_memory_server/`):
  - with authentication on, a request carries `Authorization: Bearer TOKEN`, else 401 "Missing
    authorization header" (auth.py, get_current_user);
  - a PUT's body is an `UpdateWorkingMemory` (models.py): its messages `MemoryMessage`s with `role`
    and `content` required, a `created_at` at most 300 s in the future (MemoryMessage's validator),
    and no empty content (400, api.py put_working_memory_core).  The server's models ignore a field
    they do not know (pydantic's default); this server refuses one with 422, so a misspelt field
    cannot pass unseen;
  - a working-memory session is keyed by its namespace, user id and id (utils/keys.py), so a GET
    with another namespace or user finds nothing (404, api.py get_working_memory);
  - extraction runs after the session has been quiet for its debounce (long_term_memory.py,
    promote_working_memory_to_long_term, run_delayed_extraction): the memories are extracted, the
    session's messages marked `discrete_memory_extracted: "t"`, and the memories indexed with the
    session's id, namespace and user id, dated by when they were extracted (`created_at`: now), an
    episodic memory with the `event_date` the model resolved;
  - a search's `limit` is 1 to 100 and its `offset` 0 or more (SearchRequest); its filters are
    `{"eq": …}`-style tag filters (filters.py); without text it lists the memories the filters
    match (long_term_memory.search_long_term_memories); when the filters match nothing, the server
    searches again without its namespace, topics, entities, memory type and event date filters
    (api.py, the "soft-filter fallback"), a user id filter kept;
  - a search answers `MemoryRecordResults` (`memories`, each with its `dist`, and `total`), for
    which it reads `offset + limit` results from Redis: `total` is how many it read, at most
    `offset + limit`, not how many match, and `next_offset` is never set (memory_vector_db.py,
    list_memories and the vector search);
  - a deletion takes `memory_ids` as repeated query parameters and answers "ok, deleted N memories".
What stands in for the server's model and vectors: each message of a session but its system lines is
a memory, its text as said, an episodic memory of the day a message of the session names ("May 03,
2024"), else of today, as the server's prompt gives its model no other (a line that says
"yesterday", of the day before); a search ranks memories by the words they share with the
text, every memory of the filters returned (a vector search always has nearest neighbours), `dist`
1 less the share of the text's words it holds.  The session is extracted on its
`extract_reads`th read (the debounce passing while the client polls); `index_reads` makes its
memories appear one a listing after that, as a server still indexing them.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from tests.support.loopback import LoopbackState, Request, serve

VERSION = "0.15.2"
WORKING = "/v1/working-memory/"
_WORD = re.compile(r"[a-z0-9]+")
_DATE = re.compile(
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{2}, \d{4}"
)
_MESSAGE_FIELDS = {"role", "content", "id", "created_at", "persisted_at", "discrete_memory_extracted"}
_WORKING_FIELDS = {
    "messages", "memories", "data", "context", "user_id", "tokens", "namespace", "long_term_memory_strategy",
    "ttl_seconds", "last_accessed", "created_at", "updated_at",
    "session_id",  # the client sends it; UpdateWorkingMemory takes the URL's
}  # fmt: skip
_SEARCH_FIELDS = {
    "text", "search_mode", "hybrid_alpha", "text_scorer", "session_id", "namespace", "topics", "entities",
    "created_at", "last_accessed", "user_id", "distance_threshold", "memory_type", "event_date", "limit",
    "offset", "recency_boost", "recency_semantic_weight", "recency_recency_weight",
    "recency_freshness_weight", "recency_novelty_weight", "recency_half_life_last_access_days",
    "recency_half_life_created_days", "server_side_recency",
}  # fmt: skip
_TAG_KEYS = {"eq", "ne", "any", "all"}
_FUTURE = timedelta(seconds=300)
_RELAXED = ("namespace", "topics", "entities", "memory_type", "event_date")  # the fallback drops these


@dataclass
class Session:
    body: dict[str, Any]
    reads: int = 0
    extracted: bool = False


@dataclass
class RedisAmsServer(LoopbackState):
    key: str = "ams-test-token"
    extract_reads: int = 2  # reads of a session before it is extracted
    index_reads: int = 0  # listings after extraction before each next memory appears
    sessions: dict[tuple[str, str, str], Session] = field(default_factory=dict)  # (namespace, user, id)
    memories: list[dict[str, Any]] = field(default_factory=list)  # the index
    indexing: list[dict[str, Any]] = field(default_factory=list)  # extracted, not yet searchable
    listings: int = 0
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def authorised(self, request: Request) -> bool:
        return not self.key or request.headers.get("authorization") == f"Bearer {self.key}"

    def error(self, title: str, message: str) -> Any:
        return {"detail": "Missing authorization header" if title == "Unauthorized" else message}

    def namespace(self, request: Request) -> str | None:
        body = request.body if isinstance(request.body, dict) else {}
        found = body.get("namespace") or request.query.get("namespace")
        return str(found["eq"] if isinstance(found, dict) else found) if found else None

    def adds(self, request: Request) -> bool:
        return request.method == "PUT" and request.path.startswith(WORKING)

    def route(self, request: Request) -> tuple[int, Any]:
        method, path = request.method, request.path
        if method == "GET" and path == "/openapi.json":
            return 200, {
                "openapi": "3.1.0",
                "info": {"title": "Redis Agent Memory Server", "version": VERSION},
            }
        if path == WORKING and method == "GET":
            return self._sessions(request.query)
        if path.startswith(WORKING) and path != WORKING:
            session = path.removeprefix(WORKING)
            if method == "PUT":
                return self._put(session, request.query, request.body)
            key = (request.query.get("namespace", ""), request.query.get("user_id", ""), session)
            if method == "GET":
                return self._get(key)
            if method == "DELETE":
                self.sessions.pop(key, None)
                return 200, {"status": "ok"}
        if method == "POST" and path == "/v1/long-term-memory/search":
            return self._search(request.body)
        if method == "DELETE" and path == "/v1/long-term-memory":
            gone = set(request.repeated.get("memory_ids", []))
            before = len(self.memories)
            self.memories = [memory for memory in self.memories if memory["id"] not in gone]
            return 200, {"status": f"ok, deleted {before - len(self.memories)} memories"}
        return 404, {"detail": "Not Found"}

    def _put(self, session: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        unknown = set(body) - _WORKING_FIELDS
        for message in body.get("messages", []):
            unknown |= set(message) - _MESSAGE_FIELDS
        if unknown:
            return 422, {"detail": f"unknown fields {sorted(unknown)} (the server would ignore them)"}
        for message in body.get("messages", []):
            if not isinstance(message.get("role"), str) or not isinstance(message.get("content"), str):
                return 422, {
                    "detail": [{"loc": ["body", "messages"], "msg": "role and content are required"}]
                }
            if not message["content"].strip():
                return 400, {"detail": f"Message content cannot be empty (message ID: {message.get('id')})"}
            said = _time(message.get("created_at"))
            if said is not None and said > datetime.now(timezone.utc) + _FUTURE:
                return 422, {"detail": "created_at cannot be more than 300 seconds in the future"}
        user = query.get("user_id") or body.get("user_id") or ""
        key = (body.get("namespace") or "", user, session)
        self.sessions[key] = Session(body)  # PUT replaces the session
        return 200, {**body, "session_id": session, "user_id": user or None, "new_session": None}

    def _get(self, key: tuple[str, str, str]) -> tuple[int, Any]:
        found = self.sessions.get(key)
        if found is None:
            return 404, {"detail": f"Session {key[2]} not found"}
        found.reads += 1
        if not found.extracted and found.reads >= self.extract_reads:
            self._extract(key, found)
        flag = "t" if found.extracted else "f"
        messages = [
            {**message, "discrete_memory_extracted": flag} for message in found.body.get("messages", [])
        ]
        return 200, {**found.body, "messages": messages, "session_id": key[2]}

    def _extract(self, key: tuple[str, str, str], session: Session) -> None:
        session.extracted = True
        namespace, user, session_id = key
        now = datetime.now(timezone.utc).isoformat()
        messages = session.body.get("messages", [])
        # The model sees the messages' texts and today's date, never a message's time: the day it
        # resolves against is one a text names (a "Month DD, YYYY"), else today.
        named = [_DATE.search(m["content"]) for m in messages]
        found = next((match[0] for match in named if match), None)
        today = datetime.strptime(found, "%B %d, %Y") if found else datetime.now(timezone.utc)
        for message in messages:
            if message["role"] == "system":
                continue
            day = today - timedelta(days=1) if "yesterday" in message["content"].lower() else today
            self.indexing.append(
                {
                    "id": f"01AMS{next(self._ids):021d}",
                    "text": message["content"],
                    "session_id": session_id,
                    "user_id": user or None,
                    "namespace": namespace or None,
                    "last_accessed": now,
                    "created_at": now,
                    "updated_at": now,
                    "topics": [],
                    "entities": [],
                    "discrete_memory_extracted": "t",
                    "memory_type": "episodic",
                    "persisted_at": now,
                    "event_date": day.replace(tzinfo=timezone.utc).isoformat(),
                }
            )
        if not self.index_reads:
            self.memories += self.indexing
            self.indexing = []

    def _sessions(self, query: dict[str, str]) -> tuple[int, Any]:
        ids = [
            session
            for (namespace, user, session) in self.sessions
            if query.get("namespace") in (None, namespace) and query.get("user_id") in (None, user)
        ]
        limit, offset = int(query.get("limit", 20)), int(query.get("offset", 0))
        return 200, {"sessions": ids[offset : offset + limit], "total": len(ids)}

    def _search(self, body: dict[str, Any]) -> tuple[int, Any]:
        unknown = set(body) - _SEARCH_FIELDS
        if unknown:
            return 422, {"detail": f"unknown fields {sorted(unknown)} (the server would ignore them)"}
        limit, offset = body.get("limit", 10), body.get("offset", 0)
        if not isinstance(limit, int) or not 1 <= limit <= 100 or not isinstance(offset, int) or offset < 0:
            return 422, {"detail": "limit must be 1 to 100 and offset 0 or more"}
        filters = {name: body[name] for name in ("namespace", "user_id", "session_id") if body.get(name)}
        if any(not isinstance(f, dict) or not set(f) <= _TAG_KEYS for f in filters.values()):
            return 422, {"detail": "a tag filter takes eq, ne, any or all"}
        self._index_step()
        text = str(body.get("text") or "")
        found = self._matching(filters)
        if not found and any(name in filters for name in _RELAXED):
            found = self._matching({k: v for k, v in filters.items() if k not in _RELAXED})
        asked = set(_WORD.findall(text.lower()))
        results = []
        for memory in found:
            shared = len(asked & set(_WORD.findall(memory["text"].lower())))
            results.append({**memory, "dist": 1.0 - shared / len(asked) if asked else 0.0})
        if asked:
            results.sort(key=lambda memory: memory["dist"])
        # Redis is asked for `offset + limit` results: `total` counts those, `next_offset` never follows.
        read = results[: offset + limit]
        return 200, {"memories": read[offset:], "total": len(read), "next_offset": None}

    def _index_step(self) -> None:
        """Each listing after the extraction, one more of its memories searchable (`index_reads`)."""
        if not self.indexing:
            return
        self.listings += 1
        if self.listings >= self.index_reads:
            self.memories.append(self.indexing.pop(0))
            self.listings = 0

    def _matching(self, filters: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        def keeps(memory: dict[str, Any], name: str, tag: dict[str, Any]) -> bool:
            value = memory.get(name)
            if "eq" in tag:
                return bool(value == tag["eq"])
            if "ne" in tag:
                return bool(value != tag["ne"])
            return value in tag.get("any", tag.get("all", []))

        return [m for m in self.memories if all(keeps(m, name, tag) for name, tag in filters.items())]


def _time(text: object) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


@contextmanager
def redis_ams_server(**options: Any) -> Iterator[RedisAmsServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = RedisAmsServer(**options)
    with serve(state):
        yield state
