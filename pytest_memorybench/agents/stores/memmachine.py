"""`memmachine`: MemMachine's episodic and profile memory through its client, a project a conversation.

    memmachine(url=http://localhost:8080):openai:gpt-4o-mini    a MemMachine server you run
    memmachine(profile=vendor,url=…):openai:…                    as MemMachine's own LoCoMo harness runs it

Each conversation is a MemMachine project (org `memorybench`, the namespace as its project id),
made on its first add.  Each `add`, one session of the benchmark's history, is one request of
MemMachine's `POST /api/v2/memories` holding the session's messages, each its own episode: its text
as `content`, its speaker (else its role) as `producer`, its role, and its simulated time as
`timestamp` (what MemMachine dates an episode by, its `created_at`).  The client's own
`Memory.add` sends one message a request; MemMachine's LoCoMo harness adds a session's messages in
one, and a batch keeps their order where their times tie, so the store sends the client's own
request models (`AddMemoriesSpec`, `MemoryMessage`) through the client's session
(`MemMachineClient.request`).  `memory=episodic|semantic` stores a message in one of MemMachine's
two memories only (`types`); by default in both, as MemMachine does.

Episodes are stored when the add returns; profile ("semantic") memory is extracted from them in
the background, and MemMachine reports no status for it.  So `wait` asks for the project's profile
features until their count has not changed for `settle` seconds and three readings (how Redis's
harness waits for a product that extracts later: until the count stops changing), bounded by
`--mb-timeout`.  MemMachine extracts a project's messages
once at least five are waiting (its `ingestion_trigger_messages`) or the oldest has waited five
minutes: the last few messages of a conversation may reach the profile only after the wait.

Search is the client's `Memory.search`, `top_k` = k: its long-term episodes, then its short-term
(the newest) episodes not among them, each a hit dated by its `created_at`, then its profile
features (`tag: name = value`), each dated by the newest episode it cites (`get_feature` with
citations, the episodes this store added) where it cites one.  That is the order and content of
the client's own `format_search_result`; the harness cuts the list to k.  The short-term memory's
summary, which that formatting leaves out, is left out too.  `stored()` lists the project's
episodes and features; `clear` deletes the project.  The server's version (its health check) is
recorded with the run.  MemMachine extracts and reranks with its own models, which the run does
not see.  Tested with memmachine-client 0.4.0 against a loopback server of the endpoints it calls
(tests/support/memmachine_server.py), and against a real memmachine-server 0.4.0 on SQLite
(tests/support/memmachine_service.py; it needs Python 3.12, so an environment of its own).
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import one_of, positive, require
from pytest_memorybench.agents.stores.dates import in_utc, naive_utc
from pytest_memorybench.agents.stores.hosted import refused, require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

KEY_VARIABLE = "MEMMACHINE_API_KEY"
LOCAL = "http://localhost:8080"
ORG = "memorybench"  # the MemMachine organisation every project of a run is made in
PAGE = 100  # the listing's page size (the server's default)
READINGS = 3  # the profile's count read alike this often, besides for `settle` seconds, before `wait` ends
_TYPES = {
    "both": [],
    "episodic": ["episodic"],
    "semantic": ["semantic"],
}  # [] is both, as MemMachine reads it


@dataclass(frozen=True)
class MemMachineSettings:
    """Which of MemMachine's memories a message goes to (`memory`), how many episodes around each
    long-term hit MemMachine adds (`expand_context`), whether its retrieval agent searches
    (`agent_mode`), the server's URL, and how `wait` watches the profile extraction: every `poll`
    seconds, until the features' count has held for `settle` seconds."""

    memory: str = "both"
    expand_context: int = 0
    agent_mode: bool = False
    url: str = LOCAL
    poll: float = 0.5
    settle: float = 10.0

    def __post_init__(self) -> None:
        one_of("memory", self.memory, tuple(_TYPES))
        require(self.expand_context >= 0, f"expand_context must be 0 or more, got {self.expand_context}")
        positive(poll=self.poll, settle=self.settle)


class MemMachineStore:
    """The client behind the store protocol, the projects it made and the episodes it added."""

    def __init__(self, settings: MemMachineSettings, key: str | None, timeout: float | None) -> None:
        from memmachine_client import MemMachineClient

        self.settings = settings
        # The client logs every failed request with its traceback before raising it; the harness
        # reports each failure itself, in one line (a StoreError, or the check's usage error).
        logging.getLogger("memmachine_client").setLevel(logging.CRITICAL)
        # The harness retries and bounds each call (`--mb-timeout`): the client's own retries off,
        # its per-request timeout no shorter than the harness's.
        self.client = MemMachineClient(
            api_key=key, base_url=settings.url, timeout=int(sdk_timeout(timeout)), max_retries=0
        )
        self.server_version: str | None = None
        self._projects: set[str] = set()
        self._said: dict[str, dict[str, datetime]] = {}  # namespace -> episode uid -> its time

    def add(self, messages: list[Message], namespace: str) -> None:
        from memmachine_common.api.spec import AddMemoriesResponse, AddMemoriesSpec, MemoryMessage

        if self.server_version is None:  # recorded with the run, as the service says it
            health = self._call(self.client.health_check)
            self.server_version = f"memmachine-server {health.get('version', '?')}"
        if namespace not in self._projects:
            self._call(
                self.client.get_or_create_project,
                org_id=ORG,
                project_id=namespace,
                description="a pytest-memorybench conversation",
            )
            self._projects.add(namespace)
        spec = AddMemoriesSpec(
            org_id=ORG,
            project_id=namespace,
            types=_TYPES[self.settings.memory],
            messages=[
                MemoryMessage(
                    content=message.text,
                    producer=message.speaker or message.role,
                    role=message.role,
                    timestamp=in_utc(message.timestamp),
                    metadata={"session": message.session} if message.session else {},
                )
                for message in messages
            ],
        )
        response = self._call(
            self.client.request,
            "POST",
            f"{self.settings.url.rstrip('/')}/api/v2/memories",
            json=spec.model_dump(mode="json", exclude_unset=True),
        )
        self._call(response.raise_for_status)  # `request` hands back any status, as requests does
        added = AddMemoriesResponse(**response.json()).results
        if len(added) != len(messages):
            raise RuntimeError(
                f"MemMachine answered {len(added)} episode ids for {len(messages)} messages"
                f" (project {namespace})"
            )
        said = self._said.setdefault(namespace, {})
        for result, message in zip(added, messages, strict=True):
            said[str(result.uid)] = message.timestamp

    def wait(self, namespace: str) -> None:
        """Until the profile's feature count has held for `settle` seconds and `READINGS` readings
        (MemMachine reports no status for its extraction)."""
        if namespace not in self._projects or self.settings.memory == "episodic":
            return
        count, since, readings = self._feature_count(namespace), time.monotonic(), 1
        while readings < READINGS or time.monotonic() - since < self.settings.settle:
            time.sleep(self.settings.poll)
            now = self._feature_count(namespace)
            if now != count:
                count, since, readings = now, time.monotonic(), 1
            else:
                readings += 1

    def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        if namespace not in self._projects:
            return []
        memory = self._memory(namespace)
        found = self._call(
            memory.search,
            query,
            limit=k,
            expand_context=self.settings.expand_context,
            agent_mode=self.settings.agent_mode,
        ).content
        hits, seen = [], set()
        episodic = found.episodic_memory
        if episodic is not None:
            for episode in [*episodic.long_term_memory.episodes, *episodic.short_term_memory.episodes]:
                if episode.uid not in seen:
                    seen.add(episode.uid)
                    hits.append(_episode_hit(episode))
        said = self._said.get(namespace, {})
        for feature in found.semantic_memory or []:
            hits.append(Hit(_feature_text(feature), None, self._cited(memory, feature, said)))
        return hits

    def stored(self, namespace: str) -> list[str]:
        """The project's episodes and profile features, every page of each."""
        from memmachine_common.api import MemoryType

        if namespace not in self._projects:
            return []
        memory = self._memory(namespace)
        texts: list[str] = []
        for kind in (MemoryType.Episodic, MemoryType.Semantic):
            for page in range(1_000_000):
                content = self._call(memory.list, memory_type=kind, page_size=PAGE, page_num=page).content
                episodes, features = content.episodic_memory or [], content.semantic_memory or []
                texts += [_episode_hit(episode).text for episode in episodes]
                texts += [_feature_text(feature) for feature in features]
                if len(episodes) + len(features) < PAGE:
                    break
        return texts

    def clear(self, namespace: str) -> None:
        import requests
        from memmachine_client import Project

        try:
            self._call(Project(self.client, ORG, namespace).delete)
        except requests.HTTPError as exc:
            if exc.response is None or exc.response.status_code != 404:
                raise
            # a project never made: already clear
        self._projects.discard(namespace)
        self._said.pop(namespace, None)

    def close(self) -> None:
        self.client.close()

    def _memory(self, namespace: str) -> Any:
        from memmachine_client import Project

        return Project(self.client, ORG, namespace).memory()

    def _feature_count(self, namespace: str) -> int:
        from memmachine_common.api import MemoryType

        memory, count = self._memory(namespace), 0
        for page in range(1_000_000):
            found = self._call(memory.list, memory_type=MemoryType.Semantic, page_size=PAGE, page_num=page)
            features = found.content.semantic_memory or []
            count += len(features)
            if len(features) < PAGE:
                return count
        return count

    def _cited(self, memory: Any, feature: Any, said: dict[str, datetime]) -> datetime | None:
        """When the newest episode a feature cites was said, of those this store added."""
        if feature.metadata.id is None:
            return None
        cited = self._call(memory.get_feature, feature.metadata.id, load_citations=True)
        times = (
            [said[str(uid)] for uid in (cited.metadata.citations or []) if str(uid) in said] if cited else []
        )
        return max(times, default=None)

    @staticmethod
    def _call(method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the client; a refused key as PermissionError, which the harness does not retry."""
        import requests

        try:
            return method(*args, **kwargs)
        except requests.HTTPError as exc:
            status = exc.response.status_code if exc.response is not None else None
            if status in (401, 403):
                raise refused("MemMachine", status, KEY_VARIABLE) from None
            raise


def _episode_hit(episode: Any) -> Hit:
    """An episode as a hit: its producer's line, dated by when it was said."""
    text = episode.content
    if not text.startswith(f"{episode.producer_id}: "):
        text = f"{episode.producer_id}: {text}"
    return Hit(text, getattr(episode, "score", None), naive_utc(episode.created_at))


def _feature_text(feature: Any) -> str:
    """A profile feature as MemMachine groups them for a model (`{tag: {name: value}}`), one line."""
    return f"{feature.tag}: {feature.feature_name} = {feature.value}"


def _make(settings: MemMachineSettings, options: AgentOptions, model: AgentSpec) -> MemMachineStore:
    require_package("memmachine", "memmachine_client")
    return MemMachineStore(settings, os.environ.get(KEY_VARIABLE) or None, options.timeout)


MEMMACHINE = BuiltinStore(MemMachineSettings, _make)
