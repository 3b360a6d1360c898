"""`graphiti`: Graphiti (`graphiti-core`), Zep's open-source temporal knowledge graph, in process on
its embedded Kùzu database.

    graphiti:openai:NAME@URL                      its LLM and embedder on the MODEL_SPEC's server
    graphiti(scope=episodes):openai:NAME@URL      the stored messages instead of the graph's facts
    graphiti:openai:gpt-4o-mini --mb-embedder openai:text-embedding-3-small

Each namespace is a graph of its own: a Kùzu database in a folder of the store's (graphiti-core
0.31's Kùzu driver does not keep `group_id`s apart, so a database per conversation is the
isolation).  Each message is an episode (`add_episode`, as Graphiti advises for chat: in order,
each awaited), `role: text` (the speaker's name instead of the role where the benchmark names one,
once: LoCoMo's "Caroline: …" as it is) with its simulated time as `reference_time`; `episode=batch` makes a
session one episode instead (fewer model calls, coarser facts).  Graphiti extracts entities and
facts from each episode with its LLM (structured output, `json_schema`), deduplicates them
against the graph, and embeds them: all within `add`, so `add` is the ingest time.  Search is
Graphiti's hybrid search (BM25 and cosine similarity) of `scope=edges` (facts, each shown with
when it held: from `valid_at` until `invalid_at`, or until a later fact expired it, else
`→ present`), `nodes` (entities and their summaries) or `episodes` (the messages), limited to k
and reranked by `reranker` (`rrf`, Graphiti's default; `mmr`; `cross_encoder`, which asks the
LLM).  The LLM, embedder and cross-encoder are the MODEL_SPEC's (see `endpoints`); their
tokens are counted as the store's writes and reads.  graphiti-core 0.31's Kùzu driver creates no
full-text indices, so the store makes them (Kùzu's bundled FTS extension); and Kùzu's full-text
search reads `?` as a one-letter wildcard, so a question's last word ("colour?") would match
nothing: the store searches with `?` and `*` as spaces.

Tested with graphiti-core 0.31.2 and kuzu 0.11.3, on the scripted model server and on SmolLM2.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.mechanisms.settings import one_of, require
from pytest_memorybench.agents.stores.dates import in_utc, naive_utc
from pytest_memorybench.agents.stores.endpoints import Endpoint, count_usage, openai_endpoints
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit, Validity
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.records import Message, Usage

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

_WILDCARDS = str.maketrans("?*", "  ")
_RECIPES = {"edges": "EDGE_HYBRID_SEARCH", "nodes": "NODE_HYBRID_SEARCH", "episodes": ""}


@dataclass(frozen=True)
class GraphitiSettings:
    """What Graphiti's search returns and how it reranks it, and what an episode is."""

    scope: str = "edges"
    reranker: str = "rrf"
    episode: str = "message"
    structured_output: str = "json_schema"
    max_tokens: int = 0  # 0: Graphiti's own limits
    temperature: float = 1.0  # Graphiti's own

    def __post_init__(self) -> None:
        one_of("scope", self.scope, tuple(_RECIPES))
        one_of("reranker", self.reranker, ("rrf", "mmr", "cross_encoder"))
        one_of("episode", self.episode, ("message", "batch"))
        one_of("structured_output", self.structured_output, ("json_schema", "json_object"))
        require(self.max_tokens >= 0, f"max_tokens must be 0 (Graphiti's own) or more, got {self.max_tokens}")
        require(0 <= self.temperature <= 2, f"temperature must be from 0 to 2, got {self.temperature:g}")
        require(
            self.scope != "episodes" or self.reranker != "mmr",
            "Graphiti reranks episodes by rrf or cross_encoder, not mmr",
        )


class GraphitiStore:
    """A Graphiti on its own Kùzu database for each namespace, sharing one LLM, embedder and
    cross-encoder; what their model calls cost (`usage`, which the harness charges to the store)."""

    def __init__(self, settings: GraphitiSettings, llm: Endpoint, embedder: Endpoint) -> None:
        self.settings = settings
        self.llm = llm
        self.embedder = embedder
        self.folder = Path(tempfile.mkdtemp(prefix="memorybench-graphiti-"))
        self.usage = Usage()
        self._graphs: dict[str, Any] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._clients: tuple[Any, Any, Any] | None = None
        self._openai: list[Any] = []  # the LLM's and the embedder's, on one counting HTTP client

    @property
    def messages_per_add(self) -> int | None:
        """One message an episode (the harness sends them one at a time, so a retry re-sends only the
        episode that failed), or a session an episode with `episode=batch`."""
        return 1 if self.settings.episode == "message" else None

    async def add(self, messages: list[Message], namespace: str) -> None:
        from graphiti_core.nodes import EpisodeType

        async with self._lock(namespace):  # Graphiti's episodes go in one at a time, in order
            graph = await self._graph(namespace)
            await graph.add_episode(
                name=f"{namespace}-{messages[0].id}",
                episode_body="\n".join(message.labelled() for message in messages),
                source_description="conversation",
                reference_time=in_utc(messages[0].timestamp),
                source=EpisodeType.message,
            )

    async def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        if namespace not in self._graphs:
            return []
        async with self._lock(namespace):
            plain = query.translate(_WILDCARDS)  # Kùzu's full-text search reads `?` and `*` as wildcards
            found = await self._graphs[namespace].search_(plain, config=self._config(k))
        if self.settings.scope == "edges":
            return [
                Hit(
                    edge.fact,
                    score,
                    None,
                    Validity(naive_utc(edge.valid_at), naive_utc(edge.invalid_at or edge.expired_at)),
                )
                for edge, score in _scored(found.edges, found.edge_reranker_scores)
            ]
        if self.settings.scope == "nodes":
            return [
                Hit(f"{node.name}: {node.summary}" if node.summary else node.name, score)
                for node, score in _scored(found.nodes, found.node_reranker_scores)
            ]
        return [
            Hit(episode.content, score, naive_utc(episode.valid_at))
            for episode, score in _scored(found.episodes, found.episode_reranker_scores)
        ]

    async def clear(self, namespace: str) -> None:
        async with self._lock(namespace):
            graph = self._graphs.pop(namespace, None)
            if graph is not None:
                await graph.close()
            shutil.rmtree(self.folder / namespace, ignore_errors=True)

    async def aclose(self) -> None:
        for namespace in list(self._graphs):
            await self.clear(namespace)
        for client in self._openai:
            await client.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _lock(self, namespace: str) -> asyncio.Lock:
        return self._locks.setdefault(namespace, asyncio.Lock())

    async def _graph(self, namespace: str) -> Any:
        if namespace not in self._graphs:
            from graphiti_core import Graphiti
            from graphiti_core.driver.driver import GraphProvider
            from graphiti_core.driver.kuzu_driver import KuzuDriver
            from graphiti_core.graph_queries import get_fulltext_indices

            folder = self.folder / namespace
            folder.mkdir(parents=True, exist_ok=True)
            try:
                with warnings.catch_warnings():  # said in docs/stores.md, not on every run
                    warnings.filterwarnings("ignore", "The Kuzu backend is deprecated", DeprecationWarning)
                    driver = KuzuDriver(db=str(folder / "graph.kuzu"))
                for query in get_fulltext_indices(GraphProvider.KUZU):
                    await driver.execute_query(query)
            except Exception:
                shutil.rmtree(folder, ignore_errors=True)  # a retry starts from an empty database
                raise
            llm, embedder, cross_encoder = self._models()
            self._graphs[namespace] = Graphiti(
                graph_driver=driver, llm_client=llm, embedder=embedder, cross_encoder=cross_encoder
            )
        return self._graphs[namespace]

    def _models(self) -> tuple[Any, Any, Any]:
        """The LLM, embedder and cross-encoder every graph of the store shares: made once, on one
        HTTP client that adds up the tokens of each answer."""
        if self._clients is None:
            import openai
            from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
            from graphiti_core.llm_client.config import LLMConfig
            from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

            from pytest_memorybench.agents.stores.graphiti_models import ChatClient, PooledEmbedder

            llm = self.llm
            http = openai.DefaultAsyncHttpxClient(timeout=600, event_hooks={"response": [self._count]})
            client = openai.AsyncOpenAI(api_key=llm.api_key, base_url=llm.base_url, http_client=http)
            embedding = self.embedder
            embeds = openai.AsyncOpenAI(
                api_key=embedding.api_key, base_url=embedding.base_url, http_client=http
            )
            self._openai = [client, embeds]
            settings = self.settings
            json_object = settings.structured_output == "json_object"
            chat = ChatClient(client, schema_in_json_object=json_object, max_tokens=settings.max_tokens)
            config = LLMConfig(
                api_key=llm.api_key,
                model=llm.model,
                small_model=llm.model,
                base_url=llm.base_url,
                temperature=settings.temperature,
            )
            self._clients = (
                OpenAIGenericClient(config=config, client=chat),
                PooledEmbedder(embedding, embeds),
                OpenAIRerankerClient(config=config, client=client),  # a yes / no, one token
            )
        return self._clients

    async def _count(self, response: Any) -> None:
        await count_usage(self.usage, response)

    def _config(self, k: int) -> Any:
        from graphiti_core.search import search_config_recipes as recipes
        from graphiti_core.search.search_config import (
            EpisodeReranker,
            EpisodeSearchConfig,
            EpisodeSearchMethod,
            SearchConfig,
        )

        if self.settings.scope == "episodes":
            reranker = EpisodeReranker[self.settings.reranker]
            config = SearchConfig(
                episode_config=EpisodeSearchConfig(
                    search_methods=[EpisodeSearchMethod.bm25], reranker=reranker
                )
            )
        else:
            recipe = f"{_RECIPES[self.settings.scope]}_{self.settings.reranker.upper()}"
            config = getattr(recipes, recipe)
        return config.model_copy(update={"limit": k})


def _scored(items: list[Any], scores: list[float]) -> list[tuple[Any, float | None]]:
    """Each found item with its reranker's score, where the reranker gave one."""
    padded: list[float | None] = [float(score) for score in scores[: len(items)]]
    return list(zip(items, padded + [None] * (len(items) - len(padded)), strict=True))


def _make(settings: GraphitiSettings, options: AgentOptions, model: AgentSpec) -> GraphitiStore:
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    try:
        import graphiti_core  # noqa: F401
        import kuzu  # noqa: F401
    except ImportError:
        raise usage_error(
            "--agent graphiti:…: graphiti-core with its Kùzu driver is not installed; pip install"
            " 'pytest-memorybench[graphiti]'"
        ) from None
    llm, embedder = openai_endpoints("graphiti", "Graphiti", model, options)
    return GraphitiStore(settings, llm, embedder)


GRAPHITI = BuiltinStore(GraphitiSettings, _make)
