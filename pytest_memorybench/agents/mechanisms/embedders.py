"""What a memory ranks its memories with: lexical offline, a wheel-shipped model, or an endpoint.

`--mb-embedder` chooses, for every memory system of the run:
  lexical                 BM25 over words (the default; nothing to download or call)
  wordllama               WordLlama's 256-dimension embeddings, whose weights ship inside its wheel
                          (`pip install 'pytest-memorybench[embeddings]'`); the papers embed with small
                          sentence encoders (BEAM: bge-small, MemBench: e5-small), this is the one that
                          runs offline without torch
  openai:MODEL[@URL]      any OpenAI-compatible `/v1/embeddings` (text-embedding-3-small, or
                          llama-cpp-python's server started with embeddings on)
An embedder turns texts into unit vectors and says what that cost; the index (`index.py`) does
the ranking.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.names import suggest
from pytest_memorybench.core.records import Usage
from pytest_memorybench.core.wordllama import wordllama_model

if TYPE_CHECKING:
    import numpy as np

LEXICAL = "lexical"
EMBEDDER_FORMS = "lexical, wordllama, openai:MODEL or openai:MODEL@http(s)://HOST/v1"
BATCH = 256  # texts per embeddings request
_ENDPOINT = re.compile(r"^openai:([^@\s]+)(?:@(https?://\S+))?$")


class Embedder(Protocol):
    """Texts to unit vectors (one row each), and the usage of getting them."""

    name: str

    async def embed(self, texts: Sequence[str]) -> tuple[np.ndarray, Usage]: ...


@dataclass(frozen=True)
class EmbedderSpec:
    """`--mb-embedder` parsed: `lexical`, `wordllama` or an endpoint's model and URL."""

    kind: str
    model: str = ""
    base_url: str | None = None

    @property
    def display(self) -> str:
        if self.kind == "openai":
            return f"openai:{self.model}" + (f"@{self.base_url}" if self.base_url else "")
        return self.kind


def parse_embedder(text: str) -> EmbedderSpec:
    """`--mb-embedder`'s value as a spec: lexical, wordllama or an OpenAI-compatible endpoint; one line when
    it is none of them.
    """
    value = text.strip()
    if value in (LEXICAL, "wordllama"):
        return EmbedderSpec(value)
    match = _ENDPOINT.match(value)
    if match:
        return EmbedderSpec("openai", match.group(1), (match.group(2) or "").rstrip("/") or None)
    hint = suggest(value, (LEXICAL, "wordllama"), where=f"embedders: {EMBEDDER_FORMS}")
    raise usage_error(f"--mb-embedder {text!r} is not an embedder; {hint}")


def make_embedder(spec: EmbedderSpec) -> Embedder | None:
    """The embedder for `spec`; None for lexical ranking, which needs none."""
    if spec.kind == LEXICAL:
        return None
    if spec.kind == "wordllama":
        return WordLlamaEmbedder()
    return EndpointEmbedder(spec.model, spec.base_url)


def check_embedder(spec: EmbedderSpec) -> None:
    """Before any test runs: the package is there, the server answers, or a key is set; one line if not."""
    if spec.kind == "wordllama":
        _wordllama()
    elif spec.kind == "openai":
        if spec.base_url is not None:
            from pytest_memorybench.models.http import probe_server

            probe_server(spec.base_url, spec.display, flag="--mb-embedder")
        elif not os.environ.get("OPENAI_API_KEY"):
            raise usage_error(
                f"--mb-embedder {spec.display}: OPENAI_API_KEY is not set; export it, or give a server:"
                " openai:MODEL@URL"
            )


class WordLlamaEmbedder:
    """WordLlama's `l2_supercat` 256-dimension model, loaded from the files inside its wheel
    (`core/wordllama.py`)."""

    name = "wordllama"

    async def embed(self, texts: Sequence[str]) -> tuple[np.ndarray, Usage]:
        import numpy as np  # here: the spec parser imports this module in every run

        started = time.perf_counter()
        vectors = np.asarray(_wordllama().embed(list(texts), norm=True), dtype=np.float32)
        return vectors, Usage(seconds=time.perf_counter() - started)


def _wordllama() -> Any:
    return wordllama_model("--mb-embedder wordllama")


def pooled(embedding: Sequence[Any]) -> np.ndarray:
    """One vector for a text: a server without pooling (llama.cpp serving a chat model) returns
    one per token, and their mean stands for the text."""
    import numpy as np

    vector = np.asarray(embedding, dtype=np.float32)
    return vector.mean(axis=0) if vector.ndim == 2 else vector


class EndpointEmbedder:
    """An OpenAI-compatible `/v1/embeddings`, in batches, with transient failures retried."""

    def __init__(self, model: str, base_url: str | None = None, *, attempts: int = 5) -> None:
        import openai

        from pytest_memorybench.models.http import shared_tls
        from pytest_memorybench.models.llm import LOCAL_API_KEY

        key = None if base_url is None else LOCAL_API_KEY
        self.name = f"openai:{model}"
        self.model = model
        self.attempts = attempts
        self._transient = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)
        self._client = openai.AsyncOpenAI(
            api_key=key,
            base_url=base_url,
            max_retries=0,
            timeout=120,
            http_client=openai.DefaultAsyncHttpxClient(verify=shared_tls()),
        )

    async def embed(self, texts: Sequence[str]) -> tuple[np.ndarray, Usage]:
        import numpy as np

        rows: list[np.ndarray] = []
        spent = Usage()
        for start in range(0, len(texts), BATCH):
            batch = [text or " " for text in texts[start : start + BATCH]]  # servers refuse an empty input
            started = time.perf_counter()
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(self.attempts),
                wait=wait_exponential(0.5, max=20),
                retry=retry_if_exception(lambda exc: isinstance(exc, self._transient)),
                reraise=True,
            ):
                with attempt:
                    response = await self._client.embeddings.create(model=self.model, input=batch)
            rows.extend(pooled(item.embedding) for item in sorted(response.data, key=lambda item: item.index))
            usage = getattr(response, "usage", None)
            spent.add(
                Usage(
                    input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                    seconds=time.perf_counter() - started,
                    calls=1,
                )
            )
        vectors = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms), spent

    async def aclose(self) -> None:
        await self._client.close()
