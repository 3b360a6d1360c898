"""`evermemos`: EverMind's EverMemOS through its official client, an EverMemOS group per conversation.

    evermemos:openai:gpt-4o-mini                          EverMind's cloud (key from EVERMEMOS_API_KEY)
    evermemos(url=http://localhost:1995):openai:…         a server you run that speaks the cloud's API
    evermemos(profile=vendor):openai:…                    as EverMind's own evaluation of its API runs it

EverMemOS takes one message a call (`memories.add`): each message of the benchmark's history goes
with its simulated time as `create_time` (ISO 8601 with its offset, which EverMemOS requires), a
`message_id` made from the namespace and the message itself (so a retried add never sends a
message twice: the ones the service accepted are not sent again), its speaker as `sender` (the
benchmark's speaker by name where it names one, else its role) and the conversation's namespace as
its `group_id`.  EverMemOS cuts a group's messages into episodes where it detects a boundary; the
last message of each session goes with `flush`, so that a session always ends an episode and the
last one is not left waiting for a message that never comes.  The service answers an add with a
request id and works in the background: `wait` polls each request's status until it says `success`
(`failed` is an ERROR), for as long as it takes, bounded by `--mb-timeout` (EverMind's harness for
EverMemBench takes the 202 as done and polls nothing).  Search is EverMemOS's `memories.search` of
the group (`group_id`, no user filter: EverMemBench's harness searched an empty user id),
`top_k` = k, of its episodic memories unless `memory_types` says otherwise, by its
`retrieve_method`; each memory is a hit dated by its own time.  `stored()` pages through the
group's memories of those types; `clear` deletes the group's memories.  EverMemOS extracts with its
own models, which the run does not see; it reports no version of itself (its health check says
only that it is healthy).
Tested with evermemos 0.3.13 against a loopback server of the endpoints it calls
(tests/support/evermemos_server.py), not against EverMemOS itself.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import one_of, positive, require
from pytest_memorybench.agents.stores.dates import iso_utc, parsed_time
from pytest_memorybench.agents.stores.hosted import Unprocessed, api_key, refused, require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

KEY_VARIABLE = "EVERMEMOS_API_KEY"
LOCAL_KEY = "local"  # a server you run checks no key, but the client will not start without one
MOST = 100  # the most memories a search or a page returns (EverMemOS's top_k and limit cap)
METHODS = ("", "keyword", "vector", "hybrid", "rrf", "agentic")
MEMORY_TYPES = ("episodic_memory", "event_log", "foresight")
_DONE, _FAILED = "success", "failed"  # a request's status: start, then success or failed


@dataclass(frozen=True)
class EverMemOSSettings:
    """How search retrieves (`retrieve_method`; empty: the service's default), which memories it
    searches and lists (`memory_types`, joined by `+`), another server's URL, and how often `wait`
    asks after a request."""

    retrieve_method: str = ""
    memory_types: str = "episodic_memory"
    url: str = ""
    poll: float = 0.5

    def __post_init__(self) -> None:
        one_of("retrieve_method", self.retrieve_method, METHODS)
        unknown = [kind for kind in self.types if kind not in MEMORY_TYPES]
        require(
            bool(self.types) and not unknown,
            f"memory_types takes {', '.join(MEMORY_TYPES)} joined by '+', got {self.memory_types!r}",
        )
        positive(poll=self.poll)

    @property
    def types(self) -> list[str]:
        return [kind for kind in self.memory_types.split("+") if kind]


class EverMemOSStore:
    """The async client behind the store protocol, the messages each group holds already, and the
    requests `wait` has to see done."""

    def __init__(self, settings: EverMemOSSettings, key: str, timeout: float | None) -> None:
        self.settings = settings
        self.key = key
        self.timeout = sdk_timeout(timeout)
        self.unprocessed = Unprocessed(settings.poll)
        self._sent: dict[str, set[str]] = {}  # namespace -> the message ids the service accepted
        self._lock = threading.Lock()
        self._client: Any = None

    async def add(self, messages: list[Message], namespace: str) -> None:
        """A session, a message a call, its last one flushed; what was accepted is not sent again."""
        memories = self._evermemos().v0.memories
        sent = self._sent.setdefault(namespace, set())
        for place, message in enumerate(messages):
            message_id = f"{namespace}-{_identity(message)}"
            if message_id in sent:
                continue
            answer = await self._call(
                memories.add,
                content=message.text,
                create_time=iso_utc(message.timestamp),
                message_id=message_id,
                sender=_sender(message),
                role="assistant" if message.role == "assistant" else "user",
                group_id=namespace,
                flush=place == len(messages) - 1,
            )
            sent.add(message_id)
            if answer.request_id:
                self.unprocessed.add(namespace, answer.request_id)

    async def wait(self, namespace: str) -> None:
        requests = self._evermemos().v0.status.request

        async def done(request_id: str) -> bool:
            found = await self._call(requests.get, request_id=request_id)
            state = (found.data or {}).get("status") if found.found else None
            if state == _FAILED:
                reason = (found.data or {}).get("error_message") or "failed"
                raise RuntimeError(
                    f"EverMemOS could not memorize into group {namespace} (request {request_id}: {reason})"
                )
            return state == _DONE

        await self.unprocessed.await_each(namespace, done)

    async def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        if not self._sent.get(namespace):
            return []
        options: dict[str, Any] = {
            "query": query,
            "group_id": namespace,
            "memory_types": ",".join(self.settings.types),
            "top_k": max(1, min(k, MOST)),
        }
        if self.settings.retrieve_method:
            options["retrieve_method"] = self.settings.retrieve_method
        # The client's search takes no parameters of its own and sends no body with a GET:
        # EverMemOS reads them from the query as well (its memory types comma-separated).
        found = await self._call(self._evermemos().v0.memories.search, extra_query=options)
        return [_hit(memory) for memory in _memories(found.result.memories)]

    async def stored(self, namespace: str) -> list[str]:
        if not self._sent.get(namespace):
            return []
        texts: list[str] = []
        for kind in self.settings.types:
            offset = 0
            while True:
                page = await self._call(
                    self._evermemos().v0.memories.get,
                    extra_query={"group_id": namespace, "memory_type": kind, "limit": MOST, "offset": offset},
                )
                memories = _memories(page.result.memories)
                texts += [_text(memory) for memory in memories]
                offset += len(memories)
                if not memories or offset >= (page.result.total_count or 0):
                    break
        return texts

    async def clear(self, namespace: str) -> None:
        from evermemos import NotFoundError

        self.unprocessed.forget(namespace)
        try:
            await self._call(self._evermemos().v0.memories.delete, group_id=namespace)
        except NotFoundError:
            pass  # a group never made: already clear
        self._sent.pop(namespace, None)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()

    def _evermemos(self) -> Any:
        with self._lock:
            if self._client is None:
                from evermemos import AsyncEverMemOS

                # the harness retries and bounds each call itself
                self._client = AsyncEverMemOS(
                    api_key=self.key, base_url=self.settings.url or None, max_retries=0, timeout=self.timeout
                )
            return self._client

    @staticmethod
    async def _call(method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the client; a refused key as PermissionError, which the harness does not retry."""
        from evermemos import AuthenticationError, PermissionDeniedError

        try:
            return await method(*args, **kwargs)
        except (AuthenticationError, PermissionDeniedError) as exc:
            raise refused("EverMemOS", exc.status_code, KEY_VARIABLE) from None


def _identity(message: Message) -> str:
    """A message's id within its conversation, the same on every try: its session, time, speaker, the
    source's id and text (a benchmark's messages need not carry an id or a session, and one day's
    messages may come in several adds)."""
    said = f"{message.session}|{message.timestamp.isoformat()}|{_sender(message)}|{message.id}|{message.text}"
    return hashlib.sha256(said.encode()).hexdigest()[:24]


def _sender(message: Message) -> str:
    """Who said it, as EverMemOS's `sender`: the benchmark's speaker by name, else the role."""
    return message.speaker or message.role


def _memories(found: Any) -> list[Any]:
    """The memories of a search or listing: the client's models, or (a server that groups them by
    group, as the open-source EverMemOS answers) each group's list in turn."""
    memories: list[Any] = []
    for item in found or ():
        # the client reads a group's entry as a model without a memory type, the group its extra field
        grouped = item if isinstance(item, dict) else getattr(item, "model_extra", None) or {}
        if _field(item, "memory_type") is None and grouped:
            memories += [memory for group in grouped.values() if isinstance(group, list) for memory in group]
        else:
            memories.append(item)
    return memories


def _field(memory: Any, name: str) -> Any:
    return memory.get(name) if isinstance(memory, dict) else getattr(memory, name, None)


def _text(memory: Any) -> str:
    """An episode's text (its episode, else summary, else subject: as EverMind's harness reads it),
    an event log's atomic facts, a foresight's foresight."""
    facts = _field(memory, "atomic_fact")
    if isinstance(facts, list):
        facts = " ".join(str(fact) for fact in facts)
    for text in (_field(memory, "episode"), _field(memory, "summary"), _field(memory, "subject"), facts):
        if isinstance(text, str) and text:
            return text
    return str(_field(memory, "foresight") or _field(memory, "content") or "")


def _hit(memory: Any) -> Hit:
    score = _field(memory, "score")
    return Hit(
        _text(memory),
        float(score) if isinstance(score, int | float) else None,
        parsed_time(_field(memory, "timestamp")),
    )


def _make(settings: EverMemOSSettings, options: AgentOptions, model: AgentSpec) -> EverMemOSStore:
    if settings.url:  # a server you run: a key only where it checks one
        require_package("evermemos", "evermemos")
        return EverMemOSStore(settings, os.environ.get(KEY_VARIABLE) or LOCAL_KEY, options.timeout)
    return EverMemOSStore(
        settings, api_key("evermemos", "EverMemOS", KEY_VARIABLE, "evermemos"), options.timeout
    )


EVERMEMOS = BuiltinStore(EverMemOSSettings, _make)
