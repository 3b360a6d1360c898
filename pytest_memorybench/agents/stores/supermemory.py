"""`supermemory`: Supermemory's hosted memory through its official SDK, a namespace per conversation.

    supermemory:openai:gpt-4o-mini                        the key from SUPERMEMORY_API_KEY
    supermemory(search_mode=memories):openai:gpt-4o-mini  learned memories only
    supermemory(url=http://127.0.0.1:8787):openai:…       another server (self-hosted, or a test's)

Each `add`, one session of the benchmark's history (the harness adds a session a call), becomes
one document in the conversation's namespace (Supermemory's own isolation unit): its messages a
line each, `[time] role: text`, dated by the first (`date`, UTC with its offset, kept in the
document's metadata too).  A hit is dated by when it was said: its document's date, from the
temporal context Supermemory gives a memory or from the document's metadata; the date of the event a
memory tells of (`eventDate`), where Supermemory resolved one, is shown apart, labelled `about`.  Supermemory
accepts a document at once and processes it afterwards (`status` queued → … → done) and forms
memories from it later still (`dreamingStatus`, minutes later under its default `dynamic`
dreaming; `dreaming=instant` forms them at once and is billed one more operation a document).
`wait` polls each document added since the last wait with the documented GET until both are done:
that time counts as ingest.  A document that fails is a StoreError, so its items are ERRORs, never
scores.  Search is the product's own (`hybrid`: memories and source chunks) with `limit` = k;
`search_mode`, `threshold` and `rerank` are passed under the product's names when set.
Supermemory extracts memories with its own model, not the MODEL_SPEC's: only the answers come
from the MODEL_SPEC.  `clear` deletes the namespace.  A refused key (401 / 403) is not retried and
stops the run before any test, in one line (the store's health check).

Tested with supermemory 5.0.1 against a loopback server of the endpoints its SDK calls
(tests/support/supermemory_server.py), not against the hosted service.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import one_of, positive, require
from pytest_memorybench.agents.stores.dates import iso_utc, parsed_time
from pytest_memorybench.agents.stores.hosted import Unprocessed, api_key, refused
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

KEY_VARIABLE = "SUPERMEMORY_API_KEY"
_FAILED = "failed"
_DONE = "done"
_DATE = "date"  # the metadata key a document's date is kept under


@dataclass(frozen=True)
class SupermemorySettings:
    """Supermemory's search surface, minimum score and reranking, its dreaming mode, another server's
    URL, and how often `wait` asks after a document."""

    search_mode: str = "hybrid"
    threshold: float = -1.0  # below 0: the product's default
    rerank: str = ""  # order or aggregate; empty: none
    dreaming: str = "dynamic"
    url: str = ""
    poll: float = 0.5

    def __post_init__(self) -> None:
        one_of("search_mode", self.search_mode, ("hybrid", "memories", "chunks"))
        one_of("dreaming", self.dreaming, ("dynamic", "instant"))
        one_of("rerank", self.rerank, ("", "order", "aggregate"))
        require(self.threshold <= 1.0, f"threshold must be at most 1, got {self.threshold:g}")
        positive(poll=self.poll)


class SupermemoryStore:
    """The SDK's client behind the store protocol, and the documents `wait` has still to see."""

    def __init__(self, settings: SupermemorySettings, key: str, timeout: float | None) -> None:
        from supermemory import Supermemory

        self.settings = settings
        self.client = Supermemory(api_key=key, base_url=settings.url or None, timeout=sdk_timeout(timeout))
        self.unprocessed = Unprocessed(settings.poll)

    def add(self, messages: list[Message], namespace: str) -> None:
        """One session a document (the harness adds a session a call), dated by its first message:
        Supermemory's `date` is when the content is from, and the metadata keeps it for the hits."""
        lines = [
            f"[{message.timestamp:%Y-%m-%d %H:%M}] {message.role}: {message.text}" for message in messages
        ]
        when = iso_utc(messages[0].timestamp)
        ref = self._call(
            self.client.add,
            namespace,
            content="\n".join(lines),
            date=when,
            metadata={_DATE: when},
            dreaming=self.settings.dreaming,
        )
        self.unprocessed.add(namespace, ref.id)

    def wait(self, namespace: str) -> None:
        def done(document: str) -> bool:
            system = self._call(self.client.documents.get, namespace, document).system
            status, dreaming = str(system.status), str(getattr(system, "dreaming_status", _DONE))
            if _FAILED in (status, dreaming):
                raise RuntimeError(f"Supermemory could not process document {document} (status {status})")
            return status == _DONE and dreaming == _DONE

        self.unprocessed.wait(namespace, done)

    def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        options: JsonObject = {"search_mode": self.settings.search_mode}
        if self.settings.threshold >= 0:
            options["threshold"] = self.settings.threshold
        if self.settings.rerank:
            options["rerank"] = self.settings.rerank
        found = self._call(self.client.search, namespace, query=query, limit=k, **options)
        return [
            Hit(text, float(result.similarity), _said(result.metadata), about=_event(result.metadata))
            for result in found.results
            if (text := result.memory or result.chunk)
        ]

    def clear(self, namespace: str) -> None:
        from supermemory.core.api_error import ApiError

        self.unprocessed.forget(namespace)
        try:
            self._call(self.client.namespaces.delete, namespace)
        except ApiError as exc:
            if exc.status_code != 404:  # a namespace never written to: already clear
                raise

    @staticmethod
    def _call(method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the SDK (which retries 429s and 5xxs itself); a refused key as PermissionError,
        which the harness does not retry."""
        from supermemory.core.api_error import ApiError

        try:
            return method(*args, **kwargs)
        except ApiError as exc:
            if exc.status_code in (401, 403):
                raise refused("Supermemory", exc.status_code, KEY_VARIABLE) from None
            raise


def _said(metadata: Any) -> datetime | None:
    """When a hit's content was said: its document's date as Supermemory's temporal context gives it
    for a memory, else the date its document was added with."""
    return _metadata_date(metadata, "documentDate", _DATE)


def _event(metadata: Any) -> datetime | None:
    """The date of the event a memory tells of, where Supermemory resolved one (`eventDate`): shown
    apart from when it was said, as supermemoryai/memorybench's prompt shows both."""
    return _metadata_date(metadata, "eventDate")


def _metadata_date(metadata: Any, *keys: str) -> datetime | None:
    """The first of `keys` with a time, in the temporal context of a hit's metadata, then in the
    metadata itself."""
    if not isinstance(metadata, dict):
        return None
    temporal = metadata.get("temporalContext")
    places = [temporal, metadata] if isinstance(temporal, dict) else [metadata]
    for place in places:
        for key in keys:
            if when := parsed_time(place.get(key)):
                return when
    return None


def _make(settings: SupermemorySettings, options: AgentOptions, model: AgentSpec) -> SupermemoryStore:
    key = api_key("supermemory", "Supermemory", KEY_VARIABLE, "supermemory")
    return SupermemoryStore(settings, key, options.timeout)


SUPERMEMORY = BuiltinStore(SupermemorySettings, _make)
