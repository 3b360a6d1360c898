"""A loopback server of the Letta endpoints its SDK (letta-client 1.x) calls, for the `letta` store's
tests, with a scripted agent behind them.

    POST   /v1/agents/                                make an agent: {"id", "name", …}
    DELETE /v1/agents/{id}                            delete it
    POST   /v1/agents/{id}/archival-memory            insert a passage: [{"id", "text", "created_at"}]
    GET    /v1/agents/{id}/archival-memory/search     ?query&top_k: {"count", "results": [{"content",
                                                      "timestamp", …}]}, by shared words
    POST   /v1/agents/{id}/messages                   a step: {"messages", "stop_reason", "usage"}

The scripted agent keeps every message it is sent in its history and archives each user message
that is not a question (as a MemGPT agent's `archival_memory_insert` would), then replies with the
line of its history or archive that shares most words with the last message; its usage is the
words in and out.  Every request needs `Authorization: Bearer KEY` (else 401); faults are injected
as `tests.support.loopback` says.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback import LoopbackState, Request, serve

NOW = "2026-11-27T09:00:00Z"
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


@dataclass
class Agent:
    name: str
    config: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)
    archive: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class LettaServer(LoopbackState):
    key: str = "letta-test-key"
    agents: dict[str, Agent] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # every agent's id → name, kept after deletion
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.key}"

    def route(self, request: Request) -> tuple[int, Any]:
        method, body = request.method, request.body
        parts = request.path.strip("/").split("/")
        if method == "POST" and parts == ["v1", "agents"]:
            made = f"agent-{self._id()}"
            self.agents[made] = Agent(str(body.get("name")), body)
            self.names[made] = str(body.get("name"))
            return 200, {"id": made, "name": body.get("name"), "tags": body.get("tags", [])}
        agent = self.agents.get(parts[2]) if len(parts) > 2 else None
        if agent is None:
            return 404, {"detail": f"no agent {request.path}"}
        tail = parts[3:]
        if method == "DELETE" and not tail:
            del self.agents[parts[2]]
            return 200, {}
        if method == "POST" and tail == ["archival-memory"]:
            return 200, [self._archive(agent, body["text"], body.get("created_at") or NOW)]
        if method == "GET" and tail == ["archival-memory", "search"]:
            found = self._best(agent.archive, request.query["query"], int(request.query.get("top_k", 10)))
            results = [{"id": p["id"], "content": p["text"], "timestamp": p["created_at"]} for p in found]
            return 200, {"count": len(results), "results": results}
        if method == "POST" and tail == ["messages"]:
            return 200, self._step(agent, body["messages"])
        return 404, {"detail": f"no route {method} {request.path}"}

    def namespace(self, request: Request) -> str | None:
        parts = request.path.strip("/").split("/")
        if parts == ["v1", "agents"] and isinstance(request.body, dict):
            return request.body.get("name")
        return self.names.get(parts[2]) if len(parts) > 2 else None

    def adds(self, request: Request) -> bool:
        return request.method == "POST" and request.path.endswith(("/archival-memory", "/messages"))

    def _step(self, agent: Agent, messages: list[dict[str, Any]]) -> dict[str, Any]:
        agent.history.extend(messages)
        for message in messages:
            if message["role"] == "user" and not message["content"].rstrip().endswith("?"):
                self._archive(agent, f"user: {message['content']}", NOW)
        last = str(messages[-1]["content"])
        earlier = [{"text": f"{m['role']}: {m['content']}"} for m in agent.history[: -len(messages)]]
        best = self._best([*agent.archive, *earlier], last, 1)
        reply = f"I remember: {best[0]['text']}" if best else "I do not know yet."
        agent.history.append({"role": "assistant", "content": reply})
        spent = sum(len(str(m["content"]).split()) for m in messages)
        return {
            "messages": [
                {
                    "id": f"message-{self._id()}",
                    "date": NOW,
                    "message_type": "reasoning_message",
                    "reasoning": "…",
                },
                {
                    "id": f"message-{self._id()}",
                    "date": NOW,
                    "message_type": "assistant_message",
                    "content": reply,
                },
            ],
            "stop_reason": {"stop_reason": "end_turn", "message_type": "stop_reason"},
            "usage": {
                "message_type": "usage_statistics",
                "prompt_tokens": spent,
                "completion_tokens": len(reply.split()),
                "total_tokens": spent + len(reply.split()),
                "step_count": 1,
            },
        }

    def _archive(self, agent: Agent, text: str, when: str) -> dict[str, Any]:
        passage = {"id": f"passage-{self._id()}", "text": text, "created_at": when}
        agent.archive.append(passage)
        return passage

    @staticmethod
    def _best(lines: list[dict[str, Any]], query: str, k: int) -> list[dict[str, Any]]:
        """The lines sharing words with `query`, most shared first."""
        wanted = _words(query)
        scored = [(len(wanted & _words(line["text"])), n, line) for n, line in enumerate(lines)]
        return [line for shared, _, line in sorted(scored, key=lambda s: (-s[0], s[1])) if shared][:k]

    def _id(self) -> str:
        return f"00000000-0000-4000-9000-{next(self._ids):012d}"


@contextmanager
def letta_server(**options: Any) -> Iterator[LettaServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = LettaServer(**options)
    with serve(state):
        yield state
