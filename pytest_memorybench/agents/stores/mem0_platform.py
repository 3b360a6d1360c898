"""`mem0-platform`: Mem0's hosted platform through its official client (`MemoryClient`), a user per
conversation.

    mem0-platform:openai:gpt-4o-mini                    the key from MEM0_API_KEY
    mem0-platform(infer=false):openai:gpt-4o-mini       messages stored as given, no extraction
    mem0-platform(url=http://127.0.0.1:8000):openai:…   another server (a test's)

A namespace is Mem0's `user_id`.  Each `add`, one session of the benchmark's history (the harness
adds a session a call; `profile=vendor`: two messages, to each speaker's side, `mem0.Ingestion`),
sends its messages to `/v3/memories/add/`, dated by the first one's time:
`observation_date` and `observation_datetime` (UTC), what its extraction resolves relative dates
against, and `timestamp` (Unix seconds), which backdates the memories' `created_at`; kept in the
metadata too; the platform queues the work
and answers with an event id (with `infer=false` it stores at once and answers with the results),
and memories are searchable only once that event has run.  `wait` polls each event added since the last
wait (`GET /v1/event/{id}/`, the documented status call, which the client has no method for) until
it SUCCEEDED: that time counts as ingest.  A FAILED event is a StoreError, so its items are ERRORs.
Search is the platform's (`top_k` = k, filtered by the user, as of the question's date and time:
`reference_date`), with its own minimum score (`threshold`) and `rerank` passed when set; each hit
is dated by its add's date.  A rate limit waits as long as the platform asks (`retry_after`), up
to `--mb-timeout`.  With `infer=true` (the platform's default) Mem0's own
model extracts the memories, not the MODEL_SPEC's: only the answers come from the MODEL_SPEC.
`clear` deletes the user's memories.  The client checks the key when made (`/v1/ping/`) and a
refused key stops the run before any test in one line; Mem0's telemetry is turned off.

Tested with mem0ai 2.2.1 against a loopback server of the endpoints its client calls
(tests/support/mem0_platform_server.py), not against the hosted service.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import positive, require
from pytest_memorybench.agents.stores.dates import epoch_seconds, iso_utc
from pytest_memorybench.agents.stores.hosted import Unprocessed, api_key, refused
from pytest_memorybench.agents.stores.mem0 import (
    DATE_KEY,
    Ingestion,
    check_ingestion,
    dated_hits,
    merged,
    without_telemetry,
)
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

KEY_VARIABLE = "MEM0_API_KEY"
_SUCCEEDED, _FAILED = "SUCCEEDED", "FAILED"
_PAGE = 100  # memories a page when listing them


@dataclass(frozen=True)
class Mem0PlatformSettings:
    """Whether the platform extracts memories (`infer`), its minimum score and reranking, another
    server's URL, and how often `wait` asks after an event."""

    infer: bool = True
    threshold: float = -1.0  # below 0: the platform's default
    rerank: bool = False
    url: str = ""
    poll: float = 0.5
    batch: int = 0  # messages an add; 0: a session
    sides: str = "one"  # or both: each add to each speaker's side (`mem0.Ingestion`)

    def __post_init__(self) -> None:
        require(self.threshold <= 1.0, f"threshold must be at most 1, got {self.threshold:g}")
        positive(poll=self.poll)
        check_ingestion(self.batch, self.sides)


class Mem0PlatformStore:
    """A `MemoryClient` behind the store protocol, made on first use (its key check is a request),
    and the events `wait` has still to see."""

    def __init__(self, settings: Mem0PlatformSettings, key: str, timeout: float | None) -> None:
        self.settings = settings
        self.key = key
        self.timeout = sdk_timeout(timeout)
        self.ingestion = Ingestion(settings.batch, settings.sides)
        self.unprocessed = Unprocessed(settings.poll)
        self._client: Any = None
        self._lock = threading.Lock()

    def add(self, messages: list[Message], namespace: str) -> None:
        """A session (or `batch` of it) to each user of the namespace, dated by its first message:
        the platform's `timestamp` backdates the memories' `created_at` and feeds its ranking by
        time, its observation dates are what its extraction resolves "yesterday" against (v3 add,
        read in `timezone`); the metadata keeps each add's date for the hits whatever the platform
        does with it."""
        when = messages[0].timestamp
        options: JsonObject = {
            "infer": self.settings.infer,
            "timestamp": epoch_seconds(when),
            "observation_date": f"{when:%Y-%m-%d}",
            "observation_datetime": iso_utc(when),
            "timezone": "UTC",
            "metadata": {DATE_KEY: iso_utc(when)},
        }
        for user, turns in self.ingestion.turns(messages, namespace):
            queued = self._call(
                lambda client, user=user, turns=turns: client.add(turns, user_id=user, **options)
            )
            for event in _events(queued):
                self.unprocessed.add(namespace, event)

    @property
    def messages_per_add(self) -> int | None:
        return self.ingestion.messages_per_add

    def wait(self, namespace: str) -> None:
        def done(event: str) -> bool:
            status: str = self._call(lambda client: _event_status(client, event))
            if status == _FAILED:
                raise RuntimeError(f"Mem0 could not process event {event} (status {_FAILED})")
            return status == _SUCCEEDED

        self.unprocessed.wait(namespace, done)

    def search(self, query: str, namespace: str, k: int, asked_at: datetime | None = None) -> list[Hit]:
        """The platform's search of each user of the namespace as of the question's date and time
        (`reference_date`: "simulate searching at a specific date"), each hit dated by its
        metadata's date or its backdated `created_at`."""
        options: JsonObject = {"top_k": k}
        if asked_at is not None:
            options["reference_date"] = iso_utc(asked_at)
        if self.settings.threshold >= 0:
            options["threshold"] = self.settings.threshold
        if self.settings.rerank:
            options["rerank"] = True
        found = [
            self._call(lambda client, user=user: client.search(query, filters={"user_id": user}, **options))
            for user in self.ingestion.users(namespace)
        ]
        return merged([dated_hits(hits) for hits in found])

    def stored(self, namespace: str) -> list[str]:
        """Every memory of the namespace's users, a page of `_PAGE` at a time (`POST /v3/memories/`)."""
        texts: list[str] = []
        for user in self.ingestion.users(namespace):
            for page in itertools.count(1):
                options = {"filters": {"user_id": user}, "page": page, "page_size": _PAGE}
                found = self._call(lambda client, options=options: client.get_all(**options))
                hits = dated_hits(found)
                texts += [hit.text for hit in hits]
                if len(hits) < _PAGE:
                    break
        return texts

    def clear(self, namespace: str) -> None:
        from mem0.exceptions import MemoryNotFoundError

        self.unprocessed.forget(namespace)
        for user in self.ingestion.users(namespace):
            try:
                self._call(lambda client, user=user: client.delete_all(user_id=user))
            except MemoryNotFoundError:  # a user with no memories: already clear
                pass

    def close(self) -> None:
        if self._client is not None:
            self._client.client.close()

    def _call(self, call: Any) -> Any:
        """`call(client)`, with a refused key as PermissionError, which the harness does not retry;
        a rate limit or a server error is retried by the harness (the client does not retry)."""
        from mem0.exceptions import AuthenticationError

        try:
            return call(self._made())
        except AuthenticationError as exc:
            raise refused(
                "Mem0", getattr(exc, "debug_info", {}).get("status_code", 401), KEY_VARIABLE
            ) from None

    def _made(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = _client(self.key, self.settings.url, self.timeout)
            return self._client


def _client(key: str, url: str, timeout: float) -> Any:
    """A `MemoryClient`, whose making checks the key (`/v1/ping/`) and says only "Error: …" when that
    fails: the status, seen on the way, tells a refused key (never retried) from a busy server."""
    import httpx
    from mem0.client.main import MemoryClient

    statuses: list[int] = []
    http = httpx.Client(
        timeout=timeout, event_hooks={"response": [lambda response: statuses.append(response.status_code)]}
    )
    try:
        return MemoryClient(api_key=key, host=url or None, client=http)
    except ValueError as exc:
        http.close()
        if statuses and statuses[-1] in (401, 403):
            raise refused("Mem0", statuses[-1], KEY_VARIABLE) from None
        raise RuntimeError(f"Mem0's key check failed: {exc}") from None


def _events(queued: Any) -> list[str]:
    """The event ids an add answered with: `event_id`, or one per item of `results`."""
    if not isinstance(queued, dict):
        return []
    if queued.get("event_id"):
        return [str(queued["event_id"])]
    return [
        str(item["event_id"])
        for item in queued.get("results", ())
        if isinstance(item, dict) and item.get("event_id")
    ]


def _event_status(client: Any, event: str) -> str:
    response = client.client.get(f"/v1/event/{event}/")
    if response.status_code in (401, 403):
        raise refused("Mem0", response.status_code, KEY_VARIABLE)
    response.raise_for_status()
    return str(response.json().get("status", ""))


def _make(settings: Mem0PlatformSettings, options: AgentOptions, model: AgentSpec) -> Mem0PlatformStore:
    without_telemetry("mem0-platform")
    return Mem0PlatformStore(settings, api_key("mem0-platform", "Mem0", KEY_VARIABLE), options.timeout)


MEM0_PLATFORM = BuiltinStore(Mem0PlatformSettings, _make)
