"""`vertex`: Google's Vertex AI Agent Engine Memory Bank through its official SDK, a scope per conversation.

    vertex(engine=1234567890):openai:gpt-4o-mini        an Agent Engine of GOOGLE_CLOUD_PROJECT
    vertex(engine=projects/P/locations/L/reasoningEngines/ID):openai:…   named in full
    vertex(profile=vendor,engine=…):openai:…             as Redis's harness runs it

Memory Bank lives in an Agent Engine you made with Memory Bank enabled (the store makes none: an
engine is billed while it exists); `engine` names it.  The credentials are the SDK's own:
Application Default Credentials (`gcloud auth application-default login`, or
GOOGLE_APPLICATION_CREDENTIALS), the project from `project=`, GOOGLE_CLOUD_PROJECT or the
credentials, the location from `location=`, GOOGLE_CLOUD_LOCATION or `us-central1`.

Each conversation is a Memory Bank scope, `{"user_id": namespace}`.  Each `add`, one session of the
benchmark's history, is one `generate` from direct contents: the session's date first ("These
messages were said on …": Memory Bank's events carry no time, so its extraction model reads the
date there, as Redis's harness gives it), then the session's messages (`user`, or `model` for the
assistant, each with one speaker label), and the session's time as the memories' metadata
(`said_at`, merged into a memory a later session consolidates, so it carries the newest session
that changed it).  The generate is a long-running operation: the next `add` of the conversation
and `wait` poll it until done (an error is an ERROR), for as long as it takes, bounded only by
`--mb-timeout`; sessions so reach Memory Bank's consolidation in order.  Search is Memory Bank's
similarity search in the scope, `top_k` = k (the service returns at most 100), each memory's fact
a hit dated by its `said_at`.  `stored()` lists the scope's memories; `clear` purges them.
Memory Bank extracts and consolidates with Google's model (the engine's `generation_config`),
which the run does not see; the engine's generation and embedding models are recorded with the run
as the service's version.  Tested with google-cloud-aiplatform 2.7.0 (google-genai 2.34) against a
loopback server of the endpoints its SDK calls (tests/support/vertex_server.py), not against
Vertex AI itself.
"""

from __future__ import annotations

import importlib
import os
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.mechanisms.settings import positive
from pytest_memorybench.agents.stores.dates import SAID_ON, iso_utc, parsed_time
from pytest_memorybench.agents.stores.hosted import Unprocessed, require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

PROJECT_VARIABLE, LOCATION_VARIABLE = "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"
LOCATION = "us-central1"  # the SDK's examples' and Redis's harness's default
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]  # what the SDK asks ADC for
SAID_AT = "said_at"  # the memories' metadata key for the session's time
PAGE = 100  # the largest page Memory Bank serves
_AIOHTTP_SUBCLASS = "Inheritance class AiohttpClientSession from ClientSession is discouraged"
_ROLES = {"assistant": "model"}  # Gemini's content roles are `user` and `model`
_CREDENTIALS = (
    "gcloud auth application-default login, or GOOGLE_APPLICATION_CREDENTIALS (Application Default"
    " Credentials)"
)


@dataclass(frozen=True)
class VertexSettings:
    """The Agent Engine (its ID or resource name), the project and location when not the
    environment's, another endpoint (`url`), and how often an operation is asked after."""

    engine: str = ""
    project: str = ""
    location: str = ""
    url: str = ""
    poll: float = 0.5

    def __post_init__(self) -> None:
        positive(poll=self.poll)


class VertexStore:
    """The SDK's async memories client behind the store protocol, and the operations to wait for."""

    def __init__(self, settings: VertexSettings, engine: str, client: Any) -> None:
        self.settings = settings
        self.engine = engine
        self.client = client
        self.unprocessed = Unprocessed(settings.poll)
        self.server_version: str | None = None

    async def add(self, messages: list[Message], namespace: str) -> None:
        if self.server_version is None:
            self.server_version = await self._version()
        await self.wait(namespace)  # the conversation's earlier sessions consolidated first
        when = messages[0].timestamp
        said = SAID_ON.format(date=f"{when:%Y-%m-%d %H:%M}")
        events = [_event("user", said)] + [
            _event(_ROLES.get(message.role, "user"), message.labelled()) for message in messages
        ]
        operation = await self._call(
            self.client.aio.agent_engines.memories.generate,
            name=self.engine,
            direct_contents_source={"events": events},
            scope=scope(namespace),
            config={
                "wait_for_completion": False,
                "metadata": {SAID_AT: {"timestamp_value": iso_utc(when)}},
                "metadata_merge_strategy": "MERGE",
            },
        )
        _check(operation, namespace)
        if not operation.done:
            self.unprocessed.add(namespace, operation.name)

    async def wait(self, namespace: str) -> None:
        async def done(name: str) -> bool:
            operation = await self._call(
                self.client.aio.agent_engines.memories._get_generate_memories_operation, operation_name=name
            )
            _check(operation, namespace)
            return bool(operation.done)

        await self.unprocessed.await_each(namespace, done)

    async def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        found = await self._call(
            self.client.aio.agent_engines.memories.retrieve,
            name=self.engine,
            scope=scope(namespace),
            similarity_search_params={"search_query": query, "top_k": k},
        )
        return [_hit(item.memory) async for item in found if item.memory is not None and item.memory.fact]

    async def stored(self, namespace: str) -> list[str]:
        pages = await self._call(
            self.client.aio.agent_engines.memories.list,
            name=self.engine,
            config={"filter": _scoped(namespace), "page_size": PAGE},
        )
        return [memory.fact async for memory in pages if memory.fact]

    async def clear(self, namespace: str) -> None:
        self.unprocessed.forget(namespace)
        await self._call(
            self.client.aio.agent_engines.memories.purge,
            name=self.engine,
            filter=_scoped(namespace),
            force=True,
            config={"wait_for_completion": True},
        )

    async def aclose(self) -> None:
        await self.client.aio.aclose()

    async def _version(self) -> str:
        """The engine's memory models, as the service says them: what its memories depend on."""
        import asyncio

        engine = await asyncio.to_thread(self._call_sync, self.client.agent_engines.get, name=self.engine)
        spec = engine.api_resource.context_spec
        bank = spec.memory_bank_config if spec is not None else None
        generation = bank.generation_config if bank is not None else None
        search = bank.similarity_search_config if bank is not None else None
        model = (generation.model if generation else None) or "its default"
        embeddings = (search.embedding_model if search else None) or "its default"
        return (
            f"Vertex AI Memory Bank (generation {model.rsplit('/', 1)[-1]},"
            f" embeddings {embeddings.rsplit('/', 1)[-1]})"
        )

    async def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the SDK; refused credentials as PermissionError, which the harness does not
        retry, and a missing engine in one line."""
        from google.auth.exceptions import RefreshError
        from google.genai.errors import ClientError

        try:
            return await method(*args, **kwargs)
        except RefreshError as exc:
            raise _refused(str(exc.args[0] if exc.args else exc)) from None
        except ClientError as exc:
            raise self._error(exc) from None

    def _call_sync(self, method: Any, **kwargs: Any) -> Any:
        from google.auth.exceptions import RefreshError
        from google.genai.errors import ClientError

        try:
            return method(**kwargs)
        except RefreshError as exc:
            raise _refused(str(exc.args[0] if exc.args else exc)) from None
        except ClientError as exc:
            raise self._error(exc) from None

    def _error(self, exc: Any) -> Exception:
        if exc.code in (401, 403):
            return _refused(f"HTTP {exc.code}: {exc.message or exc.status}")
        if exc.code == 404:
            return LookupError(
                f"Vertex AI has no Agent Engine {self.engine} (HTTP 404): give engine= the ID or name of"
                " an Agent Engine with Memory Bank in this project and location"
            )
        return RuntimeError(f"Vertex AI answered HTTP {exc.code}: {exc.message or exc.status}")


def scope(namespace: str) -> dict[str, str]:
    """The Memory Bank scope of a namespace: a user per conversation, as Redis's harness isolates."""
    return {"user_id": namespace}


def _scoped(namespace: str) -> str:
    """A list and purge filter for the namespace's scope (Memory Bank's `scope.KEY="VALUE"`)."""
    return f'scope.user_id="{namespace}"'


def _event(role: str, text: str) -> dict[str, Any]:
    return {"content": {"role": role, "parts": [{"text": text}]}}


def _check(operation: Any, namespace: str) -> None:
    if operation.error:
        error = operation.error
        message = error.get("message") if isinstance(error, dict) else None
        raise RuntimeError(
            f"Vertex AI could not generate memories for {namespace} ({operation.name}: {message or error})"
        )


def _hit(memory: Any) -> Hit:
    """A memory's fact, dated by the session that last changed it (its `said_at`)."""
    said = (memory.metadata or {}).get(SAID_AT)
    return Hit(memory.fact, None, parsed_time(said.timestamp_value if said is not None else None))


def _refused(why: str) -> PermissionError:
    return PermissionError(f"Vertex AI refused the credentials ({why}): check {_CREDENTIALS}")


def engine_name(engine: str, project: str, location: str) -> str:
    """The engine's resource name: as given in full, else made from its ID."""
    if engine.startswith("projects/"):
        return engine
    return f"projects/{project}/locations/{location}/reasoningEngines/{engine.rsplit('/', 1)[-1]}"


def _make(settings: VertexSettings, options: AgentOptions, model: AgentSpec) -> VertexStore:
    with warnings.catch_warnings():  # the SDK's own deprecations on import, none of the run's business
        warnings.simplefilter("ignore", DeprecationWarning)
        require_package("vertex", "vertexai")
        import google.auth
        from google.auth.exceptions import DefaultCredentialsError

    if not settings.engine:
        raise usage_error(
            "--agent vertex:…: give engine=ID (or its projects/…/reasoningEngines/ID name): the Agent"
            " Engine with Memory Bank to use; the store makes none"
        )
    try:  # as the SDK reads them, once, so a missing one is a line now and not an error per item
        credentials, found_project = google.auth.default(scopes=SCOPES)
    except DefaultCredentialsError as exc:
        why = str(exc).split(". ")[0]
        raise usage_error(f"--agent vertex:…: no Google Cloud credentials ({why}): {_CREDENTIALS}") from None
    project = settings.project or os.environ.get(PROJECT_VARIABLE) or found_project
    if not project and not settings.engine.startswith("projects/"):
        raise usage_error(
            f"--agent vertex:…: set {PROJECT_VARIABLE} (or project=) to your Google Cloud project"
        )
    location = settings.location or os.environ.get(LOCATION_VARIABLE) or LOCATION
    options_http = {"base_url": settings.url} if settings.url else None
    with warnings.catch_warnings():  # 2.7.0 names agentplatform.Client its successor (Memory Bank's
        warnings.simplefilter("ignore", FutureWarning)  # docs and Redis's harness use this one), and
        warnings.simplefilter("ignore", DeprecationWarning)  # its modules deprecate on import
        import vertexai

        for module in ("vertexai._genai.agent_engines", "vertexai._genai.memories"):
            importlib.import_module(module)  # its lazy modules, imported here where warnings are quiet

        client = vertexai.Client(
            project=project, location=location, credentials=credentials, http_options=options_http
        )
    # google-genai defines its aiohttp session class on the first async request, and aiohttp warns
    # about it then: a warning of the SDK's, no concern of the run's.
    warnings.filterwarnings("ignore", _AIOHTTP_SUBCLASS, DeprecationWarning)
    return VertexStore(settings, engine_name(settings.engine, project or "", location), client)


VERTEX = BuiltinStore(VertexSettings, _make)
