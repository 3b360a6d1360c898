"""What the store harness costs beside the store, and how fast stores take a conversation in.

    python tests/bench/bench_stores.py

1. The harness's own time per add and per search, at 8k and 120k-token conversations (messages of
   about 25 tokens), with in-memory stores that do (almost) nothing: a sync one (run in a thread,
   as any sync store is) and an async one.  What is left is ours: the adapter, the client's retry
   wrapper, the namespace, the figures.
2. Ingest throughput of LoCoMo's ten conversations (../shared/reference/locomo/locomo10.json, when
   present) through `bm25` and `mem0(infer=false)` (embeddings from the test suite's scripted
   server, which hashes words: the time is Mem0's and Qdrant's, not a model's), in the batches a
   LoCoMo run observes them in.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from pytest_memorybench.agents.agent_build import build_agent  # noqa: E402
from pytest_memorybench.agents.agent_protocol import AgentAdapter  # noqa: E402
from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec  # noqa: E402
from pytest_memorybench.core.records import Message  # noqa: E402
from tests.bench.bench_memory_overhead import sentence  # noqa: E402

LOCOMO = Path(__file__).resolve().parents[3] / "shared" / "reference" / "locomo" / "locomo10.json"
BATCH = 50  # messages per observe, as a LoCoMo run delivers them
HITS = [f"memory {n}: lantern copper harbour" for n in range(10)]


class SyncStore:
    """Keeps nothing, finds ten fixed hits: only the harness's time is left."""

    def add(self, messages: list[Message], namespace: str) -> None:
        return None

    def search(self, query: str, namespace: str, k: int) -> list[str]:
        return HITS

    def clear(self, namespace: str) -> None:
        return None


class AsyncStore:
    async def add(self, messages: list[Message], namespace: str) -> None:
        return None

    async def search(self, query: str, namespace: str, k: int) -> list[str]:
        return HITS

    async def clear(self, namespace: str) -> None:
        return None


def _agent(spec: str) -> AgentAdapter:
    return build_agent(parse_agent_spec(spec), AgentOptions())


async def harness(store: str, tokens: int) -> tuple[float, float]:
    """Median ms per add (one message) and per search, once the conversation has `tokens` tokens."""
    agent = _agent(f"store(factory=tests.bench.bench_stores:{store}):openai:instant@http://127.0.0.1:9/v1")
    moment = datetime(2024, 1, 1)
    messages = [Message(sentence(n), moment + timedelta(minutes=n)) for n in range(tokens // 25)]
    for start in range(0, len(messages) - 200, 500):
        await agent.observe(messages[start : start + 500])
    adds = []
    for message in messages[-200:]:
        started = time.perf_counter()
        await agent.observe([message])
        adds.append(time.perf_counter() - started)
    searches = []
    for n in range(200):
        started = time.perf_counter()
        await agent.retrieve(f"What about item {n}?", 10)
        searches.append(time.perf_counter() - started)
    return 1000 * statistics.median(adds), 1000 * statistics.median(searches)


def locomo_conversations() -> list[list[Message]]:
    conversations = []
    for sample in json.loads(LOCOMO.read_text()):
        talk = sample["conversation"]
        messages = []
        for number in range(1, 100):
            for turn in talk.get(f"session_{number}") or []:
                messages.append(Message(f"{turn['speaker']}: {turn['text']}", datetime(2023, 5, 1), "user"))
        conversations.append(messages)
    return conversations


async def ingest(spec: str, conversations: list[list[Message]], options: AgentOptions) -> tuple[int, float]:
    total, seconds = 0, 0.0
    for messages in conversations:
        agent = build_agent(parse_agent_spec(spec), options)
        started = time.perf_counter()
        for start in range(0, len(messages), BATCH):
            await agent.observe(messages[start : start + BATCH])
        await agent.retrieve("What did they talk about?", 10)  # a store that indexes later waits here
        seconds += time.perf_counter() - started
        total += len(messages)
        await agent.aclose()
    return total, seconds


async def main() -> None:
    print(f"{'store':<12} {'span':>6} {'ms/add':>8} {'ms/search':>10}")
    for store in ("SyncStore", "AsyncStore"):
        for tokens in (8_000, 120_000):
            add, search = await harness(store, tokens)
            print(f"{store:<12} {tokens // 1000:>5}k {add:>8.3f} {search:>10.3f}")
    if not LOCOMO.exists():
        print("LoCoMo ingest: ../shared/reference/locomo/locomo10.json is not here")
        return
    conversations = locomo_conversations()
    from tests.support.memory_model import scripted_memory_server

    with scripted_memory_server() as (server, _):
        url = server.openai_url
        for spec in (f"bm25:openai:m@{url}", f"mem0(infer=false):openai:m@{url}"):
            try:
                count, seconds = await ingest(spec, conversations, AgentOptions())
            except Exception as exc:  # noqa: BLE001 - a store that is not installed here
                print(f"{spec.split(':')[0]:<18} not measured: {exc}")
                continue
            print(
                f"{spec.split(':')[0]:<18} LoCoMo's 10 conversations: {count:,} messages in {seconds:.1f} s,"
                f" {count / seconds:,.0f} messages/s, {1000 * seconds / count:.2f} ms a message"
            )


if __name__ == "__main__":
    asyncio.run(main())
