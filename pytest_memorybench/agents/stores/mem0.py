"""`mem0`: Mem0's open-source library (`mem0ai`) in process, on an embedded vector store.

    mem0:openai:gpt-4o-mini                       extraction by gpt-4o-mini, OpenAI's embeddings
    mem0(infer=false):openai:NAME@URL             messages stored as given, embedded by the server
    mem0:openai:NAME@URL --mb-embedder openai:nomic-embed-text@URL2

Each store object is one `Memory` with its own Qdrant collection in a folder of its own (Qdrant's
local, embedded mode: no server) and its own history database; a namespace is Mem0's `user_id`.
Mem0 works with two models of its own: its LLM, which with `infer=true` (Mem0's default) turns
each batch of messages into memories (one extraction call per `add` in the 2.x pipeline), and its
embedder.  Both are pointed at the MODEL_SPEC's model and server, so the store extracts with the
same model the harness answers with; `--mb-embedder openai:MODEL[@URL]` names another embedder
(without it, the MODEL_SPEC's server embeds with its model, or OpenAI's `text-embedding-3-small`).
`threshold` is Mem0's own minimum score for a hit (its default, 0.1).  Each `add` is one session of
the benchmark's history (`profile=vendor`: two messages, to each speaker's side, see `Ingestion`),
its date kept in the memories' metadata (each hit is dated by it); with `infer=true` the session's
date is the extraction prompt's "Observation Date" and "Current Date", so "yesterday" resolves
against the session and the prompt holds no date of today's.  The library has no parameter for it
(its `timestamp` is platform-only and refused), so the store hands the date to Mem0's own prompt
builder, which takes both (`generate_additive_extraction_prompt`), for the calls its add makes.
Search is Mem0's semantic search alone: its keyword half needs `mem0ai[nlp]` and spaCy's
`en_core_web_sm` model, which this extra does not install.  Mem0's telemetry is turned off.  Tested
with mem0ai 2.2.1; its configuration names changed across 0.x, 1.x and 2.x.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import threading
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.mechanisms.settings import one_of, require
from pytest_memorybench.agents.stores.dates import iso_utc, parsed_time
from pytest_memorybench.agents.stores.endpoints import Endpoint, openai_endpoints
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit, as_hit
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

DATE_KEY = "date"  # the metadata key each memory's date is kept under
LIST_ALL = 1_000_000  # get_all's top_k when every memory is wanted
# The session date of the add running in this thread (an add's extraction runs in its caller's
# thread), which Mem0's prompt builder is given as its Observation Date and Current Date.
_OBSERVED: ContextVar[str | None] = ContextVar("mem0_observed", default=None)


OTHER_SIDE = "-other"  # the user id of the second speaker's side (`sides=both`): namespace + this


@dataclass(frozen=True)
class Mem0Settings:
    """Whether Mem0 extracts memories with its LLM (`infer`), its minimum hit score, and how what
    the harness adds goes in (`batch`, `sides`: see `Ingestion`)."""

    infer: bool = True
    threshold: float = 0.1
    batch: int = 0
    sides: str = "one"

    def __post_init__(self) -> None:
        require(0.0 <= self.threshold <= 1.0, f"threshold must be between 0 and 1, got {self.threshold:g}")
        check_ingestion(self.batch, self.sides)


def check_ingestion(batch: int, sides: str) -> None:
    """One line for a `batch` or `sides` a Mem0 store cannot take."""
    require(batch >= 0, f"batch must be 0 (a session a call) or more, got {batch}")
    one_of("sides", sides, ("one", "both"))


class Ingestion:
    """How a Mem0 store takes a session in.  On the equal terms (`batch=0`, `sides=one`): a session
    an add, to the namespace's user, so the extraction sees a whole exchange with its date and makes
    about as many model calls as other stores' ingestion.  As Mem0's own published LoCoMo harness
    did it (`profile=vendor`: mem0ai/mem0 evaluation/src/memzero/add.py): `batch=2` messages an
    add, and `sides=both`: each add made twice, to one user per speaker, the roles swapped for the
    second (each speaker's side of the conversation); search asks both users and merges their hits
    by score."""

    def __init__(self, batch: int, sides: str) -> None:
        self.batch = batch
        self.sides = sides

    @property
    def messages_per_add(self) -> int | None:
        return self.batch or None

    def users(self, namespace: str) -> list[str]:
        """The Mem0 users a namespace is: one, or one a speaker's side."""
        return [namespace, namespace + OTHER_SIDE] if self.sides == "both" else [namespace]

    def turns(self, messages: list[Message], namespace: str) -> list[tuple[str, list[dict[str, str]]]]:
        """Each user's add of `messages`: the messages as given, and, for the other side, with user
        and assistant swapped."""
        given = [{"role": m.role, "content": m.text} for m in messages]
        swapped = [{**turn, "role": _SWAP.get(turn["role"], turn["role"])} for turn in given]
        return list(zip(self.users(namespace), [given, swapped], strict=False))


_SWAP = {"user": "assistant", "assistant": "user"}


def merged(found: list[list[Hit]]) -> list[Hit]:
    """The hits of several users' searches as one list, highest score first (each user's order kept
    among equals)."""
    return sorted((hit for hits in found for hit in hits), key=lambda hit: -(hit.score or 0.0))


class Mem0Store:
    """A Mem0 `Memory` behind the store protocol; made on first use, in the thread that uses it."""

    def __init__(self, settings: Mem0Settings, llm: Endpoint, embedder: Endpoint) -> None:
        self.settings = settings
        self.ingestion = Ingestion(settings.batch, settings.sides)
        self.llm = llm
        self.embedder = embedder
        self.folder = Path(tempfile.mkdtemp(prefix="memorybench-mem0-"))
        self._memory: Any = None
        self._lock = threading.Lock()
        self._per_token = False  # the embedder gives a vector per token (llama.cpp serving a chat model)
        self._size: int | None = None

    def add(self, messages: list[Message], namespace: str) -> None:
        """A session (or `batch` of it) to each user of the namespace, its date in the memories'
        metadata, as Mem0's own LoCoMo evaluation keeps it; with extraction, the date is also the
        extraction prompt's Observation Date and Current Date (`dated_extraction`)."""
        when = messages[0].timestamp
        memory = self._mem0()
        observed = _OBSERVED.set(f"{when:%Y-%m-%d}")
        try:
            for user, turns in self.ingestion.turns(messages, namespace):
                memory.add(turns, user_id=user, infer=self.settings.infer, metadata={DATE_KEY: iso_utc(when)})
        finally:
            _OBSERVED.reset(observed)

    @property
    def messages_per_add(self) -> int | None:
        return self.ingestion.messages_per_add

    def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        threshold = self.settings.threshold
        return merged(
            [
                dated_hits(
                    self._mem0().search(query, top_k=k, filters={"user_id": user}, threshold=threshold)
                )
                for user in self.ingestion.users(namespace)
            ]
        )

    def stored(self, namespace: str) -> list[str]:
        """Every memory of the namespace's users (`get_all`, which returns its `top_k` at most)."""
        return [
            hit.text
            for user in self.ingestion.users(namespace)
            for hit in dated_hits(self._mem0().get_all(filters={"user_id": user}, top_k=LIST_ALL))
        ]

    def clear(self, namespace: str) -> None:
        for user in self.ingestion.users(namespace):
            self._mem0().delete_all(user_id=user)

    def close(self) -> None:
        if self._memory is not None:
            client = getattr(getattr(self._memory, "vector_store", None), "client", None)
            if client is not None and hasattr(client, "close"):
                client.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _mem0(self) -> Any:
        with self._lock:
            if self._memory is None:
                from mem0 import Memory

                self._memory = Memory.from_config(self._config())
                if self._per_token:
                    self._memory.embedding_model = PooledEmbedding(self._memory.embedding_model)
            return self._memory

    def _config(self) -> JsonObject:
        return {
            "llm": {"provider": "openai", "config": self.llm.config("openai_base_url")},
            "embedder": {
                "provider": "openai",
                "config": {**self.embedder.config("openai_base_url"), "embedding_dims": self._dimensions()},
            },
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "memorybench",
                    "path": str(self.folder / "qdrant"),
                    "embedding_model_dims": self._dimensions(),
                    "on_disk": True,
                },
            },
            "history_db_path": str(self.folder / "history.db"),
        }

    def _dimensions(self) -> int:
        """The embedder's vector size, asked once: Qdrant's collection is made for one size."""
        if self._size is None:
            import openai

            from pytest_memorybench.agents.mechanisms.embedders import pooled

            endpoint = self.embedder
            with openai.OpenAI(api_key=endpoint.api_key, base_url=endpoint.base_url, max_retries=2) as client:
                vector = client.embeddings.create(model=self.embedder.model, input=["size"]).data[0].embedding
            self._per_token = bool(vector) and isinstance(vector[0], list)
            self._size = len(pooled(vector))
        return self._size


def dated_hits(found: Any) -> list[Hit]:
    """Mem0's memories (the library's and the platform's answers, `{"results": [...]}`) as hits, each
    dated by the date its add kept in the metadata, else by its `created_at` (which the platform
    backdates to the add's `timestamp`; the library's adds always keep a date)."""
    results = found.get("results", []) if isinstance(found, dict) else found
    hits = []
    for result in results or ():
        if isinstance(result, dict) and result.get("memory"):
            metadata = result.get("metadata")
            kept = metadata.get(DATE_KEY) if isinstance(metadata, dict) else None
            when = parsed_time(kept) or parsed_time(result.get("created_at"))
            hits.append(dataclasses.replace(as_hit(result), timestamp=when))
    return hits


def dated_extraction() -> None:
    """Mem0's extraction prompt dated by the add's session: the library builds it with
    `generate_additive_extraction_prompt`, which takes the Observation Date (`timestamp`) and the
    Current Date (`current_date`) but is called with neither, so both default to today.  The name
    its `main` module calls is wrapped (once per process) to pass the session's date for both
    while one of our adds runs, and to change nothing for any other caller."""
    import mem0.memory.main as main

    build = main.generate_additive_extraction_prompt
    if getattr(build, "dated_by_session", False):
        return

    def dated(*args: Any, **kwargs: Any) -> Any:
        day = _OBSERVED.get()
        if day is not None:
            kwargs.setdefault("timestamp", day)
            kwargs.setdefault("current_date", day)
        return build(*args, **kwargs)

    dated.dated_by_session = True  # type: ignore[attr-defined]
    main.generate_additive_extraction_prompt = dated


def without_telemetry(store: str) -> None:
    """Mem0 off the network (the library's and the platform client's analytics): its telemetry reads
    MEM0_TELEMETRY once, at import, into module constants; with it on, every `Memory` also opens one
    shared Qdrant folder (~/.mem0), which a second store in the process finds locked.  Set before
    the import, and after one made elsewhere."""
    os.environ["MEM0_TELEMETRY"] = "False"
    try:
        import mem0.memory.main
        import mem0.memory.telemetry
    except ImportError:
        raise usage_error(
            f"--agent {store}:…: the mem0ai package is not installed;"
            f" pip install 'pytest-memorybench[{store}]'"
        ) from None
    for module in (mem0.memory.main, mem0.memory.telemetry):
        module.MEM0_TELEMETRY = False


class PooledEmbedding:
    """Mem0's embedder for a server without pooling (llama.cpp serving a chat model), which returns a
    vector per token: their mean stands for the text, as for the memory systems' endpoint embedder."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.config = inner.config

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        from pytest_memorybench.agents.mechanisms.embedders import pooled

        return [float(x) for x in pooled(self.inner.embed(text, memory_action))]

    def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
        return [self.embed(text, memory_action) for text in texts]


def _make(settings: Mem0Settings, options: AgentOptions, model: AgentSpec) -> Mem0Store:
    without_telemetry("mem0")
    dated_extraction()
    llm, embedder = openai_endpoints("mem0", "Mem0", model, options)
    return Mem0Store(settings, llm, embedder)


MEM0 = BuiltinStore(Mem0Settings, _make)
