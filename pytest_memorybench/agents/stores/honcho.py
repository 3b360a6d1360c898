"""`honcho`: Plastic Labs' Honcho through its official SDK, a workspace per conversation, answering itself.

    honcho(url=http://localhost:8000):openai:gpt-4o-mini    a Honcho server you run
    honcho:openai:gpt-4o-mini                              Honcho's cloud (key from HONCHO_API_KEY)

Honcho remembers peers: each conversation is a Honcho workspace named after the namespace, with
one peer a role (`user`, `assistant`) and one Honcho session a session of the benchmark's history.
Each `add` is one `add_messages` to that session, every message from its role's peer with its
simulated time as `created_at`.  Honcho reasons about the messages in the background (its
"deriver" queue): `wait` polls the workspace's queue status until no work is pending or in
progress.  Honcho answers questions itself, through its dialectic chat (`peer.chat`, the user
peer's representation): like Letta, a store that answers, so the harness's answering model is not
asked (the run counts `native_answers`), and the chat's model is Honcho's own; the question's
simulated date and the suite's instructions go before it in the chat's query.  Evidence recall
reads Honcho's search of the workspace's messages, `limit` = k.  `clear` deletes the workspace.
Tested with honcho-ai 2.7.0 against a loopback server of the endpoints its SDK calls
(tests/support/honcho_server.py), not against Honcho itself.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import one_of, positive
from pytest_memorybench.agents.stores.dates import in_utc, parsed_time
from pytest_memorybench.agents.stores.hosted import refused, require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

KEY_VARIABLE = "HONCHO_API_KEY"
_ID = re.compile(r"[^A-Za-z0-9_-]")  # what a Honcho id may not hold
NO_ANSWER = "I don't know."  # Honcho's chat answers nothing when it has nothing to say


@dataclass(frozen=True)
class HonchoSettings:
    """The dialectic's reasoning level (empty: Honcho's default), the server's URL (empty: the
    SDK's, from HONCHO_URL or Honcho's cloud), and how often `wait` asks after the queue."""

    reasoning: str = ""
    url: str = ""
    poll: float = 0.5

    def __post_init__(self) -> None:
        one_of("reasoning", self.reasoning, ("", "minimal", "low", "medium", "high", "max"))
        positive(poll=self.poll)


class HonchoStore:
    """A Honcho client per workspace (namespace), its peers made on first use."""

    def __init__(self, settings: HonchoSettings, key: str | None, timeout: float | None) -> None:
        self.settings = settings
        self.key = key
        self.timeout = sdk_timeout(timeout)
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()

    def add(self, messages: list[Message], namespace: str) -> None:
        honcho = self._honcho(namespace)
        roles = sorted({message.role for message in messages})
        peers = {role: self._call(honcho.peer, role) for role in roles}
        first = messages[0]
        unit = first.session if first.session is not None else f"{first.timestamp:%Y%m%d}"
        session = self._call(honcho.session, "session-" + _ID.sub("-", str(unit)))
        self._call(
            session.add_messages,
            [
                peers[message.role].message(message.text, created_at=in_utc(message.timestamp))
                for message in messages
            ],
        )

    def wait(self, namespace: str) -> None:
        honcho = self._honcho(namespace)
        while True:
            status = self._call(honcho.queue_status)
            if not status.pending_work_units and not status.in_progress_work_units:
                return
            time.sleep(self.settings.poll)

    def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        """Honcho's search of the workspace's messages: what evidence recall reads."""
        found = self._call(self._honcho(namespace).search, query, limit=max(1, min(k, 100)))
        return [Hit(message.content, None, parsed_time(message.created_at)) for message in found]

    def answer(self, question: str, namespace: str, instructions: str = "") -> str:
        """Honcho's answer to `question`, told `instructions` (the question's simulated date, the
        suite's instructions) before it: the chat takes one query and no system message."""
        honcho = self._honcho(namespace)
        options: dict[str, Any] = {}
        if self.settings.reasoning:
            options["reasoning_level"] = self.settings.reasoning
        query = f"{instructions}\n\n{question}" if instructions else question
        reply = self._call(self._call(honcho.peer, "user").chat, query, **options)
        return str(reply) if reply else NO_ANSWER

    def clear(self, namespace: str) -> None:
        from honcho.http.exceptions import NotFoundError

        try:
            self._call(self._honcho(namespace).delete_workspace, namespace)
        except NotFoundError:
            pass  # a workspace never made: already clear

    def _honcho(self, namespace: str) -> Any:
        with self._lock:
            if namespace not in self._clients:
                from honcho import Honcho

                self._clients[namespace] = Honcho(
                    api_key=self.key,
                    base_url=self.settings.url or None,
                    workspace_id=namespace,
                    timeout=self.timeout,
                )
            return self._clients[namespace]

    @staticmethod
    def _call(method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the SDK (which retries 429s and 5xxs itself); a refused key as PermissionError."""
        from honcho.http.exceptions import AuthenticationError, PermissionDeniedError

        try:
            return method(*args, **kwargs)
        except (AuthenticationError, PermissionDeniedError) as exc:
            raise refused("Honcho", exc.status, KEY_VARIABLE) from None


def _make(settings: HonchoSettings, options: AgentOptions, model: AgentSpec) -> HonchoStore:
    require_package("honcho", "honcho")
    import os

    return HonchoStore(settings, os.environ.get(KEY_VARIABLE) or None, options.timeout)


HONCHO = BuiltinStore(HonchoSettings, _make)
