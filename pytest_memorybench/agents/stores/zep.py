"""`zep`: Zep's hosted context graph through its official SDK (`zep-cloud` 4.x), a Zep user per
conversation.

    zep:openai:gpt-4o-mini                        the key from ZEP_API_KEY; facts (edges) searched
    zep(scope=episodes):openai:gpt-4o-mini        the messages themselves, as Zep stored them
    zep(url=http://127.0.0.1:8000/api/v4):…       another server (a test's)

Zep builds a temporal knowledge graph for each user from the messages of the user's threads.  A
namespace is a Zep user (`user_id` = the namespace) with one thread, both made on the first `add`;
the messages go to `thread.add_messages` a session at a time, `batch` a call (at most Zep's 30), each
with its simulated time as Zep's `reference_time` (UTC with its offset: Zep refuses a time without
one), its role and its sender's `name` (the benchmark's speaker, LoCoMo's people by name, else
`User` or `Assistant`: Zep's ingestion requires it, so facts attach to the right person; the user is
made with the user-role speaker's name); a message over Zep's 4,096 characters goes as
consecutive messages, and each call carries an idempotency key made from its messages, so a retry
never stores them twice.  Zep extracts the graph afterwards and gives each call a task: `wait`
polls every task since the last wait (`task.get`, the documented status call) until it
`succeeded`: that time counts as ingest.  A task that `failed`, or succeeded only in `partial`,
is a StoreError, so its items are ERRORs.
Search is the user graph's: `scope=edges` (Zep's facts, each with when it held: from `valid_at`
until `invalid_at`, or until it expired when a later fact superseded it, else `→ present`),
`nodes` (entity summaries) or `episodes` (the stored messages), `page_size` = k (with `nodes=N`,
k - N facts and N entities), reranked by
`reranker` (Zep's default `rrf`; `cross_encoder`, `episode_mentions`).  Zep extracts the
graph with its own models, not the MODEL_SPEC's: only the answers come from the MODEL_SPEC.
`clear` deletes the user, its threads and graph (Zep does that as a task of its own, not waited
for: a namespace is never used again).  A refused key stops the run before any test in
one line.  Zep's terms of service forbid publishing benchmark results of Zep without its consent:
compare for your own choice, and read them before you publish.

Tested with zep-cloud 4.0.1 against a loopback server of the endpoints its SDK calls
(tests/support/zep_server.py), not against the hosted service.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import one_of, positive, require
from pytest_memorybench.agents.stores.dates import iso_utc, parsed_time
from pytest_memorybench.agents.stores.hosted import Unprocessed, api_key, refused
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit, Validity
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

KEY_VARIABLE = "ZEP_API_KEY"
# Zep's documented limits of `thread.add_messages` (its ingestion tool checks them client-side:
# getzep/zep ingestion/src/zep_ingest/threads.py).
MAX_MESSAGE_CHARS = 4096
MAX_MESSAGES_A_CALL = 30
_SUCCEEDED = "succeeded"
_UNFINISHED = ("pending", "processing")


@dataclass(frozen=True)
class ZepSettings:
    """What Zep's search returns (`scope`) and how it ranks it, the messages a call carries, another
    server's URL, and how often `wait` asks after a task."""

    scope: str = "edges"
    reranker: str = "rrf"
    nodes: int = 0  # with scope=edges: this many entity summaries searched beside the facts
    batch: int = 30
    url: str = ""
    poll: float = 0.5

    def __post_init__(self) -> None:
        one_of("scope", self.scope, ("edges", "nodes", "episodes"))
        one_of("reranker", self.reranker, ("rrf", "cross_encoder", "episode_mentions"))
        positive(batch=self.batch, poll=self.poll)
        require(self.nodes >= 0, f"nodes must be 0 or more, got {self.nodes}")
        require(
            not self.nodes or self.scope == "edges", "nodes is for scope=edges: entities beside the facts"
        )
        require(
            self.batch <= MAX_MESSAGES_A_CALL, f"batch must be at most {MAX_MESSAGES_A_CALL} (Zep's limit)"
        )


@dataclass(frozen=True)
class ZepUser:
    """The Zep user and thread a namespace is."""

    user: str
    thread: str


class ZepStore:
    """The SDK's client behind the store protocol; the user and thread of each namespace, and the
    tasks `wait` has still to see."""

    def __init__(self, settings: ZepSettings, key: str, timeout: float | None) -> None:
        from zep_cloud.client import Zep

        self.settings = settings
        self.client = Zep(api_key=key, base_url=settings.url or None, timeout=sdk_timeout(timeout))
        self.unprocessed = Unprocessed(settings.poll)
        self._users: dict[str, ZepUser] = {}
        self._lock = threading.Lock()

    @property
    def messages_per_add(self) -> int:
        return self.settings.batch

    def add(self, messages: list[Message], namespace: str) -> None:
        """At most `batch` messages (the harness's parts), each with its UTC `reference_time`; a
        message over Zep's 4,096 characters goes as consecutive messages of its role and time.  Each
        call carries an idempotency key made from what it adds, so a retried call, or the rest of a
        part a long message made too large for one call, is never stored twice."""
        from zep_cloud import AddMessage

        thread = self._user(namespace, create=True, named=_user_name(messages))
        assert thread is not None
        turns = [
            AddMessage(role=m.role, name=sender(m), content=piece, reference_time=iso_utc(m.timestamp))
            for m in messages
            for piece in pieces(m.text, MAX_MESSAGE_CHARS)
        ]
        for start in range(0, len(turns), MAX_MESSAGES_A_CALL):
            part = turns[start : start + MAX_MESSAGES_A_CALL]
            key = idempotency_key(namespace, [(t.role, t.name, t.reference_time, t.content) for t in part])
            added = self._call(
                self.client.thread.add_messages, thread.thread, messages=part, idempotency_key=key
            )
            if added.task is not None and added.task.uuid_:
                self.unprocessed.add(namespace, added.task.uuid_)

    def wait(self, namespace: str) -> None:
        def done(task: str) -> bool:
            found = self._call(self.client.task.get, task)
            status = str(found.status)
            if status in _UNFINISHED:
                return False
            if status != _SUCCEEDED:
                reason = f": {found.error.message}" if found.error and found.error.message else ""
                raise RuntimeError(f"Zep could not process task {task} (status {status}){reason}")
            return True

        self.unprocessed.wait(namespace, done)

    def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        user = self._user(namespace, create=False)
        if user is None:
            return []  # nothing was ever added here
        nodes = min(self.settings.nodes, k - 1)
        hits = self._search(self.settings.scope, user.user, query, k - nodes)
        return hits + (self._search("nodes", user.user, query, nodes) if nodes else [])

    def _search(self, scope: str, user: str, query: str, k: int) -> list[Hit]:
        search = getattr(self.client.graph, f"search_{scope}")
        found = self._call(search, user, query=query, page_size=k, reranker=self.settings.reranker)
        return [hit for item in (found.items or [])[:k] if (hit := _hit(item, scope))]

    def clear(self, namespace: str) -> None:
        self.unprocessed.forget(namespace)
        with self._lock:
            user = self._users.pop(namespace, None)
        if user is not None:
            self._call(self.client.user.delete, user.user)

    def _user(self, namespace: str, *, create: bool, named: str | None = None) -> ZepUser | None:
        """The namespace's user and thread, made on its first add: the user with the name of the
        benchmark's user-role speaker where it names one (Zep attaches the user's facts by it)."""
        with self._lock:
            if namespace not in self._users and create:
                name = {"first_name": named} if named else {}
                made = self._call(self.client.user.create, user_id=namespace, **name)
                thread = self._call(self.client.thread.create, user_uuid=made.uuid_)
                self._users[namespace] = ZepUser(made.uuid_, thread.uuid_)
            return self._users.get(namespace)

    @staticmethod
    def _call(method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the SDK (which retries 429s and 5xxs itself); a refused key as PermissionError,
        which the harness does not retry."""
        from zep_cloud.core.api_error import ApiError
        from zep_cloud.core.parse_error import ParsingError

        try:
            return method(*args, **kwargs)
        except (ApiError, ParsingError) as exc:  # an error whose body the SDK could not read: ParsingError
            if getattr(exc, "status_code", None) in (401, 403):
                raise refused("Zep", getattr(exc, "status_code", 401), KEY_VARIABLE) from None
            raise


def sender(message: Message) -> str:
    """A message's sender as Zep's `name`: the benchmark's speaker where it names one (LoCoMo's two
    people, the second cast in the assistant's role), else the role's."""
    return message.speaker or ("Assistant" if message.role == "assistant" else "User")


def _user_name(messages: list[Message]) -> str | None:
    """The name of the speaker in the user's role, where the benchmark names one."""
    return next((m.speaker for m in messages if m.role == "user" and m.speaker), None)


def _hit(item: Any, scope: str) -> Hit | None:
    """A fact with when it held (from `valid_at` until `invalid_at`, or until Zep expired it when a
    later fact superseded it), an entity's summary, or a stored message with its time."""
    validity = None
    if scope == "edges":
        text, when = item.fact, None
        validity = Validity(parsed_time(item.valid_at), parsed_time(item.invalid_at or item.expired_at))
    elif scope == "nodes":
        text, when = f"{item.name}: {item.summary}" if item.summary else item.name, None
    else:
        text, when = item.content, item.reference_time
    if not text:
        return None
    # The cross-encoder's relevance where it scored the result (Zep's `relevance`), else its rank score.
    score = next((v for v in (item.relevance, item.score) if isinstance(v, int | float)), None)
    return Hit(str(text), score, parsed_time(when), validity)


def pieces(text: str, most: int) -> list[str]:
    """`text` in consecutive pieces of at most `most` characters, cut at a space where one is near."""
    found = []
    while len(text) > most:
        cut = text.rfind(" ", most // 2, most + 1)
        cut = cut if cut > 0 else most
        found.append(text[:cut])
        text = text[cut:].lstrip()
    return [*found, text]


def idempotency_key(namespace: str, turns: list[tuple[Any, ...]]) -> str:
    """The same key for the same messages to the same namespace, whichever try sends them."""
    return hashlib.sha256(json.dumps([namespace, turns], default=str).encode()).hexdigest()[:32]


def _make(settings: ZepSettings, options: AgentOptions, model: AgentSpec) -> ZepStore:
    return ZepStore(settings, api_key("zep", "Zep", KEY_VARIABLE, "zep_cloud"), options.timeout)


ZEP = BuiltinStore(ZepSettings, _make)
