"""A loopback server of the Letta endpoints its SDK (letta-client 1.x) calls, for the `letta` store's
tests, with a scripted agent behind them.

    POST   /v1/agents/                                make an agent: {"id", "name", …}
    DELETE /v1/agents/{id}                            delete it
    POST   /v1/agents/{id}/archival-memory            insert a passage: [{"id", "text", "created_at"}]
    GET    /v1/agents/{id}/archival-memory            ?limit&after: the passages, oldest first
    GET    /v1/agents/{id}/archival-memory/search     ?query&top_k: {"count", "results": [{"content",
                                                      "timestamp", …}]}, by shared words
    POST   /v1/agents/{id}/messages                   a step: {"messages", "stop_reason", "usage"}
    POST   /v1/conversations/default/fork?agent_id    fork the agent's conversation: {"id", "agent_id"}
    POST   /v1/conversations/{id}/messages            a step in the fork, streamed (Server-Sent Events)
    DELETE /v1/conversations/{id}                     delete the fork

The scripted agent keeps every message it is sent in its history and archives each user message
that is not a question (as a MemGPT agent's `archival_memory_insert` would), then replies with the
line of its history or archive that shares most words with the last message; its usage is the
words in and out.  A fork starts from a copy of the agent's history and adds to its own; the agent's
archive is shared, as Letta's is.  Every request needs `Authorization: Bearer KEY` (else 401);
faults are injected as `tests.support.loopback` says.

As strict as Letta where the harness could go wrong: a step takes `step_seconds`, and a second send
to an agent (or any fork of it) while one is processed is refused with 409, "Another request is
currently being processed" (letta-ai/lettabot#123).
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback import EventStream, LoopbackState, Request, serve

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
class Fork:
    agent: str
    history: list[dict[str, Any]]


@dataclass
class LettaServer(LoopbackState):
    key: str = "letta-test-key"
    agents: dict[str, Agent] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # every agent's id → name, kept after deletion
    forks: dict[str, Fork] = field(default_factory=dict)
    step_seconds: float = 0.0
    refused: int = 0  # sends answered 409
    _busy: set[str] = field(default_factory=set)
    _busy_lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def answer(self, request: Request) -> tuple[int, Any]:
        """A send to an agent waits its step out of the server's lock, so a second send meanwhile finds
        the agent busy."""
        agent = self._sent_to(request)
        if agent is None:
            return super().answer(request)
        with self._busy_lock:
            if agent in self._busy:
                self.refused += 1
                return 409, {"detail": "Another request is currently being processed for this agent"}
            self._busy.add(agent)
        try:
            time.sleep(self.step_seconds)
            return super().answer(request)
        finally:
            with self._busy_lock:
                self._busy.discard(agent)

    def _sent_to(self, request: Request) -> str | None:
        parts = request.path.strip("/").split("/")
        if request.method != "POST" or parts[-1:] != ["messages"] or len(parts) != 4:
            return None
        if parts[1] == "agents":
            return parts[2]
        fork = self.forks.get(parts[2])
        return fork.agent if fork else None

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
        if parts[:2] == ["v1", "conversations"]:
            return self._conversation(method, parts[2:], request)
        agent = self.agents.get(parts[2]) if len(parts) > 2 else None
        if agent is None:
            return 404, {"detail": f"no agent {request.path}"}
        tail = parts[3:]
        if method == "DELETE" and not tail:
            del self.agents[parts[2]]
            return 200, {}
        if method == "POST" and tail == ["archival-memory"]:
            return 200, [self._archive(agent, body["text"], body.get("created_at") or NOW)]
        if method == "GET" and tail == ["archival-memory"]:
            after = request.query.get("after")
            start = next((n + 1 for n, p in enumerate(agent.archive) if p["id"] == after), 0) if after else 0
            page = agent.archive[start : start + int(request.query.get("limit", 100))]
            return 200, [{**p, "agent_id": parts[2]} for p in page]
        if method == "GET" and tail == ["archival-memory", "search"]:
            found = self._best(agent.archive, request.query["query"], int(request.query.get("top_k", 10)))
            results = [{"id": p["id"], "content": p["text"], "timestamp": p["created_at"]} for p in found]
            return 200, {"count": len(results), "results": results}
        if method == "POST" and tail == ["messages"]:
            return 200, self._step(agent, body["messages"])
        return 404, {"detail": f"no route {method} {request.path}"}

    def _conversation(self, method: str, parts: list[str], request: Request) -> tuple[int, Any]:
        if method == "POST" and parts == ["default", "fork"]:
            agent = self.agents.get(request.query.get("agent_id", ""))
            if agent is None:
                return 404, {"detail": "agent not found"}
            made = f"conv-{self._id()}"
            self.forks[made] = Fork(request.query["agent_id"], list(agent.history))
            return 200, {"id": made, "agent_id": request.query["agent_id"]}
        fork = self.forks.get(parts[0])
        if fork is None:
            return 404, {"detail": f"no conversation {parts[0]}"}
        if method == "DELETE" and parts[1:] == []:
            del self.forks[parts[0]]
            return 200, {}
        if method == "POST" and parts[1:] == ["messages"]:
            step = self._step(self.agents[fork.agent], request.body["messages"], fork.history)
            return 200, EventStream([*step["messages"], step["stop_reason"], step["usage"]])
        return 404, {"detail": f"no route {method} {request.path}"}

    def namespace(self, request: Request) -> str | None:
        parts = request.path.strip("/").split("/")
        if parts == ["v1", "agents"] and isinstance(request.body, dict):
            return request.body.get("name")
        return self.names.get(parts[2]) if len(parts) > 2 else None

    def adds(self, request: Request) -> bool:
        return (
            request.method == "POST"
            and request.path.startswith("/v1/agents/")
            and request.path.endswith(("/archival-memory", "/messages"))
        )

    def _step(
        self, agent: Agent, messages: list[dict[str, Any]], history: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """A step of the agent, in its own history or a fork's."""
        history = agent.history if history is None else history
        history.extend(messages)
        for message in messages:
            if message["role"] == "user" and not message["content"].rstrip().endswith("?"):
                self._archive(agent, f"user: {message['content']}", NOW)
        last = str(messages[-1]["content"])
        earlier = [{"text": f"{m['role']}: {m['content']}"} for m in history[: -len(messages)]]
        best = self._best([*agent.archive, *earlier], last, 1)
        reply = f"I remember: {best[0]['text']}" if best else "I do not know yet."
        history.append({"role": "assistant", "content": reply})
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
