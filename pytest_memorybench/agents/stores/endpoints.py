"""The models a product with models of its own (Mem0, Graphiti) is pointed at: the MODEL_SPEC's LLM,
and an embedder (`--mb-embedder openai:MODEL[@URL]`, else the MODEL_SPEC's server and model, else
OpenAI's embeddings), both through OpenAI's API, so the product extracts with the model the
harness answers with."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Usage

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

OPENAI_EMBEDDINGS = "text-embedding-3-small"


@dataclass(frozen=True)
class Endpoint:
    """A model on an OpenAI-compatible server (or OpenAI's own, with no URL)."""

    model: str
    base_url: str | None

    @property
    def api_key(self) -> str | None:
        """A local server's placeholder key; None lets OpenAI's SDK read OPENAI_API_KEY."""
        from pytest_memorybench.models.llm import LOCAL_API_KEY

        return LOCAL_API_KEY if self.base_url is not None else None

    def config(self, url_key: str) -> JsonObject:
        config: JsonObject = {"model": self.model}
        if self.base_url is not None:
            config |= {url_key: self.base_url, "api_key": self.api_key}
        return config


def openai_endpoints(
    store: str, product: str, model: AgentSpec, options: AgentOptions
) -> tuple[Endpoint, Endpoint]:
    """The product's LLM and embedder for `--agent STORE:MODEL_SPEC`; one line when either cannot
    be reached through OpenAI's API."""
    if model.kind != "openai":
        raise usage_error(
            f"--agent {store}:{model.text}: {product}'s LLM is reached here through OpenAI's API; give"
            " openai:MODEL or openai:MODEL@URL (any compatible server)"
        )
    name = model.target or "default"  # a bare URL: the server's own model
    chosen = options.embedder
    if chosen is not None and chosen.kind == "openai":
        embedder = Endpoint(chosen.model, chosen.base_url)
    elif chosen is not None and chosen.kind != "lexical":
        raise usage_error(
            f"--mb-embedder {chosen.display}: {product} embeds through an OpenAI-compatible endpoint; give"
            " openai:MODEL[@URL], or leave it out to embed on the MODEL_SPEC's server"
        )
    else:
        embedder = Endpoint(name if model.base_url else OPENAI_EMBEDDINGS, model.base_url)
    return Endpoint(name, model.base_url), embedder


async def count_usage(usage: Usage, response: Any) -> None:
    """An httpx response hook's work: the tokens a chat or embedding call reports, added to `usage`
    (how the products that call the MODEL_SPEC's server themselves are charged for it)."""
    if not response.request.url.path.endswith(("/chat/completions", "/embeddings")):
        return
    await response.aread()
    try:
        spent = json.loads(response.content).get("usage") or {}
    except (ValueError, AttributeError):
        return
    usage.add(Usage(int(spent.get("prompt_tokens") or 0), int(spent.get("completion_tokens") or 0), calls=1))


def llama_cpp_schema_form(response_format: Any) -> JsonObject | None:
    """OpenAI's `json_schema` response format as llama-cpp-python's server takes a schema,
    `{"type": "json_object", "schema": …}` (it refuses `json_schema`); None for any other format."""
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return None
    return {"type": "json_object", "schema": response_format["json_schema"]["schema"]}
