"""The agents `--agent` names without a user's code: one list, read by every place that names them.

The spec parser, the `--agent` help, its error messages and the docs' tables (`docs/agents.md`,
`docs/memory-systems.md`, `docs/stores.md`, checked by `tests/test_registry_docs.py`) all read this
module, so a new offline agent, memory mechanism or store is one module of its own and one entry
here.  Entries name their class as "module:attribute" below `pytest_memorybench.agents` and are
imported only when used, so parsing a spec and printing the help stay cheap.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.core.names import suggest

MODEL_PREFIXES = ("openai", "anthropic")
EVERY_FORM = "every form: pytest --help"  # where a refusal points for the whole list


@dataclass(frozen=True)
class Registered:
    """An agent the registry knows: its `--agent` name, where its class is, and what it does."""

    name: str
    target: str  # "module:attribute" below pytest_memorybench.agents
    summary: str  # one line for the docs' tables
    packages: tuple[str, ...] = ()  # the product's distributions, whose versions a run records

    def load(self) -> Any:
        """The class (or factory) the entry names."""
        return load_target(self.target)


def load_target(target: str) -> Any:
    """What "module:attribute" below `pytest_memorybench.agents` names, imported now."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(f"pytest_memorybench.agents.{module}"), attribute)


def _by_name(*entries: Registered) -> dict[str, Registered]:
    return {entry.name: entry for entry in entries}


# Offline agents: no model, no network; `--agent NAME`.
REFERENCE_AGENTS = _by_name(
    Registered(
        "recall",
        "reference.extractive:ExtractiveAgent",
        "extractive baseline: BM25 over everything it was told, answers with the best match "
        "(newest among near-ties)",
    ),
    Registered("null", "reference.null:NullAgent", "always abstains: the floor of every scenario"),
    Registered(
        "oracle", "reference.oracle:OracleAgent", "always right: the ceiling, which validates scorers"
    ),
    Registered(
        "full-memory",
        "reference.memories:FullMemoryAgent",
        "MemBench's FullMemory behind the extractive reader: every message, newest first, as far as "
        "24,000 words go (a 32k-token context)",
    ),
    Registered(
        "recent-memory",
        "reference.memories:RecentMemoryAgent",
        "MemBench's RecentMemory behind the extractive reader: the last 200 messages",
    ),
    Registered(
        "retrieval-memory",
        "reference.memories:RetrievalMemoryAgent",
        "MemBench's RetrievalMemory behind the extractive reader: the 10 messages BM25 ranks highest "
        "for the question, within 4,000 words",
    ),
)

# Memory mechanisms over a model: `--agent MECHANISM[(SETTINGS)]:MODEL_SPEC`.
MECHANISMS = _by_name(
    Registered(
        "full-context",
        "mechanisms.full_context:FullContext",
        "the whole conversation, newest turns first, as far as the model's window (`--mb-context`) reaches",
    ),
    Registered(
        "files",
        "mechanisms.files:Files",
        "the grep agent: each session a file of dated lines; the model lists, greps (regular expressions)"
        " and reads them with tools, within `calls` calls a question (6), and answers from what it found",
    ),
    Registered(
        "recent",
        "mechanisms.recent:Recent",
        "MemBench's RecentMemory: the last `turns` messages (the offline `recent-memory` puts the same "
        "window behind the extractive reader)",
    ),
    Registered(
        "rag",
        "mechanisms.rag:Rag",
        "retrieval-augmented generation; `chunk=pair` one user–assistant exchange per document, top 5 "
        "(BEAM); `message`, top 10 (MemBench's RetrievalMemory); `paragraph` labelled \"Chapter X, "
        "Paragraph Y\", top 5, or `chapter`, top 17 (Huet et al.); `k=0` takes the chunking's",
    ),
    Registered(
        "light",
        "mechanisms.light:Light",
        "BEAM's LIGHT: key–value pairs and a summary extracted per exchange and indexed over the raw "
        "segment; top `k` segments; working memory of the last `z` exchanges; a scratchpad of notes "
        "merged per exchange and compressed by the model past `scratchpad_max` tokens (the code: 14000), "
        "filtered chunk by chunk with a yes / no relevance question",
    ),
    Registered(
        "ltm-agent",
        "mechanisms.ltm_agent:LtmAgent",
        "GoodAI's LTM agent: a vector memory and a JSON scratchpad always in context; up to `queries` "
        "search queries written per message; the scratchpad rewritten after each exchange",
    ),
    Registered(
        "memorybank",
        "mechanisms.memorybank:MemoryBank",
        "MemoryBank: timestamped memories, a summary per simulated day folded into a global summary, "
        "and a user portrait; forgetting along R = exp(−t/S), S raised on each recall",
    ),
    Registered(
        "generative-agents",
        "mechanisms.generative_agents:GenerativeAgents",
        "Park et al.'s memory stream: recency (0.995 per hour) + importance (rated 1–10) + relevance; "
        "reflection past 150 importance, insights citing their memories; `variant=code` scores as the "
        "released code (weights 0.5 / 3 / 2, recency 0.99 per rank)",
    ),
    Registered(
        "memgpt",
        "mechanisms.memgpt:MemGPT",
        "core memory blocks edited by function calls, archival insert / search, conversation search; "
        "a memory-pressure warning at 70 % of the window, a flush at 100 % evicting 50 % into a "
        "recursive summary; tools (OpenAI tool calls, Anthropic tool use) or JSON calls",
    ),
    Registered(
        "scm",
        "mechanisms.scm:SelfControlledMemory",
        "Self-Controlled Memory: a controller asks whether memory is needed and whether summaries "
        "will do; normalised recency + relevance ranking; the previous turn as flash memory",
    ),
)

# Memory stores answered by a model: `--agent STORE[(SETTINGS)]:MODEL_SPEC` (`agents/store_spec.py`).
STORES = _by_name(
    Registered(
        "bm25",
        "stores.local:BM25",
        "each message a memory, ranked by BM25 over its words: the lexical baseline every comparison ships",
    ),
    Registered(
        "dense",
        "stores.local:DENSE",
        "each message a memory, ranked by cosine similarity under `--mb-embedder` (wordllama or an"
        " embeddings endpoint): the dense baseline",
    ),
    Registered(
        "mem0",
        "stores.mem0:MEM0",
        "Mem0's open-source library (`mem0` extra) in process on an embedded Qdrant; its LLM and embedder"
        " at the MODEL_SPEC's server (or `--mb-embedder openai:MODEL@URL`); `infer=false` stores messages"
        " as given",
        packages=("mem0ai",),
    ),
    Registered(
        "graphiti",
        "stores.graphiti:GRAPHITI",
        "Graphiti's temporal knowledge graph (`graphiti` extra) in process on its embedded Kùzu, a"
        " database per conversation, an episode per message; its LLM and embedder at the MODEL_SPEC's"
        " server; searches its facts (edges), entities or episodes",
        packages=("graphiti-core", "kuzu"),
    ),
    Registered(
        "cognee",
        "stores.cognee:COGNEE",
        "Cognee (`cognee` extra, in an environment of its own) in process on its local stack, a dataset"
        " per conversation, each message a document, cognified before a search; its LLM and embedder at"
        " the MODEL_SPEC's server; searches its chunks, summaries or graph completion's context",
        packages=("cognee",),
    ),
    Registered(
        "mcp",
        "stores.mcp:MCP",
        "an MCP memory server over stdio (`mcp` extra), one per conversation: `add` and `search` name its"
        " tools; by default the reference knowledge-graph server (npx), each message an entity, searched"
        " word by word (`search_by=words`; `query` sends the question whole); `mode=agent` gives the"
        " answering model the server's tools instead",
        packages=("mcp",),
    ),
    Registered(
        "supermemory",
        "stores.supermemory:SUPERMEMORY",
        "Supermemory's hosted memory (`supermemory` extra; key from SUPERMEMORY_API_KEY): a document per"
        " session in a namespace per conversation, waited on until processed and its memories"
        " formed; its own model extracts them",
        packages=("supermemory",),
    ),
    Registered(
        "mem0-platform",
        "stores.mem0_platform:MEM0_PLATFORM",
        "Mem0's hosted platform (`mem0-platform` extra; key from MEM0_API_KEY): a user per conversation,"
        " each add's event waited on until it succeeded; with `infer=true` its own model extracts the"
        " memories",
        packages=("mem0ai",),
    ),
    Registered(
        "zep",
        "stores.zep:ZEP",
        "Zep's hosted context graph (`zep` extra; key from ZEP_API_KEY): a Zep user and thread per"
        " conversation, each add's task waited on until the graph is built; searches its facts (edges),"
        " entities or episodes; its own models extract the graph; its terms forbid publishing results",
        packages=("zep-cloud",),
    ),
    Registered(
        "letta",
        "stores.letta:LETTA",
        "a Letta agent per conversation on a Letta server you run (`letta` extra; LETTA_BASE_URL, else"
        " localhost:8283) that answers itself; messages go to its archival memory (`ingest=messages`:"
        " to the agent, which keeps what it will); its model is the MODEL_SPEC's or a server handle",
        packages=("letta-client",),
    ),
    Registered(
        "langmem",
        "stores.langmem:LANGMEM",
        "LangMem's memory manager (`langmem` extra) in process over LangGraph's in-memory store: a"
        " session an extraction, whose tool calls insert, update and delete memories; its chat model"
        " and embedder at the MODEL_SPEC's server; searches the memories by vector",
        packages=("langmem", "langgraph", "langchain-openai"),
    ),
    Registered(
        "memobase",
        "stores.memobase:MEMOBASE",
        "Memobase's user-profile memory (`memobase` extra; a server you run or its cloud, key from"
        " MEMOBASE_API_KEY): a user per conversation, a session a chat blob flushed at once; its"
        " search is Memobase's own context (profile and events) in one text, capped by tokens, not k",
        packages=("memobase",),
    ),
    Registered(
        "hindsight",
        "stores.hindsight:HINDSIGHT",
        "Vectorize's Hindsight (`hindsight` extra; a server you run or its cloud, key from"
        " HINDSIGHT_API_KEY): a bank per conversation, a session a retained item dated by its time,"
        " waited on until its operation completed; recalls facts dated by when they were said",
        packages=("hindsight-client",),
    ),
    Registered(
        "honcho",
        "stores.honcho:HONCHO",
        "Plastic Labs' Honcho (`honcho` extra; a server you run or its cloud, key from HONCHO_API_KEY):"
        " a workspace per conversation, a peer a role, a Honcho session a session, waited on until its"
        " queue is done; it answers itself through its dialectic chat",
        packages=("honcho-ai",),
    ),
    Registered(
        "redis-ams",
        "stores.redis_ams:REDIS_AMS",
        "Redis's Agent Memory Server (`redis-ams` extra; a server you run, its token, if any, in"
        " REDIS_AMS_API_KEY): a namespace per conversation, a session a working-memory session dated"
        " message by message, waited on until extracted and the memory count stands still; searches"
        " its long-term memories",
        packages=("agent-memory-client",),
    ),
    Registered(
        "evermemos",
        "stores.evermemos:EVERMEMOS",
        "EverMind's EverMemOS (`evermemos` extra; its cloud, key from EVERMEMOS_API_KEY, or a server you"
        " run): a group per conversation, one message a call dated by its time, each session flushed and"
        " its requests waited on until done; searches its episodic memories (keyword, vector, hybrid, rrf"
        " or agentic)",
        packages=("evermemos",),
    ),
    Registered(
        "agentcore",
        "stores.agentcore:AGENTCORE",
        "AWS Bedrock AgentCore Memory (`agentcore` extra; a memory you made, with a strategy, its id as"
        " `memory_id`; credentials and region as boto3 reads them): an actor per conversation, a session"
        " a session, a message an event at its time, waited on until its records stop changing;"
        " retrieves the records its strategies extracted, dated by their source",
        packages=("bedrock-agentcore", "boto3"),
    ),
    Registered(
        "memu",
        "stores.memu:MEMU",
        "NevaMind's memU engine (`memu` extra, Python 3.13) in process in memory: a user per"
        " conversation, a session a memorized conversation whose messages carry their times; its chat"
        " model extracts profile and event items, its embedder at the MODEL_SPEC's server; searches the"
        " items by vector",
        packages=("memu-py",),
    ),
    Registered(
        "memmachine",
        "stores.memmachine:MEMMACHINE",
        "MemMachine's episodic and profile memory (`memmachine` extra; a server you run, key from"
        " MEMMACHINE_API_KEY where it wants one): a project per conversation, a session's messages an"
        " episode each, dated; waited on until its profile stops changing; searches episodes and features",
        packages=("memmachine-client",),
    ),
    Registered(
        "vertex",
        "stores.vertex:VERTEX",
        "Google's Vertex AI Memory Bank (`vertex` extra; an Agent Engine you made, `engine=`, and"
        " Application Default Credentials): a scope per conversation, a session a generate dated by"
        " its time, waited on until its operation is done; its similarity search, top k facts",
        packages=("google-cloud-aiplatform", "google-genai"),
    ),
    Registered(
        "everos",
        "stores.everos:EVEROS",
        "EverMind's EverOS (`everos` extra, Python 3.12; its cloud, key from EVEROS_API_KEY, or the"
        " open-source server you run): a user per conversation, a session's messages one add dated"
        " message by message, flushed and its tasks waited on until done and indexed; searches its"
        " episodes (keyword, vector, hybrid, agentic or llm_multiround)",
        packages=("everos-cloud",),
    ),
    Registered(
        "none",
        "stores.local:NONE",
        "remembers nothing: the no-memory control, what the answering model knows without any memory",
    ),
    Registered(
        "gold",
        "stores.local:GOLD",
        "finds exactly each question's labelled evidence: the answering model's ceiling with perfect memory",
    ),
)


def listed(names: Iterable[str]) -> str:
    """The names, for a help text or an error: "a, b, c"."""
    return ", ".join(names)


def spec_forms() -> str:
    """Every form `--agent` takes, in one line (the help, and errors that say what would work)."""
    return (
        f"{listed(REFERENCE_AGENTS)}, openai:MODEL, anthropic:MODEL, openai:MODEL@URL, http://HOST:PORT/v1, "
        f"MECHANISM:MODEL (MECHANISM: {listed(MECHANISMS)}), STORE:MODEL (STORE: {listed(STORES)}, an"
        " installed memorybench.stores entry point, or store(factory=pkg.module:factory)), an installed"
        " memorybench.agents entry point, or pkg.module:factory"
    )


def unknown_agent(name: str, installed: Iterable[str] = ()) -> str:
    """The end of the refusal of an agent's name: the closest names `--agent` knows, in the form each is
    written in (`recall`, `rag:MODEL_SPEC`), and where every form is listed."""
    forms = {known: known for known in (*REFERENCE_AGENTS, *installed)}
    forms.update({known: f"{known}:MODEL_SPEC" for known in (*MECHANISMS, *STORES)})
    return suggest(name, forms, where=EVERY_FORM, written=forms)


def unknown_prefix(prefix: str, installed_stores: Iterable[str] = (), *, module: bool = False) -> str:
    """The refusal of PREFIX in `PREFIX:…` when it names no model provider, mechanism or store
    (nor, with `module`, a module to import an agent from)."""
    known = [*MODEL_PREFIXES, *MECHANISMS, *STORES, *installed_stores]
    others = "memory mechanism, store or module" if module else "memory mechanism or store"
    hint = suggest(prefix, known, where=EVERY_FORM)
    return f"{prefix!r} is no model prefix ({listed(MODEL_PREFIXES)}), {others}; {hint}"


def reference_table() -> str:
    """The docs' table of offline agents (docs/agents.md)."""
    rows = [f"| `{entry.name}` | {entry.summary} |" for entry in REFERENCE_AGENTS.values()]
    return "\n".join(["| `--agent` | what runs (offline: no model, no key) |", "| --- | --- |", *rows])


def store_table() -> str:
    """The docs' table of built-in stores and their settings (docs/stores.md)."""
    return _settings_table(STORES, "| store | what it does | settings |")


def mechanism_table() -> str:
    """The docs' table of mechanisms, their settings and the papers' defaults (docs/memory-systems.md)."""
    return _settings_table(MECHANISMS, "| mechanism | what it does | settings (defaults from the papers) |")


def _settings_table(entries: dict[str, Registered], header: str) -> str:
    rows = []
    for entry in entries.values():
        fields = dataclasses.fields(entry.load().settings_type)
        settings = ", ".join(f"`{field.name}={field.default}`" for field in fields) or "—"
        rows.append(f"| `{entry.name}` | {entry.summary} | {settings} |")
    return "\n".join([header, "| --- | --- | --- |", *rows])
