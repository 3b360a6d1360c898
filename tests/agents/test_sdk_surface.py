"""Every SDK method, keyword and field the store adapters use exists in the version the extras pin.

An adapter that calls a method an SDK renamed, passes a keyword it dropped, or reads a field it no
longer returns fails only against the live product, which the default tests never reach (they run
against loopback fakes).  So each adapter's use of its SDK is listed here, call by call as the
adapter makes it (the object, the positional arguments, the keywords), and checked against the
installed SDK by its signatures and models; a test per adapter module also reads the module's own
source and fails when it reaches into the SDK client (`self.client.…`, `client.…`) by a path this
list does not name, so a new call cannot go unchecked.  The installed versions must be the ones
pyproject's extras pin: the check is of those versions.  An SDK that is not installed is skipped
(Cognee lives in an environment of its own: run this file there too).
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest
import tomllib
from packaging.requirements import Requirement

from tests.support.mem0_platform_server import ADD_PARAMETERS, SEARCH_PARAMETERS

ROOT = Path(__file__).resolve().parents[2]
STORES = ROOT / "pytest_memorybench" / "agents" / "stores"
NOWHERE = "http://127.0.0.1:9"


def _supermemory() -> Any:
    from supermemory import Supermemory

    return Supermemory(api_key="k", base_url=NOWHERE)


def _zep() -> Any:
    from zep_cloud.client import Zep

    return Zep(api_key="k", base_url=NOWHERE)


def _letta() -> Any:
    from letta_client import Letta

    return Letta(base_url=NOWHERE, api_key="k")


def _hindsight() -> Any:
    from hindsight_client import Hindsight

    return Hindsight(base_url=NOWHERE, api_key="k", max_attempts=1)


def _redis_ams() -> Any:
    from agent_memory_client import MemoryAPIClient, MemoryClientConfig

    return MemoryAPIClient(MemoryClientConfig(base_url=NOWHERE))


def _evermemos() -> Any:
    from evermemos import AsyncEverMemOS

    return AsyncEverMemOS(api_key="k", base_url=NOWHERE, max_retries=0)


def _everos() -> Any:
    from everos_cloud import EverOS

    return EverOS(api_key="k", host=NOWHERE, timeout=1)


def _vertex() -> Any:
    import warnings

    import vertexai
    from google.auth.credentials import AnonymousCredentials

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return vertexai.Client(
            project="p",
            location="us-central1",
            credentials=AnonymousCredentials(),
            http_options={"base_url": NOWHERE},
        )


def _memobase() -> Any:
    from memobase import MemoBaseClient

    return MemoBaseClient(api_key="k", project_url=NOWHERE)


def _module(name: str) -> Callable[[], Any]:
    return lambda: importlib.import_module(name)


# The object each path starts from: the SDK's client as the adapter makes it, or a module.
ROOTS: dict[str, Callable[[], Any]] = {
    "supermemory": _supermemory,
    "zep": _zep,
    "letta": _letta,
    "hindsight": _hindsight,
    "redis-ams": _redis_ams,
    "evermemos": _evermemos,
    "vertex": _vertex,
    "everos": _everos,
    "memobase": _memobase,
}


@dataclass(frozen=True)
class Call:
    """A call an adapter makes: `path` from its root (a ROOTS client, or `module:attribute.path`),
    with `positional` arguments and these `keywords`; `through` names the parameters a method that
    takes **kwargs sends on to the service (checked against them instead of its signature)."""

    adapter: str
    path: str
    positional: int = 0
    keywords: tuple[str, ...] = ()
    through: frozenset[str] | None = None

    @property
    def id(self) -> str:
        return f"{self.adapter}:{self.path}"


@dataclass(frozen=True)
class Fields:
    """Fields an adapter reads from (or sets on) an SDK model: `model` as `module:Class`."""

    adapter: str
    model: str
    fields: tuple[str, ...]


CALLS = [
    # supermemory 5.0.1 (stores/supermemory.py)
    Call("supermemory", "supermemory:Supermemory", 0, ("api_key", "base_url", "timeout")),
    Call("supermemory", "add", 1, ("content", "date", "metadata", "dreaming")),
    Call("supermemory", "documents.get", 2),
    Call("supermemory", "search", 1, ("query", "limit", "search_mode", "threshold", "rerank")),
    Call("supermemory", "namespaces.delete", 1),
    # zep-cloud 4.0.1 (stores/zep.py)
    Call("zep", "zep_cloud.client:Zep", 0, ("api_key", "base_url", "timeout")),
    Call("zep", "zep_cloud:AddMessage", 0, ("role", "name", "content", "reference_time")),
    Call("zep", "thread.add_messages", 1, ("messages", "idempotency_key")),
    Call("zep", "thread.create", 0, ("user_uuid",)),
    Call("zep", "task.get", 1),
    Call("zep", "user.create", 0, ("user_id", "first_name")),
    Call("zep", "user.delete", 1),
    *(
        Call("zep", f"graph.search_{scope}", 1, ("query", "page_size", "reranker"))
        for scope in ("edges", "nodes", "episodes")
    ),
    # letta-client 1.12.1 (stores/letta.py)
    Call("letta", "letta_client:Letta", 0, ("base_url", "api_key", "timeout")),
    Call(
        "letta",
        "agents.create",
        0,
        ("name", "memory_blocks", "tags", "model", "embedding", "llm_config", "embedding_config"),
    ),
    Call("letta", "agents.delete", 1),
    Call("letta", "agents.messages.create", 1, ("messages",)),
    Call("letta", "agents.passages.create", 1, ("text", "created_at")),
    Call("letta", "agents.passages.search", 1, ("query", "top_k")),
    Call("letta", "agents.passages.list", 1, ("limit", "ascending", "after")),
    Call("letta", "conversations.fork", 1, ("agent_id",)),
    Call("letta", "conversations.messages.create", 1, ("messages",)),
    Call("letta", "conversations.delete", 1),
    Call("letta", "close"),
    # mem0ai 2.2.1, the library (stores/mem0.py)
    Call("mem0", "mem0:Memory.from_config", 1),
    Call("mem0", "mem0:Memory.add", 2, ("user_id", "infer", "metadata")),
    Call("mem0", "mem0:Memory.search", 2, ("top_k", "filters", "threshold")),
    Call("mem0", "mem0:Memory.get_all", 1, ("filters", "top_k")),
    Call("mem0", "mem0:Memory.delete_all", 1, ("user_id",)),
    # the prompt builder its add calls, which the store dates (`dated_extraction`)
    Call(
        "mem0",
        "mem0.memory.main:generate_additive_extraction_prompt",
        0,
        (
            "existing_memories",
            "new_messages",
            "last_k_messages",
            "custom_instructions",
            "timestamp",
            "current_date",
        ),
    ),
    # mem0ai 2.2.1, the platform's client (stores/mem0_platform.py): its add and search send their
    # keywords on as the request body, so they are checked against the OpenAPI's parameters
    Call("mem0-platform", "mem0.client.main:MemoryClient", 0, ("api_key", "host", "client")),
    Call(
        "mem0-platform",
        "mem0.client.main:MemoryClient.add",
        2,
        ("user_id", "infer", "timestamp", "observation_date", "observation_datetime", "timezone", "metadata"),
        frozenset(ADD_PARAMETERS),
    ),
    Call(
        "mem0-platform",
        "mem0.client.main:MemoryClient.search",
        2,
        ("filters", "top_k", "reference_date", "threshold", "rerank"),
        frozenset(SEARCH_PARAMETERS),
    ),
    Call("mem0-platform", "mem0.client.main:MemoryClient.get_all", 1, ("filters", "page", "page_size")),
    Call("mem0-platform", "mem0.client.main:MemoryClient.delete_all", 1, ("user_id",)),
    # graphiti-core 0.31.2 on Kùzu 0.11.3 (stores/graphiti.py)
    Call(
        "graphiti", "graphiti_core:Graphiti", 0, ("graph_driver", "llm_client", "embedder", "cross_encoder")
    ),
    Call(
        "graphiti",
        "graphiti_core:Graphiti.add_episode",
        1,
        ("name", "episode_body", "source_description", "reference_time", "source"),
    ),
    Call("graphiti", "graphiti_core:Graphiti.search_", 2, ("config",)),
    Call("graphiti", "graphiti_core:Graphiti.close", 1),
    Call("graphiti", "graphiti_core.driver.kuzu_driver:KuzuDriver", 0, ("db",)),
    Call("graphiti", "graphiti_core.driver.kuzu_driver:KuzuDriver.execute_query", 2),
    Call("graphiti", "graphiti_core.graph_queries:get_fulltext_indices", 1),
    Call(
        "graphiti",
        "graphiti_core.search.search_config:EpisodeSearchConfig",
        0,
        ("search_methods", "reranker"),
    ),
    Call("graphiti", "graphiti_core.search.search_config:SearchConfig", 0, ("episode_config",)),
    Call(
        "graphiti",
        "graphiti_core.llm_client.config:LLMConfig",
        0,
        ("api_key", "model", "small_model", "base_url", "temperature"),
    ),
    Call(
        "graphiti",
        "graphiti_core.llm_client.openai_generic_client:OpenAIGenericClient",
        0,
        ("config", "client"),
    ),
    Call(
        "graphiti",
        "graphiti_core.cross_encoder.openai_reranker_client:OpenAIRerankerClient",
        0,
        ("config", "client"),
    ),
    # mcp 2.x (stores/mcp.py)
    Call("mcp", "mcp:ClientSession", 2),
    Call("mcp", "mcp:ClientSession.initialize", 1),
    Call("mcp", "mcp:ClientSession.list_tools", 1),
    Call("mcp", "mcp:ClientSession.call_tool", 3),
    Call("mcp", "mcp:StdioServerParameters", 0, ("command", "args", "env", "cwd")),
    Call("mcp", "mcp.client.stdio:stdio_client", 1, ("errlog",)),
    # memobase 0.0.27 (stores/memobase.py)
    Call("memobase", "memobase:MemoBaseClient", 0, ("api_key", "project_url")),
    Call("memobase", "memobase:MemoBaseClient.get_or_create_user", 2),
    Call("memobase", "memobase:MemoBaseClient.get_user", 2, ("no_get",)),
    Call("memobase", "memobase:MemoBaseClient.delete_user", 2),
    Call("memobase", "memobase:ChatBlob", 0, ("messages",)),
    Call("memobase", "memobase.core.entry:User.insert", 2, ("sync",)),
    Call("memobase", "memobase.core.entry:User.flush", 1, ("sync",)),
    Call(
        "memobase",
        "memobase.core.entry:User.context",
        1,
        ("max_token_size", "chats", "event_similarity_threshold"),
    ),
    Call("memobase", "memobase.core.entry:User.profile", 1, ("max_token_size",)),
    Call("memobase", "memobase.core.entry:User.event", 1, ("topk",)),
    # honcho-ai 2.7.0 (stores/honcho.py)
    Call("honcho", "honcho:Honcho", 0, ("api_key", "base_url", "workspace_id", "timeout")),
    Call("honcho", "honcho:Honcho.peer", 2),
    Call("honcho", "honcho:Honcho.session", 2),
    Call("honcho", "honcho:Honcho.queue_status", 1),
    Call("honcho", "honcho:Honcho.search", 2, ("limit",)),
    Call("honcho", "honcho:Honcho.delete_workspace", 2),
    Call("honcho", "honcho:Peer.message", 2, ("created_at",)),
    Call("honcho", "honcho:Peer.chat", 2, ("reasoning_level",)),
    Call("honcho", "honcho:Session.add_messages", 2),
    # hindsight-client 1.1.0 (stores/hindsight.py)
    Call("hindsight", "hindsight_client:Hindsight", 0, ("base_url", "api_key", "max_attempts", "timeout")),
    Call("hindsight", "aget_version"),
    Call("hindsight", "acreate_bank", 1, ("name", "enable_observations")),
    Call("hindsight", "aretain_batch", 0, ("bank_id", "items", "retain_async")),
    Call("hindsight", "operations.get_operation_status", 0, ("bank_id", "operation_id")),
    Call(
        "hindsight",
        "arecall",
        0,
        ("bank_id", "query", "budget", "max_tokens", "query_timestamp", "include_chunks", "max_chunk_tokens"),
    ),
    Call("hindsight", "alist_memories", 0, ("bank_id", "limit", "offset")),
    Call("hindsight", "adelete_bank", 1),
    Call("hindsight", "aclose"),
    # agent-memory-client 0.14.0 (stores/redis_ams.py)
    Call("redis-ams", "agent_memory_client:MemoryAPIClient", 1),
    Call("redis-ams", "agent_memory_client:MemoryClientConfig", 0, ("base_url", "timeout")),
    Call("redis-ams", "agent_memory_client.models:MemoryMessage", 0, ("role", "content", "created_at")),
    Call(
        "redis-ams",
        "agent_memory_client.models:WorkingMemory",
        0,
        ("session_id", "namespace", "user_id", "messages"),
    ),
    Call("redis-ams", "put_working_memory", 2, ("user_id",)),
    Call("redis-ams", "get_working_memory", 1, ("user_id", "namespace")),
    Call("redis-ams", "list_sessions", 0, ("limit", "offset", "namespace", "user_id")),
    Call("redis-ams", "delete_working_memory", 1, ("namespace", "user_id")),
    Call("redis-ams", "search_long_term_memory", 0, ("text", "namespace", "user_id", "limit", "offset")),
    Call("redis-ams", "delete_long_term_memories", 1),
    Call("redis-ams", "_client.get", 1),  # the client's httpx client: its token, the OpenAPI document
    Call("redis-ams", "_client.headers.update", 1),
    Call("redis-ams", "close"),
    Call("redis-ams", "agent_memory_client.filters:Namespace", 0, ("eq",)),
    Call("redis-ams", "agent_memory_client.filters:UserId", 0, ("eq",)),
    # bedrock-agentcore 1.25.0 (stores/agentcore.py): its session manager's and memory client's own
    # methods here; what they forward to boto3 in AGENTCORE_FORWARDED
    Call(
        "agentcore",
        "bedrock_agentcore.memory:MemorySessionManager",
        1,
        ("region_name", "boto_client_config"),
    ),
    Call("agentcore", "bedrock_agentcore.memory:MemoryClient", 0, ("region_name",)),
    Call(
        "agentcore",
        "bedrock_agentcore.memory:MemorySessionManager.search_long_term_memories",
        2,
        ("namespace_path", "top_k", "max_results"),
    ),
    Call(
        "agentcore",
        "bedrock_agentcore.memory:MemorySessionManager.list_long_term_memory_records",
        1,
        ("namespace_path", "max_results"),
    ),
    Call("agentcore", "bedrock_agentcore.memory:MemorySessionManager.list_actor_sessions", 2),
    Call(
        "agentcore",
        "bedrock_agentcore.memory:MemorySessionManager.list_events",
        3,
        ("max_results", "include_payload"),
    ),
    Call("agentcore", "bedrock_agentcore.memory:MemorySessionManager.delete_event", 4),
    Call("agentcore", "bedrock_agentcore.memory:MemoryClient.get_memory_strategies", 2),
    # memmachine-client 0.4.0 and memmachine-common 0.4.0 (stores/memmachine.py)
    Call(
        "memmachine",
        "memmachine_client:MemMachineClient",
        0,
        ("api_key", "base_url", "timeout", "max_retries"),
    ),
    Call("memmachine", "memmachine_client:MemMachineClient.health_check", 1),
    Call(
        "memmachine",
        "memmachine_client:MemMachineClient.get_or_create_project",
        1,
        ("org_id", "project_id", "description"),
    ),
    # `request` hands its keywords to requests.Session.request: the body as `json`
    Call("memmachine", "memmachine_client:MemMachineClient.request", 3, ("json",), frozenset({"json"})),
    Call("memmachine", "memmachine_client:MemMachineClient.close", 1),
    Call("memmachine", "memmachine_client:Project", 3),
    Call("memmachine", "memmachine_client:Project.memory", 1),
    Call("memmachine", "memmachine_client:Project.delete", 1),
    Call("memmachine", "memmachine_client:Memory.search", 2, ("limit", "expand_context", "agent_mode")),
    Call("memmachine", "memmachine_client:Memory.list", 1, ("memory_type", "page_size", "page_num")),
    Call("memmachine", "memmachine_client:Memory.get_feature", 2, ("load_citations",)),
    Call(
        "memmachine",
        "memmachine_common.api.spec:AddMemoriesSpec",
        0,
        ("org_id", "project_id", "types", "messages"),
    ),
    Call(
        "memmachine",
        "memmachine_common.api.spec:MemoryMessage",
        0,
        ("content", "producer", "role", "timestamp", "metadata"),
    ),
    # google-cloud-aiplatform 2.7.0 (stores/vertex.py)
    Call("vertex", "vertexai:Client", 0, ("project", "location", "credentials", "http_options")),
    Call("vertex", "google.auth:default", 0, ("scopes",)),
    Call(
        "vertex",
        "aio.agent_engines.memories.generate",
        0,
        ("name", "direct_contents_source", "scope", "config"),
    ),
    Call("vertex", "aio.agent_engines.memories._get_generate_memories_operation", 0, ("operation_name",)),
    Call("vertex", "aio.agent_engines.memories.retrieve", 0, ("name", "scope", "similarity_search_params")),
    Call("vertex", "aio.agent_engines.memories.list", 0, ("name", "config")),
    Call("vertex", "aio.agent_engines.memories.purge", 0, ("name", "filter", "force", "config")),
    Call("vertex", "agent_engines.get", 0, ("name",)),
    Call("vertex", "aio.aclose"),
    # langmem 0.0.30 over LangGraph's store (stores/langmem.py)
    Call(
        "langmem",
        "langmem:create_memory_store_manager",
        1,
        ("namespace", "store", "query_limit", "enable_deletes"),
    ),
    Call("langmem", "langgraph.store.memory:InMemoryStore", 0, ("index",)),
    Call("langmem", "langgraph.store.memory:InMemoryStore.asearch", 2, ("query", "limit")),
    Call("langmem", "langgraph.store.memory:InMemoryStore.adelete", 3),
    Call("langmem", "langchain_openai:ChatOpenAI", 0, ("model", "base_url", "api_key", "http_async_client")),
    # memu-py 1.5.1, memU's engine in process (stores/memu.py), in its own environment (Python 3.13)
    Call(
        "memu",
        "memu.app:MemoryService",
        0,
        (
            "llm_profiles",
            "blob_config",
            "database_config",
            "memorize_config",
            "retrieve_config",
        ),
    ),
    Call("memu", "memu.app:MemoryService.memorize", 1, ("resource_url", "modality", "user")),
    Call("memu", "memu.app:MemoryService.retrieve", 1, ("queries", "where")),
    Call("memu", "memu.app:MemoryService.list_memory_items", 1, ("where",)),
    Call("memu", "memu.app:MemoryService.clear_memory", 1, ("where",)),
    Call("memu", "memu.app:MemoryService.intercept_after_llm_call", 2, ("name",)),
    # cognee 1.6.5 (stores/cognee.py), in its own environment
    Call("cognee", "cognee:add", 1, ("dataset_name",)),
    Call("cognee", "cognee:cognify", 0, ("datasets",)),
    Call("cognee", "cognee:search", 0, ("query_text", "query_type", "datasets", "top_k", "only_context")),
    Call("cognee", "cognee:datasets.list_datasets"),
    Call("cognee", "cognee:datasets.empty_dataset", 1),
    Call("cognee", "cognee:config.set_llm_config", 1),
    Call("cognee", "cognee:config.set_embedding_config", 1),
    Call("cognee", "cognee.infrastructure.llm.config:get_llm_config"),
    # evermemos 0.3.13 (stores/evermemos.py): its search and listing take their parameters as the
    # request's query (`extra_query`), which the client sends as given
    Call("evermemos", "evermemos:AsyncEverMemOS", 0, ("api_key", "base_url", "max_retries", "timeout")),
    Call(
        "evermemos",
        "v0.memories.add",
        0,
        ("content", "create_time", "message_id", "sender", "role", "group_id", "flush"),
    ),
    Call("evermemos", "v0.status.request.get", 0, ("request_id",)),
    Call("evermemos", "v0.memories.search", 0, ("extra_query",)),
    Call("evermemos", "v0.memories.get", 0, ("extra_query",)),
    Call("evermemos", "v0.memories.delete", 0, ("group_id",)),
    Call("evermemos", "close"),
    # everos-cloud 1.2.0 (stores/everos.py), in memU's environment (Python 3.12 or later): the
    # generated API the client exposes (`memory`, `tasks`), whose calls take the request model
    Call("everos", "everos_cloud:EverOS", 0, ("api_key", "host", "timeout")),
    Call("everos", "memory.add_memory", 1, ("_request_timeout",)),
    Call("everos", "memory.flush_memory_with_http_info", 1, ("_request_timeout",)),
    Call("everos", "memory.search_memory", 1, ("_request_timeout",)),
    Call("everos", "memory.get_memory", 1, ("_request_timeout",)),
    Call("everos", "memory.delete_memory", 1, ("_request_timeout",)),
    Call("everos", "tasks.get_task_status", 1, ("_request_timeout",)),
    Call("everos", "memory.api_client.param_serialize", 0, ("method", "resource_path")),
    Call("everos", "memory.api_client.call_api", 2, ("_request_timeout",)),
    Call("everos", "close"),
]

# Constants, enum members and exceptions the adapters name (`module:attribute.path`).
NAMES = {
    "supermemory": ["supermemory.core.api_error:ApiError"],
    "zep": ["zep_cloud.core.api_error:ApiError", "zep_cloud.core.parse_error:ParsingError"],
    "letta": [
        f"letta_client:{name}"
        for name in ("NotFoundError", "APIConnectionError", "AuthenticationError", "PermissionDeniedError")
    ],
    "mem0": ["mem0.memory.main:MEM0_TELEMETRY", "mem0.memory.telemetry:MEM0_TELEMETRY"],
    "mem0-platform": ["mem0.exceptions:MemoryNotFoundError", "mem0.exceptions:AuthenticationError"],
    "graphiti": [
        "graphiti_core.nodes:EpisodeType.message",
        "graphiti_core.driver.driver:GraphProvider.KUZU",
        "graphiti_core.search.search_config:EpisodeSearchMethod.bm25",
        *(f"graphiti_core.search.search_config:EpisodeReranker.{name}" for name in ("rrf", "cross_encoder")),
        *(
            f"graphiti_core.search.search_config_recipes:{kind}_HYBRID_SEARCH_{reranker}"
            for kind in ("EDGE", "NODE")
            for reranker in ("RRF", "MMR", "CROSS_ENCODER")
        ),
        "graphiti_core.embedder.client:EmbedderClient",
    ],
    "memobase": ["memobase.error:ServerError"],
    "evermemos": [
        f"evermemos:{name}" for name in ("NotFoundError", "AuthenticationError", "PermissionDeniedError")
    ],
    "everos": ["everos_cloud.exceptions:ApiException", "everos_cloud.models:Content"],
    "agentcore": [
        "botocore.config:Config",
        "botocore.exceptions:ClientError",
        "botocore.exceptions:NoCredentialsError",
    ],
    "memmachine": [
        "memmachine_common.api:MemoryType.Episodic",
        "memmachine_common.api:MemoryType.Semantic",
        "requests:HTTPError",
    ],
    "vertex": [
        "google.genai.errors:ClientError",
        "google.auth.exceptions:RefreshError",
        "google.auth.exceptions:DefaultCredentialsError",
        "vertexai._genai.types:MemoryMetadataMergeStrategy.MERGE",
    ],
    "honcho": [
        f"honcho.http.exceptions:{name}"
        for name in ("NotFoundError", "AuthenticationError", "PermissionDeniedError")
    ],
    "redis-ams": [
        *(f"agent_memory_client:{name}" for name in ("MemoryNotFoundError", "MemoryServerError")),
    ],
    "cognee": [
        *(
            f"cognee:SearchType.{kind}"
            for kind in ("CHUNKS", "SUMMARIES", "CHUNKS_LEXICAL", "GRAPH_COMPLETION", "HYBRID_COMPLETION")
        ),
        "litellm:aclient_session",
    ],
}

FIELDS = [
    Fields("supermemory", "supermemory.types:SearchResponse", ("results",)),
    Fields("supermemory", "supermemory.types:SearchResult", ("memory", "chunk", "metadata", "similarity")),
    Fields("supermemory", "supermemory.types.document:Document", ("system",)),
    Fields("supermemory", "supermemory.types.document:DocumentSystem", ("status", "dreaming_status")),
    Fields("supermemory", "supermemory.types:DocumentRef", ("id",)),
    Fields(
        "zep", "zep_cloud.types:Edge", ("fact", "valid_at", "invalid_at", "expired_at", "score", "relevance")
    ),
    Fields("zep", "zep_cloud.types:Node", ("name", "summary", "score", "relevance")),
    Fields("zep", "zep_cloud.types:Episode", ("content", "reference_time", "score", "relevance")),
    Fields("zep", "zep_cloud.types:Task", ("status", "error")),
    Fields("zep", "zep_cloud.types:AddMessagesResult", ("task",)),
    Fields("zep", "zep_cloud.types:User", ("uuid_",)),
    Fields("zep", "zep_cloud.types:Thread", ("uuid_",)),
    Fields("letta", "letta_client.types.agents.passage_search_response:Result", ("content", "timestamp")),
    Fields("letta", "letta_client.types.passage:Passage", ("text", "id")),
    Fields("letta", "letta_client.types.agent_state:AgentState", ("id",)),
    Fields("letta", "letta_client.types.agents:LettaResponse", ("messages", "usage")),
    Fields(
        "letta",
        "letta_client.types.agents.letta_response:Usage",
        ("prompt_tokens", "completion_tokens", "step_count", "message_type"),
    ),
    Fields("letta", "letta_client.types.agents:AssistantMessage", ("content", "message_type")),
    Fields(
        "graphiti",
        "graphiti_core.search.search_config:SearchResults",
        (
            "edges",
            "edge_reranker_scores",
            "nodes",
            "node_reranker_scores",
            "episodes",
            "episode_reranker_scores",
        ),
    ),
    Fields("graphiti", "graphiti_core.edges:EntityEdge", ("fact", "valid_at", "invalid_at", "expired_at")),
    Fields("graphiti", "graphiti_core.nodes:EntityNode", ("name", "summary")),
    Fields("graphiti", "graphiti_core.nodes:EpisodicNode", ("content", "valid_at")),
    Fields(
        "redis-ams", "agent_memory_client.models:MemoryMessage", ("created_at", "discrete_memory_extracted")
    ),
    Fields("redis-ams", "agent_memory_client.models:WorkingMemoryResponse", ("messages",)),
    Fields("redis-ams", "agent_memory_client.models:SessionListResponse", ("sessions", "total")),
    Fields("redis-ams", "agent_memory_client.models:MemoryRecordResults", ("memories", "total")),
    Fields(
        "redis-ams",
        "agent_memory_client.models:MemoryRecordResult",
        ("id", "text", "dist", "session_id", "event_date"),
    ),
    Fields("redis-ams", "agent_memory_client:MemoryServerError", ("status_code",)),
    Fields("langmem", "langgraph.store.base:SearchItem", ("value", "key", "score", "namespace")),
    Fields(
        "vertex",
        "vertexai._genai.types:GenerateAgentEngineMemoriesConfig",
        ("wait_for_completion", "metadata", "metadata_merge_strategy"),
    ),
    Fields("vertex", "vertexai._genai.types:MemoryMetadataValue", ("timestamp_value",)),
    Fields("vertex", "vertexai._genai.types:AgentEngineGenerateMemoriesOperation", ("name", "done", "error")),
    Fields(
        "vertex",
        "vertexai._genai.types:RetrieveMemoriesRequestSimilaritySearchParams",
        ("search_query", "top_k"),
    ),
    Fields("vertex", "vertexai._genai.types:RetrieveMemoriesResponseRetrievedMemory", ("memory",)),
    Fields("vertex", "vertexai._genai.types:Memory", ("fact", "metadata")),
    Fields("vertex", "vertexai._genai.types:ListAgentEngineMemoryConfig", ("filter", "page_size")),
    Fields("vertex", "vertexai._genai.types:PurgeAgentEngineMemoriesConfig", ("wait_for_completion",)),
    Fields("vertex", "vertexai._genai.types:AgentEngine", ("api_resource",)),
    Fields("vertex", "vertexai._genai.types:ReasoningEngine", ("context_spec",)),
    Fields("vertex", "vertexai._genai.types:ReasoningEngineContextSpec", ("memory_bank_config",)),
    Fields(
        "vertex",
        "vertexai._genai.types:ReasoningEngineContextSpecMemoryBankConfig",
        ("generation_config", "similarity_search_config"),
    ),
    Fields(
        "vertex",
        "vertexai._genai.types:ReasoningEngineContextSpecMemoryBankConfigGenerationConfig",
        ("model",),
    ),
    Fields(
        "vertex",
        "vertexai._genai.types:ReasoningEngineContextSpecMemoryBankConfigSimilaritySearchConfig",
        ("embedding_model",),
    ),
    Fields("mcp", "mcp.types:Tool", ("input_schema",)),
    Fields(
        "memu",
        "memu.app.settings:LLMConfig",
        ("client_backend", "base_url", "api_key", "chat_model", "embed_model"),
    ),
    Fields("memu", "memu.app.settings:BlobConfig", ("resources_dir",)),
    Fields("memu", "memu.app.settings:MetadataStoreConfig", ("provider",)),
    Fields("memu", "memu.app.settings:MemorizeConfig", ("memory_types",)),
    Fields(
        "memu",
        "memu.app.settings:RetrieveConfig",
        ("method", "route_intention", "sufficiency_check", "category", "resource", "item"),
    ),
    Fields("memu", "memu.app.settings:RetrieveItemConfig", ("enabled", "ranking", "top_k")),
    Fields("memu", "memu.app.settings:RetrieveCategoryConfig", ("enabled",)),
    Fields("memu", "memu.app.settings:RetrieveResourceConfig", ("enabled",)),
    Fields("memu", "memu.database.models:MemoryItem", ("summary", "resource_id")),
    Fields("memu", "memu.llm.wrapper:LLMUsage", ("input_tokens", "output_tokens")),
    Fields("memmachine", "memmachine_common.api.spec:AddMemoriesResponse", ("results",)),
    Fields("memmachine", "memmachine_common.api.spec:AddMemoryResult", ("uid",)),
    Fields("memmachine", "memmachine_common.api.spec:SearchResult", ("content",)),
    Fields(
        "memmachine", "memmachine_common.api.spec:SearchResultContent", ("episodic_memory", "semantic_memory")
    ),
    Fields(
        "memmachine",
        "memmachine_common.api.spec:EpisodicSearchResult",
        ("long_term_memory", "short_term_memory"),
    ),
    Fields("memmachine", "memmachine_common.api.spec:EpisodicSearchLongTermMemory", ("episodes",)),
    Fields("memmachine", "memmachine_common.api.spec:EpisodicSearchShortTermMemory", ("episodes",)),
    Fields(
        "memmachine",
        "memmachine_common.api.spec:EpisodeResponse",
        ("uid", "content", "producer_id", "created_at", "score"),
    ),
    Fields(
        "memmachine", "memmachine_common.api.spec:Episode", ("uid", "content", "producer_id", "created_at")
    ),
    Fields(
        "memmachine",
        "memmachine_common.api.spec:SemanticFeature",
        ("tag", "feature_name", "value", "metadata"),
    ),
    Fields("memmachine", "memmachine_common.api.spec:SemanticFeature.Metadata", ("id", "citations")),
    Fields("memmachine", "memmachine_common.api.spec:ListResult", ("content",)),
    Fields(
        "memmachine", "memmachine_common.api.spec:ListResultContent", ("episodic_memory", "semantic_memory")
    ),
    Fields("mcp", "mcp.types:CallToolResult", ("is_error", "structured_content", "content")),
    Fields("mcp", "mcp.types:InitializeResult", ("server_info",)),
    Fields("evermemos", "evermemos.types.v0:MemoryAddResponse", ("request_id",)),
    Fields("evermemos", "evermemos.types.v0.status:RequestGetResponse", ("found", "data")),
    Fields("evermemos", "evermemos.types.v0.memory_search_response:Result", ("memories",)),
    Fields(
        "evermemos",
        "evermemos.types.v0.memory_search_response:ResultMemoryEpisodeMemory",
        ("memory_type", "timestamp", "episode", "summary", "subject", "score"),
    ),
    Fields("evermemos", "evermemos.types.v0.memory_search_response:ResultMemoryEventLog", ("atomic_fact",)),
    Fields("evermemos", "evermemos.types.v0.memory_search_response:ResultMemoryForesight", ("foresight",)),
    Fields("evermemos", "evermemos.types.v0.memory_get_response:Result", ("memories", "total_count")),
    Fields("evermemos", "evermemos.types.v0.memory_get_response:ResultMemoryForesightModel", ("content",)),
    Fields("everos", "everos_cloud.models:AddInput", ("session_id", "messages", "async_mode")),
    Fields(
        "everos",
        "everos_cloud.models:MessageItem",
        ("sender_id", "sender_name", "role", "timestamp", "content"),
    ),
    Fields("everos", "everos_cloud.models:FlushInput", ("session_id",)),
    Fields(
        "everos",
        "everos_cloud.models:SearchInput",
        ("query", "user_id", "top_k", "method", "with_readable_episode"),
    ),
    Fields(
        "everos",
        "everos_cloud.models:GetInput",
        ("memory_type", "user_id", "page", "page_size", "sort_order", "with_readable_episode"),
    ),
    Fields("everos", "everos_cloud.models:DeleteInput", ("user_id",)),
    Fields("everos", "everos_cloud.models:SuccessEnvelopeAddData", ("request_id", "data")),
    Fields("everos", "everos_cloud.models:AddData", ("status",)),
    Fields("everos", "everos_cloud.models:TaskItem", ("status", "error", "finished_at")),
    Fields("everos", "everos_cloud.models:SearchData", ("episodes",)),
    Fields(
        "everos",
        "everos_cloud.models:SearchEpisodeItem",
        ("episode", "summary", "subject", "score", "timestamp"),
    ),
    Fields("everos", "everos_cloud.models:GetData", ("episodes", "total_count")),
    Fields("everos", "everos_cloud.models:EpisodeItem", ("episode", "summary", "subject")),
]


@dataclass(frozen=True)
class Forwarded:
    """A boto3 operation AgentCore's SDK forwards (its `__getattr__`, snake_case keywords turned to
    camelCase): `root` the SDK object the adapter calls it on, `manager` or `client`."""

    root: str
    method: str
    keywords: tuple[str, ...] = ()


# What stores/agentcore.py calls through the SDK's forwarding, and the attributes it reads.
AGENTCORE_FORWARDED = [
    Forwarded(
        "manager",
        "create_event",
        ("memory_id", "actor_id", "session_id", "event_timestamp", "payload", "client_token"),
    ),
    Forwarded("manager", "batch_delete_memory_records", ("memory_id", "records")),
    Forwarded("client", "list_memory_extraction_jobs", ("memory_id", "filter")),
]
# Attributes, not calls, the adapters read or set below their client.
ATTRIBUTES = {
    "agentcore": {"region_name"},  # the manager's resolved region, which the client is given
    "memobase": {"client.timeout"},  # the SDK fixes its httpx client's timeout: the store sets ours
    "letta": {"timeout"},  # the request timeout the client was given, in the error that says it passed
}

# The distribution each adapter's SDK comes in, as pyproject's extras name it.
DISTRIBUTIONS = {
    "supermemory": "supermemory",
    "zep": "zep-cloud",
    "letta": "letta-client",
    "mem0": "mem0ai",
    "mem0-platform": "mem0ai",
    "graphiti": "graphiti-core",
    "mcp": "mcp",
    "cognee": "cognee",
    "memobase": "memobase",
    "honcho": "honcho-ai",
    "hindsight": "hindsight-client",
    "memmachine": "memmachine-client",
    "langmem": "langmem",
    "redis-ams": "agent-memory-client",
    "evermemos": "evermemos",
    "agentcore": "bedrock-agentcore",
    "memu": "memu-py",
    "vertex": "google-cloud-aiplatform",
    "everos": "everos-cloud",
}
# The first module each adapter's SDK is imported by (skipped where it is not installed).
MODULES = {
    "supermemory": "supermemory",
    "zep": "zep_cloud",
    "letta": "letta_client",
    "mem0": "mem0",
    "mem0-platform": "mem0",
    "graphiti": "graphiti_core",
    "mcp": "mcp",
    "cognee": "cognee",
    "memobase": "memobase",
    "honcho": "honcho",
    "hindsight": "hindsight_client",
    "memmachine": "memmachine_client",
    "langmem": "langmem",
    "redis-ams": "agent_memory_client",
    "evermemos": "evermemos",
    "agentcore": "bedrock_agentcore",
    "memu": "memu.app",
    "vertex": "vertexai",
    "everos": "everos_cloud",
}


def _installed(adapter: str) -> None:
    pytest.importorskip(MODULES[adapter])


def _resolve(adapter: str, path: str) -> Any:
    """The object at `path`: `module:attribute.path`, or an attribute path from the adapter's client."""
    if ":" in path:
        module, _, attributes = path.partition(":")
        found: Any = importlib.import_module(module)
    else:
        found, attributes = ROOTS[adapter](), path
    for name in attributes.split("."):
        assert hasattr(found, name), f"{adapter}: {path}: the SDK has no {name!r}"
        found = getattr(found, name)
    return found


@pytest.mark.parametrize("call", CALLS, ids=lambda call: call.id)
def test_each_sdk_call_an_adapter_makes_exists_with_its_keywords(call: Call) -> None:
    _installed(call.adapter)
    target = _resolve(call.adapter, call.path)
    signature = inspect.signature(target)
    parameters = signature.parameters
    takes_rest = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    named = [k for k in call.keywords if k in parameters or not (call.through is not None and takes_rest)]
    try:  # unbound methods take `self` among the positional arguments
        signature.bind_partial(*range(call.positional), **dict.fromkeys(named))
    except TypeError as exc:
        pytest.fail(f"{call.id}: the pinned SDK refuses the call as the adapter makes it: {exc}")
    if call.through is not None:
        sent = set(call.keywords) - set(parameters)
        assert takes_rest and sent <= call.through, (
            f"{call.id}: {sorted(sent - call.through)} are no parameters of the endpoint"
        )


@pytest.mark.parametrize("adapter", sorted(NAMES))
def test_each_constant_member_and_error_an_adapter_names_exists(adapter: str) -> None:
    _installed(adapter)
    for path in NAMES[adapter]:
        _resolve(adapter, path)


@pytest.mark.parametrize("adapter", sorted(set(ATTRIBUTES) & set(ROOTS)))
def test_each_attribute_an_adapter_reads_or_sets_on_its_client_exists(adapter: str) -> None:
    _installed(adapter)
    for path in ATTRIBUTES[adapter]:
        _resolve(adapter, path)


@pytest.mark.parametrize("uses", FIELDS, ids=lambda uses: uses.model)
def test_each_field_an_adapter_reads_is_in_the_sdks_model(uses: Fields) -> None:
    _installed(uses.adapter)
    model = _resolve(uses.adapter, uses.model)
    # a pydantic model's fields, else (a plain class) what its constructor takes and keeps
    known = set(getattr(model, "model_fields", None) or getattr(model, "__fields__", None) or ())
    known |= set(inspect.signature(model).parameters) if not known else set()
    assert set(uses.fields) <= known, f"{uses.model} has no {sorted(set(uses.fields) - known)}"


def test_letta_takes_the_system_role_the_harness_sends_its_instructions_in() -> None:
    pytest.importorskip("letta_client")
    from letta_client.types.message_create_param import MessageCreateParam

    role = get_type_hints(MessageCreateParam)["role"]
    assert "system" in get_args(role), role


def test_mem0s_prompt_builder_still_prints_the_dates_the_store_hands_it() -> None:
    pytest.importorskip("mem0")
    from mem0.configs.prompts import generate_additive_extraction_prompt

    prompt = generate_additive_extraction_prompt(
        new_messages=[], timestamp="2024-05-01", current_date="2024-05-01"
    )
    assert "## Observation Date\n2024-05-01" in prompt and "## Current Date\n2024-05-01" in prompt


def test_cognees_graph_context_is_still_in_the_layout_the_store_reads() -> None:
    pytest.importorskip("cognee")
    from cognee.modules.graph.utils import resolve_edges_to_text

    source = inspect.getsource(resolve_edges_to_text)
    for mark in ("__node_content_start__", "__node_content_end__", "Connections:", " --[", "]--> ", "Node: "):
        assert mark in source, f"Cognee's graph context no longer writes {mark!r}: stores/cognee.py reads it"


def test_what_agentcores_sdk_forwards_to_boto3_is_an_operation_of_the_service_model() -> None:
    pytest.importorskip("bedrock_agentcore")
    import botocore.session
    from bedrock_agentcore._utils.snake_case import snake_to_camel
    from bedrock_agentcore.memory import MemoryClient, MemorySessionManager

    model = botocore.session.get_session().get_service_model("bedrock-agentcore")
    operations = {re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower(): name for name in model.operation_names}
    allowed = {
        "manager": MemorySessionManager(
            "memorybench_memory-a1b2c3d4e5", region_name="us-east-1"
        )._ALLOWED_DATA_PLANE_METHODS,
        "client": MemoryClient._ALLOWED_GMDP_METHODS,
    }
    for call in AGENTCORE_FORWARDED:
        assert call.method in allowed[call.root], f"the SDK's {call.root} no longer forwards {call.method}"
        members = model.operation_model(operations[call.method]).input_shape.members
        unknown = {key for key in call.keywords if snake_to_camel(key) not in members}
        assert not unknown, f"{call.method}: {sorted(unknown)} are no members of its input"
    assert "region_name" in vars(
        MemorySessionManager("memorybench_memory-a1b2c3d4e5", region_name="us-east-1")
    )


# -- the list covers what the adapters call ------------------------------------------------------

# Where each adapter reaches its SDK client: `self.client.<path>`, or `client.<path>` in a call the
# store hands its made client to (Mem0's platform).
_CLIENT_ROOTS = {
    "supermemory": ("self.client",),
    "zep": ("self.client",),
    "letta": ("self.client",),
    "mem0_platform": ("client",),
    "memobase": ("self.client",),
    "hindsight": ("client", "self._hindsight()", "self._client"),
    "redis_ams": ("self.client", "self._client"),
    "evermemos": ("self._evermemos()", "self._client"),
    "agentcore": ("self.manager", "self.client"),
    "memmachine": ("self.client",),
    "vertex": ("self.client",),
    "everos": ("self.client",),
}


def _client_paths(module: str) -> set[str]:
    """The attribute paths below the client the module's source reaches, called or passed on."""
    tree = ast.parse((STORES / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        text = ast.unparse(node)
        for root in _CLIENT_ROOTS[module]:
            if text.startswith(root + "."):
                found.add(text.removeprefix(root + "."))
    # Only the longest paths: `agents.passages.create` covers `agents.passages` and `agents`.
    return {path for path in found if not any(other.startswith(path + ".") for other in found)}


@pytest.mark.parametrize("module", sorted(_CLIENT_ROOTS))
def test_every_client_call_in_an_adapters_source_is_listed_here(module: str) -> None:
    adapter = module.replace("_", "-")
    # a call's path below the client: an instance path as it is, `module:Class.method` as `method`
    listed = {
        call.path.partition(":")[2].partition(".")[2] if ":" in call.path else call.path
        for call in CALLS
        if call.adapter == adapter
    }
    if adapter == "agentcore":
        listed |= {call.method for call in AGENTCORE_FORWARDED}
    listed |= ATTRIBUTES.get(adapter, set())
    unlisted = {
        path
        for path in _client_paths(module)
        # a path listed, or the start of one (Zep's `getattr(self.client.graph, f"search_{scope}")`)
        if not any(known == path or known.startswith(path + ".") for known in listed)
        and path not in ("client.get", "client.close")  # MemoryClient's own httpx client: events, close
    }
    assert not unlisted, f"stores/{module}.py calls {sorted(unlisted)} of its SDK: list them in CALLS"


# -- the installed SDKs are the pinned ones ------------------------------------------------------------


def _pinned() -> dict[str, Requirement]:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    found: dict[str, Requirement] = {}
    for adapter, distribution in DISTRIBUTIONS.items():
        for line in extras.get(adapter, ()):
            requirement = Requirement(line)
            if requirement.name == distribution:
                found[adapter] = requirement
    return found


@pytest.mark.parametrize("adapter", sorted(DISTRIBUTIONS))
def test_the_sdk_checked_is_the_version_the_extra_pins(adapter: str) -> None:
    requirement = _pinned().get(adapter)
    assert requirement is not None, f"pyproject has no {DISTRIBUTIONS[adapter]} in the {adapter} extra"
    try:
        installed = importlib.metadata.version(requirement.name)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{requirement.name} is not installed here")
    assert requirement.specifier.contains(installed, prereleases=True), (
        f"{requirement.name} {installed} is installed, the {adapter} extra pins {requirement.specifier}:"
        " the checks above are of another version"
    )
