"""How each product's own published harness runs it: `STORE(profile=vendor)`.

The equal terms (one k, one prompt, one answerer) rank products on what each does with the same
means; a vendor publishes its figures with its own k, reranker and search.  A vendor profile puts
those settings beside the equal terms, so a user can see how far the two are apart, and results.json
says which ran.  Only products whose harness settings are published have one; the facts are the
harnesses' (each entry names its source), the wording ours.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class VendorProfile:
    """A product as its vendor's harness runs it: its settings (the store's own, by name), the hits
    its answerer is given (`k`) and the tokens they may fill, and where the numbers come from."""

    source: str
    settings: dict[str, str | int | float | bool] = field(default_factory=dict)  # as a spec gives them
    k: int | None = None
    memory_tokens: int | None = None


# Mem0 publishes its benchmark scores with its top 200 memories in the answering prompt, their
# tokens uncapped (the equal terms cap them at MEMORY_TOKENS); its harness added two messages a call,
# to each speaker's user (the roles swapped for the second), and searched both.
_MEM0 = VendorProfile(
    "Mem0's published LoCoMo results: top_k 200; mem0ai/mem0 evaluation/src/memzero/add.py: two"
    " messages a call, to each speaker's side",
    {"batch": 2, "sides": "both"},
    k=200,
    memory_tokens=1_000_000,
)

VENDORS: dict[str, VendorProfile] = {
    "mem0": _MEM0,
    "mem0-platform": _MEM0,
    "zep": VendorProfile(
        "getzep/zep benchmarks/locomo/benchmark_config.yaml: 15 facts and 5 entities, cross-encoder reranked",
        {"reranker": "cross_encoder", "nodes": 5},
        k=20,
    ),
    "supermemory": VendorProfile(
        "supermemoryai/memorybench src/providers/supermemory: hybrid search, limit 30, threshold 0.3",
        {"search_mode": "hybrid", "threshold": 0.3},
        k=30,
    ),
    "hindsight": VendorProfile(
        "vectorize-io/agent-memory-benchmark src/memory_bench/memory/hindsight.py: banks without"
        " observations, recall at budget high within 32,768 tokens with source chunks, every fact"
        " recalled in the answer's context",
        {"budget": "high", "max_tokens": 32_768, "observations": "false", "chunks": True},
        k=1_000,
        memory_tokens=32_768 + 16_384,
    ),
    "redis-ams": VendorProfile(
        "redis/agent-memory-server agent-memory-benchmark/src/agent_memory_benchmark/memory/"
        "redis_agent_memory_store.py (Redis's harness, for its hosted Redis Agent Memory): search_limit"
        " 10, the memory count stable for 120 s, polled every 30 s",
        {"stable": 120.0, "poll": 30.0},
        k=10,
    ),
    "agentcore": VendorProfile(
        "redis/agent-memory-server agent-memory-benchmark/src/agent_memory_benchmark/memory/"
        "bedrock_agentcore_store.py: a session one event opened by its date line, top_k 10, the"
        " records joined uncapped; common.py and base.py: listed every 15 s until the count holds for 30 s",
        {"event": "session", "poll": 15.0, "settle": 30.0},
        k=10,
        memory_tokens=1_000_000,
    ),
    "memmachine": VendorProfile(
        "MemMachine/MemMachine evaluation/locomo/episodic_memory/restapiv2_locomo_search.py: top_k 50"
        " (its --top-k default), episodic and semantic memory both, every memory returned in the"
        " answer's context, uncapped",
        k=50,
        memory_tokens=1_000_000,
    ),
    "cognee": VendorProfile(
        "topoteretes/cognee eval_framework/eval_config.py: qa_engine cognee_graph_completion; its"
        " search's default top_k 15",
        {"search_type": "graph_completion"},
        k=15,
    ),
    # EverMind's own evaluation of its API (the harness of its LoCoMo and LongMemEval figures); its
    # EverMemBench harness searches `hybrid` with top_k 5 instead (eval/src/adapters/evermemos_adapter.py).
    "evermemos": VendorProfile(
        "EverMind-AI/EverMemOS evaluation/config/systems/evermemos_cloud_api.yaml: the conversation's"
        " group searched, retrieve_method agentic, episodic memories only, top_k 10",
        {"retrieve_method": "agentic", "memory_types": "episodic_memory"},
        k=10,
    ),
    "vertex": VendorProfile(
        "redis/agent-memory-server agent-memory-benchmark/src/agent_memory_benchmark/memory/"
        "vertex_memory_bank.py: a session a generate, its date the first event, a user_id scope per"
        " example, similarity search with search_limit 10",
        k=10,
    ),
}
