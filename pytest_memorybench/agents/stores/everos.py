"""`everos`: EverMind's EverOS through its cloud client (`everos-cloud`), a user per conversation.

    everos:openai:gpt-4o-mini                          EverOS Cloud (key from EVEROS_API_KEY)
    everos(url=http://127.0.0.1:8000):openai:…         an EverOS server you run (`everos server start`)

EverOS, EverMemOS's successor, speaks its v2 API (`/api/v2/memory/add|flush|search|get`,
`/api/v2/tasks/{id}`), in EverMind's cloud and in the open-source server (`everos` 1.5.1: SQLite,
LanceDB and Markdown files on your machine).  Each conversation is an EverOS user: the namespace,
made safe for EverOS's ids, is the `sender_id` of every user turn (and, with `.assistant`, of every
assistant turn), and the `user_id` its search and listing ask for.  Each `add`, one session of the
benchmark's history, is one `memory/add` of the session's messages (EverOS takes up to 500 a call)
into an EverOS session of its own, each message with its speaker as `sender_name`, its role, and its
simulated time as `timestamp` (milliseconds, UTC), its text without the speaker's label (EverOS
prints `sender_name: content`); then that session is flushed, so that EverOS
closes its episode there and no episode spans two sessions.  The add goes with `async_mode` (202
and a task id, as the cloud does by default).  The open-source server queues a flush behind the
add (202, a task of its own); the cloud flushes only what its session already holds, so a flush
while the add is queued answers 200 `no_extraction` ("poll the add's task before flushing",
everos-cloud's `flush_memory`): that session is flushed again once its tasks are done.  `wait`
polls each task at `/api/v2/tasks/{id}` until it is done (a `failed` task is an ERROR, with
EverOS's reason), flushes what the cloud could not yet, then waits until the user's episodes
number at least its sessions flushed (EverOS indexes an episode a moment after its task ends, and
the cloud distils after the flush), bounded by `--mb-timeout`.

Search is `memory/search` of the conversation's user, `top_k` = k (EverOS's cap is 100), by its
`method` (default: the service's, hybrid); each episode is a hit dated by its `timestamp`, the time
of the cell it narrates.  `stored()` pages through the user's episodes (`memory/get`).  `clear`
deletes the user's memories (`memory/delete`); a server without that route (the open-source server
1.5.1 has none) moves the namespace to a fresh user instead, so what it held is never searched
again.  The server's version (its `/health`, where it has one) is recorded with the run.  EverOS
extracts with its own models, which the run does not see.

The client builds its requests from its own models, which send `with_readable_episode` (a cloud
field) unless it is None; the open-source server refuses unknown fields, so the store sends None,
which the cloud reads as its default.  The client's `add` facade returns the result without its
request id, and its `flush` reads only a 200: the store calls the generated API (`client.memory`,
`client.tasks`), which the client documents as its escape hatch.

EverMind publishes no evaluation setup for EverOS's v2 API (EverMind-AI/EverOS `evaluation/` runs
the engine in process), so this store has no vendor profile.  everos-cloud needs Python 3.12 or
later.  Tested with everos-cloud 1.2.0 against the open-source everos 1.5.1 server on the scripted
model (tests/support/everos_service.py), in an environment of their own on Python 3.13, and
against a strict fake of the cloud (tests/support/everos_server.py) for what only the cloud does.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import one_of, positive
from pytest_memorybench.agents.stores.dates import in_utc, naive_utc
from pytest_memorybench.agents.stores.hosted import Unprocessed, api_key, refused, require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

KEY_VARIABLE = "EVEROS_API_KEY"
LOCAL_KEY = "local"  # the open-source server checks no key, but the client sends one
NEEDS_PYTHON = (3, 12)  # everos-cloud's Requires-Python
MOST = 100  # the most hits a search or a page returns (EverOS's top_k and page_size cap)
MESSAGES_PER_ADD = 500  # the most messages one memory/add takes
METHODS = ("", "keyword", "vector", "hybrid", "agentic", "llm_multiround")
_UNSAFE = re.compile(r"[^a-zA-Z0-9_.@+-]")  # EverOS's ids become folder names: what it refuses
_NO_ROUTE = (404, 405)  # a server without the route


@dataclass(frozen=True)
class EverOSSettings:
    """How search retrieves (`method`; empty: the service's default), another server's URL, and how
    often `wait` asks after a task."""

    method: str = ""
    url: str = ""
    poll: float = 0.5

    def __post_init__(self) -> None:
        one_of("method", self.method, METHODS)
        positive(poll=self.poll)


class EverOSStore:
    """The client behind the store protocol, each namespace's user, its sessions flushed, the
    batches EverOS accepted and the tasks `wait` has to see done."""

    messages_per_add = MESSAGES_PER_ADD

    def __init__(self, settings: EverOSSettings, key: str, timeout: float | None) -> None:
        from everos_cloud.client import EverOS  # where it is defined: the package re-exports it implicitly

        self.settings = settings
        self.timeout = sdk_timeout(timeout)
        self.client = EverOS(api_key=key, host=settings.url or None, timeout=self.timeout)
        self.server_version: str | None = None
        self._version_asked = False
        self.unprocessed = Unprocessed(settings.poll)
        self._lock = threading.Lock()
        self._users: dict[str, str] = {}  # namespace -> its EverOS user id
        self._added: dict[str, set[str]] = {}  # namespace -> the batches EverOS accepted
        self._flushed: dict[str, set[str]] = {}  # namespace -> its sessions with a user turn, flushed
        self._unflushed: dict[str, set[str]] = {}  # namespace -> sessions to flush after their tasks

    def add(self, messages: list[Message], namespace: str) -> None:
        from everos_cloud.models.add_input import AddInput
        from everos_cloud.models.content import Content
        from everos_cloud.models.message_item import MessageItem

        if not messages:
            return
        if not self._version_asked:  # recorded with the run, as the service says it
            self._version_asked = True
            self.server_version = self._version()
        user = self._user(namespace)
        session = f"{user}.{_digest(f'{messages[0].session}')}"
        batch = _digest("|".join(_identity(message) for message in messages))
        added = self._added.setdefault(namespace, set())
        if batch not in added:  # a retried add never sends what EverOS accepted again
            items = [
                MessageItem(
                    sender_id=user if message.role == "user" else f"{user}.{message.role}",
                    sender_name=message.speaker or message.role,
                    role="user" if message.role == "user" else "assistant",
                    timestamp=int(in_utc(message.timestamp).timestamp() * 1000),
                    content=Content(_words(message)),
                )
                for message in messages
            ]
            answer = self._call(
                self.client.memory.add_memory,
                AddInput(session_id=session, messages=items, async_mode=True),
            )
            added.add(batch)
            if answer.data.status == "queued":
                self.unprocessed.add(namespace, answer.request_id)
        if self._flush(namespace, session) == "no_extraction":  # the cloud: the add is still queued
            self._unflushed.setdefault(namespace, set()).add(session)
        if any(message.role == "user" for message in messages):
            self._flushed.setdefault(namespace, set()).add(session)

    def wait(self, namespace: str) -> None:
        """Every task done, then until the user's episodes number at least its sessions flushed."""

        def done(task: str) -> bool:
            item = self._call(self.client.tasks.get_task_status, task).data
            if item.status == "failed":
                raise RuntimeError(
                    f"EverOS could not memorize into user {self._user(namespace)}"
                    f" (task {task}: {item.error or 'failed'})"
                )
            return item.finished_at is not None or item.status == "success"

        self.unprocessed.wait(namespace, done)
        unflushed = self._unflushed.get(namespace, set())
        for session in sorted(unflushed):  # its messages are in the session now: extracted
            self._flush(namespace, session)
            unflushed.discard(session)
        self.unprocessed.wait(namespace, done)
        sessions = len(self._flushed.get(namespace, ()))
        while sessions and (self._episodes(namespace, page=1, size=1).total_count or 0) < sessions:
            time.sleep(self.settings.poll)

    def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        from everos_cloud.models.search_input import SearchInput

        if not self._added.get(namespace):
            return []
        request: dict[str, Any] = {
            "query": query,
            "user_id": self._user(namespace),
            "top_k": max(1, min(k, MOST)),
        }
        if self.settings.method:
            request["method"] = self.settings.method
        found = self._call(
            self.client.memory.search_memory, SearchInput(**request, with_readable_episode=None)
        ).data
        return [
            Hit(_text(episode), episode.score, naive_utc(episode.timestamp))
            for episode in found.episodes or []
        ]

    def stored(self, namespace: str) -> list[str]:
        """The user's episodes, every page."""
        if not self._added.get(namespace):
            return []
        texts: list[str] = []
        for page in range(1, 1_000_000):
            found = self._episodes(namespace, page=page, size=MOST)
            texts += [_text(episode) for episode in found.episodes or []]
            if len(found.episodes or []) < MOST or len(texts) >= (found.total_count or 0):
                break
        return texts

    def clear(self, namespace: str) -> None:
        from everos_cloud.exceptions import ApiException
        from everos_cloud.models.delete_input import DeleteInput

        self.unprocessed.forget(namespace)
        if self._added.pop(namespace, None):
            try:
                self._call(self.client.memory.delete_memory, DeleteInput(user_id=self._user(namespace)))
            except ApiException as exc:
                if exc.status not in _NO_ROUTE:
                    raise
                with self._lock:  # no delete here: the namespace's next user starts empty
                    self._users[namespace] = f"{_user_id(namespace)}.{time.time_ns()}"
        self._flushed.pop(namespace, None)
        self._unflushed.pop(namespace, None)

    def close(self) -> None:
        self.client.close()

    def _flush(self, namespace: str, session: str) -> str:
        """The session's flush: queued behind its adds (202, a task to wait for: the open-source
        server), else what it extracted (`extracted`, or `no_extraction`: nothing there yet)."""
        from everos_cloud.models.flush_input import FlushInput

        flushed = self._call(self.client.memory.flush_memory_with_http_info, FlushInput(session_id=session))
        if flushed.status_code == 202:
            self.unprocessed.add(namespace, json.loads(flushed.raw_data)["request_id"])
            return "queued"
        return str(flushed.data.data.status)

    def _user(self, namespace: str) -> str:
        with self._lock:
            return self._users.setdefault(namespace, _user_id(namespace))

    def _episodes(self, namespace: str, *, page: int, size: int) -> Any:
        from everos_cloud.models.get_input import GetInput

        request = GetInput(
            memory_type="episode",
            user_id=self._user(namespace),
            page=page,
            page_size=size,
            sort_order="asc",
            with_readable_episode=None,
        )
        return self._call(self.client.memory.get_memory, request).data

    def _version(self) -> str | None:
        """The server's own version, from its `/health` (the open-source server's; the cloud may
        have none: then the client's version alone is recorded)."""
        from everos_cloud.exceptions import ApiException

        api = self.client.memory.api_client
        try:
            request = api.param_serialize(method="GET", resource_path="/health")
            response = api.call_api(*request, _request_timeout=self.timeout)
            response.read()
            version = json.loads(response.data or b"{}").get("version")
        except (ApiException, ValueError, AttributeError):
            return None
        return f"everos {version}" if version else None

    def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the client's generated API, within its timeout; a refused key as
        PermissionError, which the harness does not retry."""
        from everos_cloud.exceptions import ApiException

        try:
            return method(*args, **kwargs, _request_timeout=self.timeout)
        except ApiException as exc:
            if exc.status in (401, 403):
                raise refused("EverOS", exc.status, KEY_VARIABLE) from None
            raise


def _user_id(namespace: str) -> str:
    """The namespace as an EverOS id: the characters EverOS takes, with a digest of the whole so
    two namespaces never meet; short enough that a session's id and an assistant's, made from it
    (and a cleared namespace's next user), stay within EverOS's 128 characters."""
    return f"{_UNSAFE.sub('-', namespace)[:64]}.{_digest(namespace)}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _identity(message: Message) -> str:
    """A message as the same text on every try: what it says, who said it, when, in which session."""
    said = (message.session, message.timestamp.isoformat(), message.role, message.speaker, message.id)
    return "|".join(map(str, (*said, message.text)))


def _words(message: Message) -> str:
    """What was said, without the speaker's label the benchmark opens it with (LoCoMo's "Caroline:
    …"): EverOS prints each message as `sender_name: content` for its model (everalgo
    boundary/chat.py), so the label would be said twice."""
    return message.text.removeprefix(f"{message.speaker}: ") if message.speaker else message.text


def _text(episode: Any) -> str:
    """An episode's narrative, else its summary, else its subject."""
    return str(episode.episode or episode.summary or episode.subject or "")


def _make(settings: EverOSSettings, options: AgentOptions, model: AgentSpec) -> EverOSStore:
    if sys.version_info < NEEDS_PYTHON:  # the extra installs nothing there: say why, not "install it"
        raise usage_error(
            f"--agent everos:…: EverOS's client (everos-cloud 1.2.0) needs Python"
            f" {'.'.join(map(str, NEEDS_PYTHON))} or later and this is Python"
            f" {sys.version_info.major}.{sys.version_info.minor}; run the benchmark from a newer Python's"
            " environment with pip install 'pytest-memorybench[everos]'"
        )
    if settings.url:  # a server you run: a key only where it checks one
        require_package("everos", "everos_cloud")
        return EverOSStore(settings, os.environ.get(KEY_VARIABLE) or LOCAL_KEY, options.timeout)
    return EverOSStore(settings, api_key("everos", "EverOS", KEY_VARIABLE, "everos_cloud"), options.timeout)


EVEROS = BuiltinStore(EverOSSettings, _make)
