"""`cognee`: Cognee's memory (`add` → `cognify` → `search`) in process on its local default stack,
a dataset per conversation.

    cognee:openai:gpt-4o-mini                          chunks found by vector search (CHUNKS)
    cognee(search_type=summaries):openai:NAME@URL      Cognee's summaries of them
    cognee(document=batch):openai:NAME@URL             one document per batch of messages
    cognee(structured_output=json_object,max_tokens=300):openai:smollm2@http://127.0.0.1:8765/v1
                                                       its schemas held by llama-cpp-python's grammar

Cognee keeps its data on files: a relational database (SQLite), a vector store (LanceDB) and a
graph store, under a folder of the run's (`SYSTEM_ROOT_DIRECTORY` and `DATA_ROOT_DIRECTORY`, unless
you set them).  A namespace is a Cognee dataset; with Cognee's access control (its default) each
dataset has databases of its own, so conversations never see each other's memories.  `add` hands
Cognee each message as a document (`[time] role: text`; `document=batch` makes each batch one);
`wait` runs `cognify` on the dataset, which chunks the documents, summarises each chunk and
extracts a knowledge graph from it with its LLM, and embeds them: that is the run's ingest time,
and a failed `cognify` is a StoreError, so its items are ERRORs.  Search is Cognee's, over the
dataset, `top_k` = k, of the type `search_type` names (`chunks`, Cognee's vector search over the
chunks; `summaries`; `chunks_lexical`; `graph_completion` and `hybrid_completion`, what Cognee's own
evaluation and its default search use, asked for the context the completion would get
(`only_context`): each of its connections, the facts, is a hit (a superseded one marked so, as
Cognee marks it), followed by the content of the nodes it joins, in Cognee's order).

Cognee's LLM and embedder are the MODEL_SPEC's, as for Mem0 and Graphiti (`stores/endpoints.py`):
through litellm, as an OpenAI-compatible endpoint where the spec has a URL, and an embedder of
`dimensions` dimensions.  Cognee asks for its structured output (summaries, the graph) in
OpenAI's `json_schema` form where litellm knows the model takes it, else as a JSON object with the
schema in the prompt, which nothing holds a small model to; `structured_output=json_object` asks
through Instructor's JSON-schema mode and sends the schema as `{"type": "json_object", "schema": …}`,
the form llama-cpp-python's server holds its sampling to.  `max_tokens` caps each reply (through
Cognee's `LLM_ARGS`; Cognee allows 16,384).  The tokens of the calls litellm makes (the LLM's) are the store's
`usage`; Cognee's embedding calls to an OpenAI-compatible server, made with its own OpenAI client,
are not counted.  Cognee's
telemetry is turned off, and its log kept to errors, unless you set `TELEMETRY_DISABLED` and
`LOG_LEVEL` yourself.

Cognee's settings are the process's: one store per process, whose calls run on one event loop of
its own (Cognee's database engines belong to the loop that made them).  Cognee 1.6.5 pins
`openai<3` (through litellm), `filelock<4` and `tokenizers<=0.23.0`: install the `cognee` extra in
an environment of its own.  Tested with cognee 1.6.5 on the scripted model server
(tests/agents/test_stores_cognee.py).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Coroutine, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_memorybench.agents.mechanisms.settings import one_of, positive, require
from pytest_memorybench.agents.stores.endpoints import (
    Endpoint,
    count_usage,
    openai_endpoints,
)
from pytest_memorybench.agents.stores.hosted import require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Message, Usage

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

SEARCH_TYPES = ("chunks", "summaries", "chunks_lexical", "graph_completion", "hybrid_completion")
# The search types that answer with a completion: asked for the context the completion would get
# (`only_context`), which the harness's answerer then answers from, as from every store's hits.
CONTEXT_TYPES = ("graph_completion", "hybrid_completion")
_T = TypeVar("_T")


@dataclass(frozen=True)
class CogneeSettings:
    """What Cognee's search returns, what a document is, the embedder's width, and how its LLM is
    asked for structured output."""

    search_type: str = "chunks"
    document: str = "message"
    dimensions: int = 1536
    structured_output: str = "native"
    max_tokens: int = 0  # 0: Cognee's own limit

    def __post_init__(self) -> None:
        one_of("search_type", self.search_type, SEARCH_TYPES)
        one_of("document", self.document, ("message", "batch"))
        one_of("structured_output", self.structured_output, ("native", "json_object"))
        positive(dimensions=self.dimensions)
        require(self.max_tokens >= 0, f"max_tokens must be 0 (Cognee's own) or more, got {self.max_tokens}")


class _Loop:
    """One event loop in a thread of its own, for every Cognee call of the process."""

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None
    schema_in_json_object = False  # the newest store's structured_output is json_object
    session: Any = None  # litellm's httpx client, counting tokens into `usage`

    @classmethod
    def run(cls, coroutine: Coroutine[Any, Any, _T], charged: Usage | None = None) -> _T:
        """`coroutine` on the loop; the LLM calls it makes are charged to `charged` (the calling
        store's usage: each call's own, however many stores run at once)."""
        with cls._lock:
            if cls._loop is None:
                cls._loop = asyncio.new_event_loop()
                threading.Thread(target=cls._loop.run_forever, name="cognee", daemon=True).start()
        return asyncio.run_coroutine_threadsafe(_charging(charged, coroutine), cls._loop).result()


class CogneeStore:
    """Cognee behind the store protocol: a dataset per namespace; `wait` cognifies what was added."""

    def __init__(self, settings: CogneeSettings, llm: Endpoint, embedder: Endpoint) -> None:
        self.settings = settings
        self.usage = Usage()
        self._added: set[str] = set()  # datasets with documents
        self._uncognified: set[str] = set()
        self._lock = threading.Lock()
        _Loop.run(self._configure(llm, embedder))

    async def _configure(self, llm: Endpoint, embedder: Endpoint) -> None:
        import cognee
        import litellm
        from cognee.infrastructure.llm.config import get_llm_config

        from pytest_memorybench.agents.stores.cognee_http import counting_session

        remote = llm.base_url is not None
        held = self.settings.structured_output == "json_object"
        config: JsonObject = {
            "llm_provider": "custom" if remote else "openai",
            "llm_model": f"openai/{llm.model}" if remote else llm.model,
            "llm_endpoint": llm.base_url or "",
            "llm_api_key": llm.api_key or os.environ.get("OPENAI_API_KEY", ""),
        }
        if held:  # otherwise Cognee's own framework (STRUCTURED_OUTPUT_FRAMEWORK, litellm_native)
            config |= {"structured_output_framework": "instructor", "llm_instructor_mode": "json_schema_mode"}
        if self.settings.max_tokens:  # what every completion call merges in (Cognee's LLM_ARGS)
            config["llm_args"] = {**(get_llm_config().llm_args or {}), "max_tokens": self.settings.max_tokens}
        cognee.config.set_llm_config(config)
        cognee.config.set_embedding_config(
            {
                "embedding_provider": "openai_compatible" if embedder.base_url else "openai",
                "embedding_model": embedder.model,
                "embedding_endpoint": embedder.base_url or "",
                "embedding_api_key": embedder.api_key or os.environ.get("OPENAI_API_KEY", ""),
                "embedding_dimensions": self.settings.dimensions,
            }
        )
        # litellm's OpenAI-compatible calls go through one client of the process (litellm caches
        # the clients it makes with it), whose hook counts their tokens into the usage of the store
        # whose call made them and whose transport sends a schema in the form the newest store's
        # settings say.
        _Loop.schema_in_json_object = held
        if _Loop.session is None or litellm.aclient_session is not _Loop.session:
            _Loop.session = counting_session(_count, lambda: _Loop.schema_in_json_object)
            litellm.aclient_session = _Loop.session

    def add(self, messages: list[Message], namespace: str) -> None:
        import cognee

        lines = [f"[{m.timestamp:%Y-%m-%d %H:%M}] {m.role}: {m.text}" for m in messages]
        documents = lines if self.settings.document == "message" else ["\n".join(lines)]
        _Loop.run(cognee.add(documents, dataset_name=namespace), self.usage)
        with self._lock:
            self._added.add(namespace)
            self._uncognified.add(namespace)

    def wait(self, namespace: str) -> None:
        import cognee

        with self._lock:
            if namespace not in self._uncognified:
                return
        _Loop.run(cognee.cognify(datasets=[namespace]), self.usage)
        with self._lock:
            self._uncognified.discard(namespace)

    def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        import cognee
        from cognee import SearchType

        if namespace not in self._added:
            return []  # nothing was ever added here
        kind = SearchType[self.settings.search_type.upper()]
        context = self.settings.search_type in CONTEXT_TYPES
        found = _Loop.run(
            cognee.search(
                query_text=query, query_type=kind, datasets=[namespace], top_k=k, only_context=context
            ),
            self.usage,
        )
        if context:
            return [Hit(text) for item in _results(found) for text in context_pieces(str(item))][:k]
        return [hit for item in _results(found)[:k] if (hit := _hit(item))]

    def clear(self, namespace: str) -> None:
        with self._lock:
            if namespace not in self._added:
                return
            self._added.discard(namespace)
            self._uncognified.discard(namespace)
        _Loop.run(_delete_dataset(namespace), self.usage)


_CHARGED: ContextVar[Usage | None] = ContextVar("cognee_charged", default=None)


async def _charging(usage: Usage | None, coroutine: Coroutine[Any, Any, _T]) -> _T:
    _CHARGED.set(usage)  # this task's (and the tasks it starts): the calling store's
    return await coroutine


async def _count(response: Any) -> None:
    usage = _CHARGED.get()
    if usage is not None:
        await count_usage(usage, response)


async def _delete_dataset(name: str) -> None:
    import cognee

    for dataset in await cognee.datasets.list_datasets():
        if dataset.name == name:
            await cognee.datasets.empty_dataset(dataset.id)


def _results(found: Any) -> list[Any]:
    """The hits of a search: Cognee wraps them per dataset under access control."""
    results: list[Any] = []
    for item in found or ():
        if isinstance(item, dict) and "search_result" in item:
            found = item["search_result"]
            results.extend([found] if isinstance(found, str) else found or ())  # a context is one text
        else:
            results.append(item)
    return results


_NODE = re.compile(r"^Node: (.*?)\n__node_content_start__\n(.*?)\n__node_content_end__", re.S | re.M)
_CONNECTIONS = "\n\nConnections:\n"
_ARROW = " --["


def context_pieces(context: str) -> list[str]:
    """The graph context Cognee's completion would get, as hits: each connection (`A --[rel]--> B
    (what it says)`, a superseded fact marked so and last, as Cognee writes them: the facts), in
    Cognee's order, each followed by the content of the nodes it connects that no earlier hit showed
    (a message's chunk, an entity's description); nodes no connection names, after.  Each text once;
    a context of another form is one hit."""
    nodes_part, _, connections = context.partition(_CONNECTIONS)
    contents = {name.strip(): content.strip() for name, content in _NODE.findall(nodes_part)}
    pieces: list[str] = []
    for line in filter(None, (line.strip() for line in connections.splitlines())):
        pieces += [line, *(contents.get(name, "") for name in _ends(line, contents))]
    pieces += contents.values()
    kept = dict.fromkeys(piece for piece in pieces if piece and piece != "None")
    return list(kept) or [context]


def _ends(line: str, names: dict[str, str]) -> list[str]:
    """The names of the two nodes a connection line joins: the longest node name each end starts
    with (a node's name may hold brackets of its own)."""
    longest = sorted(names, key=len, reverse=True)
    source = next((name for name in longest if line.startswith(name + _ARROW)), None)
    if source is None:
        return []
    rest = line[len(source) + len(_ARROW) :].partition("]--> ")[2]
    target = next((name for name in longest if rest.startswith(name)), None)
    return [source] if target is None else [source, target]


def _hit(item: Any) -> Hit | None:
    """A chunk's or summary's text (Cognee's score is a distance: the order says the rank)."""
    text = item.get("text") if isinstance(item, dict) else item if isinstance(item, str) else None
    return Hit(str(text)) if text else None


@contextlib.contextmanager
def _process_logging_kept() -> Iterator[None]:
    """Importing Cognee sets up the process's logging: it replaces the root logger's handlers
    (pytest's capture among them), lets every record through (NOTSET) and installs an exception
    hook.  The run's own are put back, so a failed item's report is not thousands of DEBUG lines
    of every library; Cognee's console handler stays, at its LOG_LEVEL."""
    root = logging.getLogger()
    level, handlers, hook = root.level, list(root.handlers), sys.excepthook
    try:
        yield
    finally:
        root.setLevel(level)
        for handler in handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        sys.excepthook = hook


def _prepare_environment() -> None:
    """Cognee reads these when imported: its files in a folder of the run's (removed at exit), no
    telemetry, a quiet log; a value the user set is kept."""
    if "SYSTEM_ROOT_DIRECTORY" not in os.environ:
        root = tempfile.mkdtemp(prefix="memorybench-cognee-")
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        os.environ["SYSTEM_ROOT_DIRECTORY"] = os.path.join(root, "system")
        os.environ.setdefault("DATA_ROOT_DIRECTORY", os.path.join(root, "data"))
    os.environ.setdefault("TELEMETRY_DISABLED", "1")
    os.environ.setdefault("LOG_LEVEL", "ERROR")
    os.environ.setdefault("COGNEE_LOG_FILE", "false")


def _make(settings: CogneeSettings, options: AgentOptions, model: AgentSpec) -> CogneeStore:
    _prepare_environment()
    with _process_logging_kept():
        require_package("cognee", "cognee")
    llm, embedder = openai_endpoints("cognee", "Cognee", model, options)
    return CogneeStore(settings, llm, embedder)


COGNEE = BuiltinStore(CogneeSettings, _make)
