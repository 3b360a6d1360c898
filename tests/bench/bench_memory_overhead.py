"""The memory's own CPU per message, with an instant model: indexing, retrieval, prompt building.

    python tests/bench/bench_memory_overhead.py

Each mechanism takes in a conversation of 8k and of 120k tokens (messages of about 25 tokens) and
answers ten questions; the model is an in-process stand-in that replies at once, so the time is the
harness's alone.  Then a 1M-token conversation is indexed by the lexical and dense indexes and
searched: the time of one retrieval at that size.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[2]))

from pytest_memorybench.agents.mechanism_spec import mechanism_class
from pytest_memorybench.agents.mechanisms.index import DenseIndex, LexicalIndex  # noqa: E402
from pytest_memorybench.agents.mechanisms.model import MemoryModel  # noqa: E402
from pytest_memorybench.agents.registry import MECHANISMS  # noqa: E402
from pytest_memorybench.core.records import Message, Usage  # noqa: E402
from pytest_memorybench.models.llm import Completion  # noqa: E402

WORDS = "apple river stone lantern violet copper meadow harbour pencil saddle orbit falcon".split()


class InstantModel:
    """Replies at once: "yes", a rating, an empty JSON, or a short answer."""

    model = "instant"
    context_tokens = 16_000
    max_output_tokens = 512
    usage = Usage()

    async def ask(self, system, turns, **options):  # noqa: ANN001, ANN201
        prompt = turns[-1]["content"]
        text = (
            "yes"
            if "relevant" in prompt
            else "5"
            if "poignancy" in prompt
            else "{}"
            if "JSON" in prompt
            else "Noted."
        )
        return Completion(text, 10, 2), Usage(10, 2, 0.0, 0.0, 1)

    @staticmethod
    def tool_options(functions):  # noqa: ANN001, ANN205
        return {}

    async def aclose(self) -> None:
        pass


def sentence(n: int) -> str:
    return " ".join(WORDS[(n * 7 + i * 3) % len(WORDS)] for i in range(18)) + f" item {n}."


async def per_message(mechanism: str, tokens: int) -> float:
    system = mechanism_class(mechanism)(MemoryModel(InstantModel()), None, None)  # type: ignore[arg-type]
    messages = tokens // 25
    moment = datetime(2024, 1, 1)
    await system.observe([Message(sentence(n), moment + timedelta(minutes=n)) for n in range(messages)])
    timings = []
    for n in range(10):
        started = time.perf_counter()
        await system.reply(Message(f"What about item {n * 13}?", moment + timedelta(minutes=messages + n)))
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


class HashEmbedder:
    name = "hash"

    async def embed(self, texts):  # noqa: ANN001, ANN201
        vectors = np.random.default_rng(len(texts)).standard_normal((len(texts), 256)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True), Usage()


async def million() -> None:
    texts = [sentence(n) for n in range(40_000)]  # about 1M tokens
    for index in (LexicalIndex(), DenseIndex(HashEmbedder(), MemoryModel(InstantModel()))):  # type: ignore[arg-type]
        started = time.perf_counter()
        for start in range(0, len(texts), 1000):
            await index.add(texts[start : start + 1000])
        added = time.perf_counter() - started
        started = time.perf_counter()
        for n in range(20):
            await index.search(f"lantern copper item {n}", 10)
        print(
            f"{type(index).__name__:<13} 1M tokens: added in {added:.1f} s, one search"
            f" {1000 * (time.perf_counter() - started) / 20:.1f} ms"
        )


async def main() -> None:
    print(f"{'mechanism':<20} {'8k: ms/reply':>13} {'120k: ms/reply':>15}")
    for mechanism in MECHANISMS:
        small, large = await per_message(mechanism, 8_000), await per_message(mechanism, 120_000)
        print(f"{mechanism:<20} {1000 * small:>13.1f} {1000 * large:>15.1f}")
    await million()


if __name__ == "__main__":
    asyncio.run(main())
