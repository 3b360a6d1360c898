"""A loopback server of the EverMemOS endpoints its client (evermemos 0.3.13) calls, for its tests.

    POST   /api/v0/memories                      one message to memorize; answered with a request id
    GET    /api/v0/status/request?request_id=    that request's processing status
    GET    /api/v0/memories/search?query=&group_id=&…   the memories most like the query
    GET    /api/v0/memories?group_id=&memory_type=&limit=&offset=   a page of a group's memories
    DELETE /api/v0/memories                      the memories matching the body's filters

The rules, each from the client's generated models (evermemos/types/v0, 0.3.13) or, where the
client leaves it open, from EverMemOS's own server (EverMind-AI/EverMemOS, src/ at 0e1b002):
  - a request carries `Authorization: Bearer KEY` (the client's `auth_headers`), else 401;
  - an add's body is `MemoryAddParams`: `content`, `create_time`, `message_id` and `sender`
    required, the other fields the model's (memory_add_params.py): a missing one is refused with
    400, an unknown one with 422; `create_time` must carry its zone ("ISO 8601 format with Timezone
    is required");
  - an add answers `MemoryAddResponse` (`message`, `request_id`, `status`) with 202: the request
    runs in the background (memory_add_response.py; EverMemBench's adapter on the 202);
  - a request's status is `RequestGetResponse` (`success`, `found`, `data`), its `data.status`
    `start`, then `success` or `failed` (the server's api/dto/status_dto.py);
  - messages accumulate in their group until a boundary: a message with `flush` (the model's
    "force boundary trigger") ends an episode of the messages before it and itself, once its
    request succeeded;
  - a search takes the server's `RetrieveMemRequest` fields (memory_controller.py's search):
    one of `user_id` / `group_id` required (400), `retrieve_method` keyword, vector, hybrid, rrf or
    agentic, `top_k` at most 100, `memory_types` of episodic_memory, foresight and event_log (in a
    query, comma-separated: api_specs/request_converter.py); an
    unknown field is refused with 422; it answers `MemorySearchResponse`, its memories the
    `ResultMemoryEpisodeMemory` / `ResultMemoryEventLog` models (memory_search_response.py), or
    grouped by group (`grouped`, as the open-source server answers: a list of {group_id: [...]});
  - a listing answers `MemoryGetResponse` (`memories`, `count`, `total_count`), at most 100 a page.
What stands in for EverMemOS's models: an episode is its messages' lines (`sender: content`), dated
by its first message; each message is also an event log's atomic fact.  A search ranks memories by
the words they share with the query (EverMemOS: BM25, vectors, their fusion, or an LLM's rounds).
`failing` makes the next requests fail.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tests.support.loopback import LoopbackState, Request, serve

MEMORIES, SEARCH, STATUS = "/api/v0/memories", "/api/v0/memories/search", "/api/v0/status/request"
_WORD = re.compile(r"[a-z0-9]+")
_REQUIRED = {"content", "create_time", "message_id", "sender"}
_ADD_FIELDS = _REQUIRED | {"flush", "group_id", "group_name", "refer_list", "role", "sender_name"}
_SEARCH_FIELDS = {
    "query", "user_id", "group_id", "retrieve_method", "top_k", "memory_types", "radius", "start_time",
    "end_time", "include_metadata",
}  # fmt: skip
_METHODS = {"keyword", "vector", "hybrid", "rrf", "agentic"}
_SEARCHABLE = {"episodic_memory", "foresight", "event_log"}
MOST = 100


@dataclass
class Pending:
    """A request in the background: its group, the messages it ends an episode of (when flushed)."""

    group: str
    episode: list[dict[str, Any]] | None
    polls: int = 0
    failed: bool = False


@dataclass
class EverMemOSServer(LoopbackState):
    key: str = "em-test-key"
    process_polls: int = 1  # status reads before a request succeeds
    failing: bool = False  # requests from now on fail
    grouped: bool = False  # search answers memories grouped by group, as the open-source server
    accumulated: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # group -> its messages
    memories: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # group -> its memories
    pending: dict[str, Pending] = field(default_factory=dict)
    message_ids: list[str] = field(default_factory=list)  # every message id received, in order
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.key}"

    def namespace(self, request: Request) -> str | None:
        body = request.body if isinstance(request.body, dict) else {}
        found = body.get("group_id") or request.query.get("group_id")
        return str(found) if found else None

    def adds(self, request: Request) -> bool:
        return request.method == "POST" and request.path == MEMORIES

    def error(self, title: str, message: str) -> Any:
        return {"status": "failed", "message": message}

    def route(self, request: Request) -> tuple[int, Any]:
        body = request.body if isinstance(request.body, dict) else {}
        if request.method == "POST" and request.path == MEMORIES:
            return self._add(body)
        if request.method == "GET" and request.path == STATUS:
            return self._status(request.query.get("request_id", ""))
        if request.method == "GET" and request.path == SEARCH:
            return self._search({**request.query, **body})
        if request.method == "GET" and request.path == MEMORIES:
            return self._list(request.query)
        if request.method == "DELETE" and request.path == MEMORIES:
            group = str(body.get("group_id") or "")
            count = len(self.memories.pop(group, [])) + len(self.accumulated.pop(group, []))
            return 200, {
                "status": "ok",
                "message": "deleted",
                "result": {"count": count, "filters": ["group_id"]},
            }
        return 404, {"status": "failed", "message": f"no route {request.method} {request.path}"}

    def _add(self, body: dict[str, Any]) -> tuple[int, Any]:
        missing, unknown = _REQUIRED - set(body), set(body) - _ADD_FIELDS
        if missing:
            return 400, {"status": "failed", "message": f"Required field {sorted(missing)[0]} is missing"}
        if unknown:
            return 422, {"status": "failed", "message": f"unknown fields {sorted(unknown)}"}
        when = datetime.fromisoformat(str(body["create_time"]).replace("Z", "+00:00"))
        if when.tzinfo is None:
            return 400, {"status": "failed", "message": "create_time must carry its timezone"}
        group = str(body.get("group_id") or f"{body['sender']}__group")
        self.message_ids.append(str(body["message_id"]))
        line = {
            "text": f"{body['sender']}: {body['content']}",
            "sender": body["sender"],
            "time": when.isoformat(),
            "message_id": body["message_id"],
        }
        self.accumulated.setdefault(group, []).append(line)
        episode = self.accumulated.pop(group) if body.get("flush") else None
        request_id = f"req-{next(self._ids)}"
        self.pending[request_id] = Pending(group, episode, failed=self.failing)
        message = "Request accepted, processing in background"
        return 202, {"message": message, "request_id": request_id, "status": "queued"}

    def _status(self, request_id: str) -> tuple[int, Any]:
        pending = self.pending.get(request_id)
        if pending is None:
            return 200, {
                "success": True,
                "found": False,
                "data": None,
                "message": "Request status does not exist",
            }
        pending.polls += 1
        status = "start"
        if pending.polls >= self.process_polls:
            status = "failed" if pending.failed else "success"
            if status == "success" and pending.episode:
                self.memories.setdefault(pending.group, []).extend(
                    self._extract(pending.group, pending.episode)
                )
                pending.episode = None
        data: dict[str, Any] = {"request_id": request_id, "status": status, "url": MEMORIES, "method": "POST"}
        if status == "failed":
            data["error_message"] = "memory extraction failed (injected)"
        return 200, {"success": True, "found": True, "data": data, "message": None}

    def _extract(self, group: str, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        episode_id = f"ep-{next(self._ids)}"
        common = {"user_id": lines[0]["sender"], "group_id": group, "type": "Conversation"}
        episode = {
            **common,
            "id": episode_id,
            "episode_id": episode_id,
            "memory_type": "episodic_memory",
            "timestamp": lines[0]["time"],
            "episode": "\n".join(line["text"] for line in lines),
            "participants": sorted({line["sender"] for line in lines}),
        }
        facts = [
            {
                **common,
                "id": f"ev-{next(self._ids)}",
                "memory_type": "event_log",
                "timestamp": line["time"],
                "atomic_fact": line["text"],
                "parent_id": episode_id,
                "parent_type": "memcell",
            }
            for line in lines
        ]
        return [episode, *facts]

    def _search(self, asked: dict[str, Any]) -> tuple[int, Any]:
        unknown = set(asked) - _SEARCH_FIELDS
        if unknown:
            return 422, {"status": "failed", "message": f"unknown fields {sorted(unknown)}"}
        if not asked.get("user_id") and not asked.get("group_id"):
            return 400, {"status": "failed", "message": "at least one of user_id/group_id is required"}
        method, top_k = asked.get("retrieve_method", "keyword"), int(asked.get("top_k", 10))
        kinds = str(asked.get("memory_types") or "episodic_memory").split(",")  # request_converter.py
        if method not in _METHODS or not 1 <= top_k <= MOST or not set(kinds) <= _SEARCHABLE:
            return 400, {"status": "failed", "message": f"invalid search: {method}, {top_k}, {kinds}"}
        words = set(_WORD.findall(str(asked.get("query") or "").lower()))
        scored = []
        for memory in self.memories.get(str(asked.get("group_id")), []):
            if memory["memory_type"] in kinds:
                shared = len(words & set(_WORD.findall(_text(memory).lower())))
                if shared:
                    scored.append({**memory, "score": shared / max(1, len(words))})
        found = sorted(scored, key=lambda memory: -memory["score"])[:top_k]
        memories: list[Any] = [{str(asked.get("group_id")): found}] if self.grouped and found else found
        result = {"memories": memories, "total_count": len(found), "pending_messages": []}
        return 200, {"status": "ok", "message": "Memory search successful", "result": result}

    def _list(self, query: dict[str, str]) -> tuple[int, Any]:
        kind = query.get("memory_type", "episodic_memory")
        limit, offset = min(int(query.get("limit", 10)), MOST), int(query.get("offset", 0))
        every = [m for m in self.memories.get(query.get("group_id", ""), []) if m["memory_type"] == kind]
        page = every[offset : offset + limit]
        result = {"memories": page, "count": len(page), "total_count": len(every)}
        return 200, {"status": "ok", "message": "Memory fetch successful", "result": result}


def _text(memory: dict[str, Any]) -> str:
    return str(memory.get("episode") or memory.get("atomic_fact") or "")


@contextmanager
def evermemos_server(**options: Any) -> Iterator[EverMemOSServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = EverMemOSServer(**options)
    with serve(state):
        yield state
