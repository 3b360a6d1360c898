"""A loopback server of the Zep (v4 API) endpoints its SDK (zep-cloud 4.x) calls, for the `zep` store's
tests; the SDK's base URL is this server's `url` + `/api/v4`.

    POST   /users                         make a user: {"uuid", "user_id", "graph_uuid", …}
    DELETE /users/{uuid}                  delete it, with its threads and graph: {"task"}
    POST   /threads                       make a thread of a user: {"uuid", "user_uuid", …}
    POST   /threads/{uuid}/messages       add messages: {"messages", "task": {"uuid", "status"}}
    GET    /tasks/{uuid}                  the task: pending → processing → succeeded (or failed)
    POST   /graphs/{uuid}/search/{scope}  edges, nodes or episodes of the user graph, by shared words

As Zep does, the graph is built after the messages are accepted: a task finishes after
`process_polls` reads of it, and only then are its messages in the graph, each message one fact
(an edge, valid from the message's reference time), one entity (a node) and one episode.
`failing` tasks end `failed` and add nothing.  Every request needs `Authorization: Api-Key KEY`
(else 401); faults are injected as `tests.support.loopback` says.

As strict as the service where the harness could go wrong (each rule from Zep's docs or its own
ingestion tool, getzep/zep ingestion/src/zep_ingest): an add of more than 30 messages, a message
over 4,096 characters, without its sender's `name` or with a `reference_time` without a timezone
offset is a 400, and so is a search with a reranker the SDK does not name; a repeated
`Idempotency-Key` is answered as the first time and stores nothing again.  A fact named in
`superseded` (its text → when it stopped holding) comes back with `invalid_at` and `expired_at`.
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

NOW = "2026-11-27T09:00:00Z"
PREFIX = "/api/v4"
# The rerankers a graph search takes (zep-cloud 4.0.1, graph/types/search_edges_request_reranker.py).
RERANKERS = ("rrf", "mmr", "node_distance", "episode_mentions", "cross_encoder")
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Task:
    uuid: str
    user: str
    messages: list[dict[str, Any]]
    failing: bool
    partial: bool = False
    reads: int = 0

    def status(self, process_polls: int) -> str:
        if self.reads < process_polls:
            return "pending" if self.reads == 0 else "processing"
        return "failed" if self.failing else "partial" if self.partial else "succeeded"

    def shape(self, process_polls: int) -> dict[str, Any]:
        status = self.status(process_polls)
        failed = (
            {"error": {"message": "extraction failed", "code": "EXTRACTION"}}
            if status in ("failed", "partial")
            else {}
        )
        return {"uuid": self.uuid, "type": "add_messages", "status": status, "created_at": NOW, **failed}


@dataclass
class ZepServer(LoopbackState):
    key: str = "zep-test-key"
    process_polls: int = 2
    failing: bool = False
    partial: bool = False  # tasks end `partial`: some of the messages' graph was built (task.get's statuses)
    users: dict[str, str] = field(default_factory=dict)  # uuid → user_id
    owners: dict[str, str] = field(default_factory=dict)  # a user's or thread's uuid → user_id, kept
    threads: dict[str, str] = field(default_factory=dict)  # uuid → user uuid
    tasks: dict[str, Task] = field(default_factory=dict)
    superseded: dict[str, str] = field(default_factory=dict)
    answered: dict[str, Any] = field(default_factory=dict)  # Idempotency-Key → the first answer
    _ids: Iterator[int] = field(default_factory=itertools.count)

    @property
    def base_url(self) -> str:
        return self.url + PREFIX

    def authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Api-Key {self.key}"

    def error(self, title: str, message: str) -> Any:
        """Zep's `ApiError` body, which its SDK parses: {"error": {"code", "message"}}."""
        return {"error": {"code": title.lower().replace(" ", "_"), "message": message}}

    def route(self, request: Request) -> tuple[int, Any]:
        method, body = request.method, request.body
        parts = request.path.removeprefix(PREFIX).strip("/").split("/")
        if method == "POST" and parts == ["users"]:
            uuid = self._uuid()
            self.users[uuid] = self.owners[uuid] = str(body.get("user_id") or uuid)
            return 201, {"uuid": uuid, "user_id": self.users[uuid], "graph_uuid": uuid, "created_at": NOW}
        if method == "DELETE" and parts[0] == "users" and len(parts) == 2:
            if self.users.pop(parts[1], None) is None:
                return 404, {"message": "user not found"}
            self.tasks = {key: task for key, task in self.tasks.items() if task.user != parts[1]}
            return 200, {"task": {"uuid": self._uuid(), "type": "delete_user", "status": "pending"}}
        if method == "POST" and parts == ["threads"]:
            if body.get("user_uuid") not in self.users:
                return 404, {"message": "user not found"}
            uuid = self._uuid()
            self.threads[uuid] = body["user_uuid"]
            self.owners[uuid] = self.users[body["user_uuid"]]
            return 201, {"uuid": uuid, "user_uuid": body["user_uuid"], "created_at": NOW}
        if method == "POST" and parts[0] == "threads" and parts[2:] == ["messages"]:
            user = self.threads.get(parts[1])
            if user is None:
                return 404, {"message": "thread not found"}
            key = request.headers.get("idempotency-key", "")
            if key in self.answered:
                return 202, self.answered[key]
            refusal = _refusal(body["messages"])
            if refusal:
                return 400, self.error("Bad Request", refusal)
            task = Task(self._uuid(), user, list(body["messages"]), self.failing, self.partial)
            self.tasks[task.uuid] = task
            added = [{**message, "uuid": self._uuid(), "created_at": NOW} for message in task.messages]
            self.answered[key] = {"messages": added, "task": task.shape(self.process_polls)}
            return 202, self.answered[key]
        if method == "GET" and parts[0] == "tasks" and len(parts) == 2:
            found = self.tasks.get(parts[1])
            if found is None:
                return 404, {"message": "task not found"}
            found.reads += 1
            return 200, found.shape(self.process_polls)
        if method == "POST" and parts[0] == "graphs" and parts[2:3] == ["search"]:
            if request.body.get("reranker", "rrf") not in RERANKERS:
                return 400, self.error("Bad Request", f"unknown reranker {request.body['reranker']!r}")
            return 200, self._search(parts[1], parts[3], request)
        return 404, {"message": f"no route {method} {request.path}"}

    def namespace(self, request: Request) -> str | None:
        parts = request.path.removeprefix(PREFIX).strip("/").split("/")
        if parts == ["users"] and isinstance(request.body, dict):
            return request.body.get("user_id")
        return self.owners.get(parts[1]) if len(parts) > 1 else None

    def adds(self, request: Request) -> bool:
        return request.method == "POST" and request.path.endswith("/messages")

    def _search(self, user: str, scope: str, request: Request) -> dict[str, Any]:
        """The processed messages of the user sharing words with the query, most shared first, in the
        shape of the scope's items."""
        query = set(_WORD.findall(str(request.body["query"]).lower()))
        scored = []
        for task in self.tasks.values():
            if task.user != user or task.status(self.process_polls) != "succeeded":
                continue
            for message in task.messages:
                shared = len(query & set(_WORD.findall(str(message["content"]).lower())))
                if shared:
                    scored.append((shared / max(len(query), 1), message))
        scored.sort(key=lambda hit: -hit[0])
        items = [
            self._item(scope, score, message)
            for score, message in scored[: int(request.query.get("page_size", 10))]
        ]
        return {"items": items, "next_cursor": None, "total_size": len(items)}

    def _item(self, scope: str, score: float, message: dict[str, Any]) -> dict[str, Any]:
        when = message.get("reference_time")
        common = {"uuid": self._uuid(), "score": round(score, 4), "created_at": NOW}
        if scope == "edges":
            ended = self.superseded.get(message["content"])
            return {
                **common,
                "fact": message["content"],
                "name": "SAID",
                "valid_at": when,
                "invalid_at": ended,
                "expired_at": ended,
            }
        if scope == "nodes":
            return {
                **common,
                "name": message.get("role", "user"),
                "summary": message["content"],
                "episode_uuids": [],
                "episode_uuids_truncated": False,
            }
        return {**common, "content": message["content"], "role": message.get("role"), "reference_time": when}

    def _uuid(self) -> str:
        return f"00000000-0000-4000-9000-{next(self._ids):012d}"


def _refusal(messages: list[dict[str, Any]]) -> str:
    """Why Zep refuses an add, if it does."""
    if len(messages) > 30:
        return f"at most 30 messages a call, got {len(messages)}"
    for message in messages:
        if not message.get("name"):  # its ingestion tool requires the sender's name (threads.py)
            return "each message needs the name of its sender"
        if len(message["content"]) > 4096:
            return f"message content is {len(message['content'])} characters, over the 4096 limit"
        when = message.get("reference_time")
        if when and datetime.fromisoformat(when.replace("Z", "+00:00")).tzinfo is None:
            return f"reference_time {when} must include a timezone offset"
    return ""


@contextmanager
def zep_server(**options: Any) -> Iterator[ZepServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = ZepServer(**options)
    with serve(state):
        yield state
