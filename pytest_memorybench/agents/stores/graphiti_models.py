"""What Graphiti's models are reached through: an embedder of Graphiti's interface over an
OpenAI-compatible `/embeddings`, and a chat client for servers that take a JSON schema the way
llama-cpp-python's does.  Imported only once graphiti-core is known to be installed."""

from __future__ import annotations

from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

import openai
from graphiti_core.embedder.client import EmbedderClient

from pytest_memorybench.agents.mechanisms.embedders import pooled
from pytest_memorybench.agents.stores.endpoints import Endpoint, llama_cpp_schema_form


class PooledEmbedder(EmbedderClient):
    """The endpoint's embeddings, the mean of a server's per-token vectors where it returns those
    (llama.cpp serving a chat model), which Graphiti's own OpenAI embedder would store as they
    come."""

    def __init__(self, endpoint: Endpoint, client: openai.AsyncOpenAI) -> None:
        self.endpoint = endpoint
        self.client = client

    async def create(
        self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]
    ) -> list[float]:
        """The first input's vector, as Graphiti's own OpenAI embedder answers (it passes a text or a
        list of one)."""
        inputs = [input_data] if isinstance(input_data, str) else list(input_data)
        return (await self.create_batch(inputs))[0]

    async def create_batch(self, input_data_list: list[Any]) -> list[list[float]]:
        found = await self.client.embeddings.create(model=self.endpoint.model, input=list(input_data_list))
        return [[float(x) for x in pooled(item.embedding)] for item in found.data]


class ChatClient:
    """An AsyncOpenAI as Graphiti's LLM client uses it, with two of the store's settings applied to
    each chat completion: a schema asked for as `{"type": "json_object", "schema": …}`, the form
    llama-cpp-python's server takes, instead of OpenAI's `json_schema`, which that server refuses;
    and a cap on the tokens a reply may take (Graphiti allows 16,384, and a small model held to a
    schema can fill them)."""

    def __init__(self, client: openai.AsyncOpenAI, *, schema_in_json_object: bool, max_tokens: int) -> None:
        self._client = client
        self.schema_in_json_object = schema_in_json_object
        self.max_tokens = max_tokens
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def _create(self, **request: Any) -> Any:
        held = llama_cpp_schema_form(request.get("response_format"))
        if self.schema_in_json_object and held is not None:
            request["response_format"] = held
        if self.max_tokens:
            request["max_tokens"] = min(self.max_tokens, request.get("max_tokens") or self.max_tokens)
        return await self._client.chat.completions.create(**request)
