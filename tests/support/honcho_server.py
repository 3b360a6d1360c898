"""A loopback server of the Honcho endpoints its SDK (honcho-ai 2.7.0, API v3) calls, for the `honcho` tests.

    POST   /v3/workspaces                                   get or create a workspace {"id"}
    DELETE /v3/workspaces/{ws}                              the workspace and all it holds; 404 for none
    POST   /v3/workspaces/{ws}/peers                        get or create a peer {"id"}
    POST   /v3/workspaces/{ws}/sessions                     get or create a session {"id"}
    POST   /v3/workspaces/{ws}/sessions/{s}/messages        {"messages": [...]}: the messages as stored
    GET    /v3/workspaces/{ws}/queue/status                 the background work left
    POST   /v3/workspaces/{ws}/search                       messages most like the query, `limit` at most
    POST   /v3/workspaces/{ws}/peers/{peer}/chat            the dialectic's answer {"content"}

The rules, each from the SDK (honcho/api_types.py, honcho/http/routes.py, honcho/peer.py):
  - a request carries `Authorization: Bearer KEY` (the SDK's client sends its key so), else 401;
  - a message is `MessageCreateParams` (`content`, `peer_id`, `metadata`, `configuration`,
    `created_at`; extra fields forbidden): another field is refused with 422, as is a `peer_id`
    that is no peer of the workspace;
  - answers are `WorkspaceResponse`, `PeerResponse`, `SessionResponse`, `MessageResponse` and
    `QueueStatusResponse` with their required fields;
  - a search's `limit` is 1 to 100 (honcho/client.py `search`), a chat's `query` 1 to 10,000
    characters (api_types.py `DialecticParams`).
What stands in for Honcho's models: each message added is one unit of background work, all of it
done `process_polls` status reads after the last add; the chat answers, from what the queue has
processed, with the user's message sharing most words with the question (Honcho: its dialectic
agent over the peer's representation), and nothing when none shares a word.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback import LoopbackState, Request, serve

PREFIX = "/v3/workspaces"
NOW = "2026-11-27T09:00:00Z"
_WORD = re.compile(r"[a-z0-9]+")
_MESSAGE_FIELDS = {"content", "peer_id", "metadata", "configuration", "created_at"}


@dataclass
class Workspace:
    peers: set[str] = field(default_factory=set)
    sessions: set[str] = field(default_factory=set)
    messages: list[dict[str, Any]] = field(default_factory=list)
    processed: int = 0  # messages the background queue has worked through
    reads: int = 0  # queue reads since the last add


@dataclass
class HonchoServer(LoopbackState):
    key: str = "honcho-test-key"
    process_polls: int = 1  # queue reads a message's work takes
    workspaces: dict[str, Workspace] = field(default_factory=dict)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.key}"

    def namespace(self, request: Request) -> str | None:
        parts = request.path.removeprefix(PREFIX).strip("/").split("/")
        return parts[0] if request.path.startswith(PREFIX + "/") and parts[0] else None

    def adds(self, request: Request) -> bool:
        return request.method == "POST" and request.path.endswith("/messages")

    def error(self, title: str, message: str) -> Any:
        return {"detail": message}

    def route(self, request: Request) -> tuple[int, Any]:
        if request.path == PREFIX and request.method == "POST":
            workspace_id = str(request.body["id"])
            self.workspaces.setdefault(workspace_id, Workspace())
            return 200, {"id": workspace_id, "metadata": {}, "configuration": {}, "created_at": NOW}
        workspace_id, *rest = request.path.removeprefix(PREFIX + "/").split("/")
        workspace = self.workspaces.get(workspace_id)
        if workspace is None:
            return 404, {"detail": f"Workspace {workspace_id} not found"}
        method, body = request.method, request.body
        if method == "DELETE" and not rest:
            del self.workspaces[workspace_id]
            return 202, None
        if method == "POST" and rest == ["peers"]:
            workspace.peers.add(str(body["id"]))
            peer = {"id": body["id"], "workspace_id": workspace_id, "created_at": NOW, "metadata": {}}
            return 200, {**peer, "configuration": {}}
        if method == "POST" and rest == ["sessions"]:
            workspace.sessions.add(str(body["id"]))
            session = {"id": body["id"], "is_active": True, "workspace_id": workspace_id, "metadata": {}}
            return 200, {**session, "configuration": {}, "created_at": NOW}
        if method == "POST" and len(rest) == 3 and rest[0] == "sessions" and rest[2] == "messages":
            return self._add(workspace_id, workspace, rest[1], body["messages"])
        if method == "GET" and rest == ["queue", "status"]:
            return 200, self._status(workspace)
        if method == "POST" and rest == ["search"]:
            limit = int(body.get("limit") or 10)
            if not 1 <= limit <= 100:
                return 422, {"detail": "limit must be between 1 and 100"}
            return 200, self._ranked(workspace.messages, str(body["query"]))[:limit]
        if method == "POST" and len(rest) == 3 and rest[0] == "peers" and rest[2] == "chat":
            query = str(body.get("query") or "")
            if not 1 <= len(query) <= 10_000:
                return 422, {"detail": "query must be 1 to 10,000 characters"}
            said = [m for m in workspace.messages[: workspace.processed] if m["peer_id"] == rest[1]]
            best = self._ranked(said, query)[:1]
            return 200, {"content": best[0]["content"] if best else None}
        return 404, {"detail": f"no route {method} {request.path}"}

    def _add(
        self, workspace_id: str, workspace: Workspace, session: str, messages: list[dict[str, Any]]
    ) -> tuple[int, Any]:
        if session not in workspace.sessions:
            return 404, {"detail": f"Session {session} not found"}
        for message in messages:
            if set(message) - _MESSAGE_FIELDS or message.get("peer_id") not in workspace.peers:
                return 422, {"detail": f"invalid message: {sorted(set(message) - _MESSAGE_FIELDS)}"}
        stored = [
            {
                "id": f"msg-{next(self._ids)}",
                "content": message["content"],
                "peer_id": message["peer_id"],
                "session_id": session,
                "metadata": message.get("metadata") or {},
                "created_at": message.get("created_at") or NOW,
                "workspace_id": workspace_id,
                "token_count": len(message["content"].split()),
            }
            for message in messages
        ]
        workspace.messages.extend(stored)
        workspace.reads = 0
        return 200, stored

    def _status(self, workspace: Workspace) -> dict[str, Any]:
        workspace.reads += 1
        if workspace.reads >= self.process_polls:
            workspace.processed = len(workspace.messages)
        pending = len(workspace.messages) - workspace.processed
        return {
            "total_work_units": len(workspace.messages),
            "completed_work_units": workspace.processed,
            "in_progress_work_units": 1 if pending else 0,
            "pending_work_units": max(0, pending - 1),
        }

    @staticmethod
    def _ranked(messages: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
        asked = set(_WORD.findall(query.lower()))

        def shared(message: dict[str, Any]) -> int:
            return len(asked & set(_WORD.findall(message["content"].lower())))

        return sorted((m for m in messages if shared(m)), key=lambda m: -shared(m))


@contextmanager
def honcho_server(**options: Any) -> Iterator[HonchoServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = HonchoServer(**options)
    with serve(state):
        yield state
