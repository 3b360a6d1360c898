"""A loopback server of the Mem0 platform endpoints its client (mem0ai 2.x `MemoryClient`) calls, for
the `mem0-platform` store's tests.

    GET    /v1/ping/              the key check: {"status", "org_id", "project_id", "user_email"}
    POST   /v3/memories/add/      queue the messages: {"message", "status": "PENDING", "event_id"};
                                  with `infer: false`, stored at once: {"message", "status":
                                  "SUCCEEDED", "event_id", "results": [{"id", "data": {"memory"}}]}
    GET    /v1/event/{id}/        the event: its `status` PENDING → RUNNING → SUCCEEDED (or FAILED)
    POST   /v3/memories/search/   {"results": [{"id", "memory", "score", "metadata", "created_at", …}]},
                                  by shared words
    POST   /v3/memories/?page&page_size  list the filtered user's memories, a page at a time
    DELETE /v1/memories/?user_id  forget the user's memories: 200 {"message", "event_id"}, queued,
                                  whether or not it had any

As the platform does, an add is processed later: its event runs after `process_polls` reads of it
and its memories (here, one a message, as given) are searchable only then.  `failing` events end
FAILED and add nothing.  An add's `timestamp` (Unix seconds) backdates its memories' `created_at`
and its metadata is kept with them (docs: "timestamp" on add, "created_at" on memories).  Every
request needs `Authorization: Token KEY` (else 401); faults are injected as `tests.support.loopback`
says.  A body with a parameter the OpenAPI does not name for its endpoint, or of the wrong type, or
an observation date not in its format, is a 400, as the platform's validation answers it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from tests.support.loopback import LoopbackState, Request, serve

NOW = "2026-11-27T09:00:00Z"
_WORD = re.compile(r"[a-z0-9]+")
_EVENT = re.compile(r"^/v1/event/([^/]+)/$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# The request bodies' parameters and their JSON types, as Mem0's OpenAPI gives them (mem0ai/mem0
# docs/openapi.json, /v3/memories/add/ and /v3/memories/search/): anything else is a 400.
ADD_PARAMETERS = {
    "messages": list, "user_id": str, "agent_id": str, "run_id": str, "app_id": str, "metadata": dict,
    "expiration_date": str, "custom_instructions": str, "agent_custom_instructions": str,
    "custom_categories": list, "infer": bool, "immutable": bool, "includes": str, "excludes": str,
    "enable_graph": bool, "structured_data_schema": dict, "output_format": str, "prompt_profile_id": str,
    "temporal_reasoning": bool, "timezone": str, "observation_datetime": str, "observation_date": str,
    "timestamp": int,
}  # fmt: skip
SEARCH_PARAMETERS = {
    "query": str, "filters": dict, "show_expired": bool, "top_k": int, "threshold": (int, float),
    "rerank": bool, "reference_date": (int, float, str), "fields": list, "categories": list, "metadata": dict,
}  # fmt: skip


@dataclass
class Event:
    id: str
    user_id: str
    memories: list[str]
    failing: bool
    created_at: str = NOW
    metadata: dict[str, Any] = field(default_factory=dict)
    reads: int = 0
    stored: bool = False  # infer=false: stored when added, no event to wait for

    def status(self, process_polls: int) -> str:
        if self.stored:
            return "SUCCEEDED"
        if self.reads < process_polls:
            return "PENDING" if self.reads == 0 else "RUNNING"
        return "FAILED" if self.failing else "SUCCEEDED"


@dataclass
class Mem0PlatformServer(LoopbackState):
    key: str = "m0-test-key"
    process_polls: int = 2
    failing: bool = False
    events: dict[str, Event] = field(default_factory=dict)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Token {self.key}"

    def route(self, request: Request) -> tuple[int, Any]:
        method, path, body = request.method, request.path, request.body
        if method == "GET" and path == "/v1/ping/":
            return 200, {"status": "ok", "org_id": "org_1", "project_id": "proj_1", "user_email": None}
        if method == "POST" and path == "/v3/memories/add/":
            if not body.get("user_id") or not body.get("messages"):
                return 400, {"error": "400 Bad Request", "details": {"message": "user_id and messages"}}
            refusal = _refusal(body, ADD_PARAMETERS) or _dates(body)
            if refusal:
                return 400, {"error": "400 Bad Request", "details": {"message": refusal}}
            stamp = body.get("timestamp")
            event = Event(
                f"00000000-0000-4000-8000-{next(self._ids):012d}",
                str(body["user_id"]),
                [f"{turn['role']}: {turn['content']}" for turn in body["messages"]],
                self.failing,
                datetime.fromtimestamp(stamp, timezone.utc).isoformat() if isinstance(stamp, int) else NOW,
                dict(body.get("metadata") or {}),
                stored=body.get("infer") is False,
            )
            self.events[event.id] = event
            if event.stored:  # synchronous: the OpenAPI's `message`, `results` of `data.memory`
                return 200, {
                    "message": "Memories added",
                    "status": "SUCCEEDED",
                    "event_id": event.id,
                    "results": [
                        {"id": f"{event.id}-{n}", "data": {"memory": memory}, "event": "ADD"}
                        for n, memory in enumerate(event.memories)
                    ],
                }
            return 200, {
                "message": "Memory processing has been queued for background execution",
                "status": "PENDING",
                "event_id": event.id,
            }
        if method == "GET" and (match := _EVENT.match(path)):
            found = self.events.get(match[1])
            if found is None:
                return 404, {"detail": "Event not found"}
            found.reads += 1
            return 200, {
                "id": found.id,
                "event_type": "ADD",
                "status": found.status(self.process_polls),
                "payload": {},
                "metadata": {},
                "results": [],
                "created_at": NOW,
                "updated_at": NOW,
            }
        if method == "POST" and path == "/v3/memories/":
            user = body["filters"]["user_id"]
            memories = [
                {"id": f"{event.id}-{n}", "memory": memory, "user_id": user, "created_at": event.created_at}
                for event in self.events.values()
                if event.user_id == user and event.status(self.process_polls) == "SUCCEEDED"
                for n, memory in enumerate(event.memories)
            ]
            size = int(request.query.get("page_size", 100))
            start = (int(request.query.get("page", 1)) - 1) * size
            return 200, {"count": len(memories), "results": memories[start : start + size]}
        if method == "POST" and path == "/v3/memories/search/":
            refusal = _refusal(body, SEARCH_PARAMETERS)
            if refusal:
                return 400, {"error": "400 Bad Request", "details": {"message": refusal}}
            return 200, {"results": self._search(body)}
        if method == "DELETE" and path == "/v1/memories/":
            user = request.query.get("user_id")
            if not user:
                return 400, {"detail": "an entity filter is required"}
            self.events = {key: e for key, e in self.events.items() if e.user_id != user}
            # Queued for background execution, with its event (the OpenAPI's delete answer).
            deletion = f"00000000-0000-4000-8000-{next(self._ids):012d}"
            return 200, {"message": "Delete in progress. This may take some time.", "event_id": deletion}
        return 404, {"detail": f"no route {method} {path}"}

    def namespace(self, request: Request) -> str | None:
        body = request.body if isinstance(request.body, dict) else {}
        return body.get("user_id") or body.get("filters", {}).get("user_id") or request.query.get("user_id")

    def adds(self, request: Request) -> bool:
        return request.path == "/v3/memories/add/"

    def _search(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The processed memories of the filtered user sharing words with the query, most shared first."""
        user = body["filters"]["user_id"]
        query = set(_WORD.findall(str(body["query"]).lower()))
        scored = [
            (len(query & set(_WORD.findall(memory.lower()))) / max(len(query), 1), n, memory, event)
            for event in self.events.values()
            if event.user_id == user and event.status(self.process_polls) == "SUCCEEDED"
            for n, memory in enumerate(event.memories)
        ]
        least = (
            body.get("threshold") or 0.0
        )  # the minimum similarity a memory needs, as the platform reads it
        scored = sorted((hit for hit in scored if hit[0] > 0 and hit[0] >= least), key=lambda hit: -hit[0])
        return [
            {
                "id": f"{event.id}-{n}",
                "memory": memory,
                "score": round(score, 4),
                "user_id": user,
                "metadata": event.metadata,
                "created_at": event.created_at,
            }
            for score, n, memory, event in scored[: int(body.get("top_k") or 10)]
        ]


def _refusal(body: dict[str, Any], parameters: dict[str, Any]) -> str:
    """Why the platform's validation refuses a body: a parameter it does not take, or of a wrong type."""
    for name, value in body.items():
        if name not in parameters:
            return f"unknown parameter {name!r}"
        if value is not None and (
            isinstance(value, bool)
            and parameters[name] is not bool
            or not isinstance(value, parameters[name])
        ):
            return f"{name} has the wrong type ({type(value).__name__})"
    return ""


def _dates(body: dict[str, Any]) -> str:
    """Why an add's observation dates are refused: a date not YYYY-MM-DD, a datetime not ISO 8601."""
    day, moment = body.get("observation_date"), body.get("observation_datetime")
    if day is not None and not _DATE.match(day):
        return f"observation_date {day!r} is not YYYY-MM-DD"
    if moment is not None:
        try:
            datetime.fromisoformat(moment.replace("Z", "+00:00"))
        except ValueError:
            return f"observation_datetime {moment!r} is not an ISO 8601 datetime"
    return ""


@contextmanager
def mem0_platform_server(**options: Any) -> Iterator[Mem0PlatformServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = Mem0PlatformServer(**options)
    with serve(state):
        yield state
