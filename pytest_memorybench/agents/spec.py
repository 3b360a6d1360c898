"""`--agent` specs, parsed: what the text names, before anything is imported or called.

Forms, tried in this order (names from `agents/registry.py`):
  recall | null | oracle | full-memory | recent-memory | retrieval-memory
                                      offline reference agents, no network
  MECHANISM[(SETTINGS)]:MODEL_SPEC    a memory mechanism over a model (`mechanism_spec.py`),
                                      e.g. rag:openai:gpt-4o-mini, light(k=10):openai:NAME@URL
  STORE[(SETTINGS)]:MODEL_SPEC        a memory store answered by a model (`store_spec.py`), e.g.
                                      bm25:openai:gpt-4o-mini, store(factory=pkg.mod:make):URL
  openai:MODEL[@URL]                  OpenAI chat completions (URL: any compatible server)
  anthropic:MODEL[@URL]               Anthropic messages
  http(s)://HOST/.../v1               an OpenAI-compatible server; the model is its first listed
  NAME                                an entry point in the `memorybench.agents` group
  pkg.module:attribute                a Python object: an agent, an agent class or factory, or a
                                      plain `str -> str` reply function
Parsing is pure; `build.check_agent_spec` does the cheap environment checks (API key present,
module importable, server reachable) so that a bad spec fails before any test runs, with exit
code 4, and `build.build_agent` makes the agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pytest_memorybench.agents.mechanism_spec import MemorySpec, parse_memory_spec
from pytest_memorybench.agents.registry import (
    EVERY_FORM,
    MODEL_PREFIXES,
    REFERENCE_AGENTS,
    unknown_agent,
    unknown_prefix,
)
from pytest_memorybench.agents.store_spec import StoreSpec, parse_store_spec
from pytest_memorybench.core.errors import mask_credentials, usage_error
from pytest_memorybench.models.limits import RateLimits

if TYPE_CHECKING:
    from pytest_memorybench.agents.mechanisms.embedders import EmbedderSpec

ENTRY_POINT_GROUP = "memorybench.agents"
LLM_PROVIDERS = MODEL_PREFIXES
DEFAULT_STORE_K = 10  # the hits every answer of a memory store gets (`--mb-k`)
MEMORY_TOKENS = 4000  # the memories' share of a store's every answering prompt (`--mb-context-tokens`)
API_KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

Kind = Literal["builtin", "openai", "anthropic", "memory", "store", "entry_point", "import"]
_URL = re.compile(r"^https?://\S+$")
_IMPORT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


@dataclass(frozen=True)
class AgentSpec:
    """What an `--agent` text names: its kind, its target and, for a memory system, its parts."""

    text: str
    kind: Kind
    target: str  # builtin or entry-point name, model name, mechanism, or "module:attribute"
    base_url: str | None = None
    memory: MemorySpec | None = None  # a memory system's mechanism and settings
    store: StoreSpec | None = None  # a memory store and its settings
    model_spec: AgentSpec | None = None  # the model a memory system or store answers with

    @property
    def model(self) -> AgentSpec:
        """The model spec behind the agent: its own, or a memory system's answering model."""
        return self.model_spec or self

    @property
    def calls_a_model(self) -> bool:
        """Whether the agent's replies come from a model API (which times out and retries itself)."""
        return self.model.kind in LLM_PROVIDERS

    @property
    def display(self) -> str:
        """The spec as shown in reports and logs: any user:password@ in a URL is masked."""
        return mask_credentials(self.text)


@dataclass(frozen=True)
class AgentOptions:
    """Settings the command line passes to the agents it builds."""

    context_tokens: int | None = None
    timeout: float | None = 600.0
    thinking_tokens: int | None = None  # Anthropic extended thinking budget
    # the provider's limits, shared by all conversations
    limits: RateLimits = field(default_factory=RateLimits)
    # a memory system's model for its own work (default: the answering one)
    memory_model: AgentSpec | None = None
    embedder: EmbedderSpec | None = None  # what a memory system ranks with (default: lexical)
    k: int = DEFAULT_STORE_K
    memory_tokens: int | None = None  # --mb-context-tokens: the memory an answer is given, capped


def parse_agent_spec(text: str) -> AgentSpec:
    """What `text` names, or one line saying what is wrong with it."""
    spec = text.strip()
    if not spec:
        raise usage_error(
            f"--agent is empty: give an agent, e.g. --agent=recall or --agent=openai:MODEL ({EVERY_FORM})"
        )
    if spec in REFERENCE_AGENTS:
        return AgentSpec(spec, "builtin", spec)
    if _URL.match(spec):
        return AgentSpec(spec, "openai", "", base_url=spec.rstrip("/"))
    memory = parse_memory_spec(spec)
    if memory is not None:
        return _memory_system(spec, memory)
    store = parse_store_spec(spec)
    if store is not None:
        model = _answering_model(spec, store.name, store.model)
        return AgentSpec(spec, "store", store.name, base_url=model.base_url, store=store, model_spec=model)
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in LLM_PROVIDERS:
        return _model(spec, prefix, rest)
    if _IMPORT.match(spec):
        return AgentSpec(spec, "import", spec)
    if sep:
        raise usage_error(f"--agent {spec!r}: {unknown_prefix(prefix)}")
    if re.fullmatch(r"[\w.-]+", spec):
        return AgentSpec(spec, "entry_point", spec)
    raise usage_error(f"--agent {spec!r} is not an agent spec; {unknown_agent(spec)}")


def _memory_system(spec: str, memory: MemorySpec) -> AgentSpec:
    model = _answering_model(spec, memory.mechanism, memory.model)
    return AgentSpec(
        spec, "memory", memory.mechanism, base_url=model.base_url, memory=memory, model_spec=model
    )


def _answering_model(spec: str, name: str, text: str) -> AgentSpec:
    """The model spec after a mechanism's or a store's name, which must name a model."""
    model = parse_agent_spec(text)
    if model.kind not in LLM_PROVIDERS:
        raise usage_error(
            f"--agent {spec!r}: {name} answers with a model: give openai:MODEL, anthropic:MODEL,"
            f" openai:MODEL@URL or a URL after '{name}:', not {text!r}"
        )
    return model


def _model(spec: str, prefix: str, rest: str) -> AgentSpec:
    model, at, url = rest.partition("@")
    if not model or (at and not _URL.match(url)):
        raise usage_error(f"--agent {spec!r}: expected {prefix}:MODEL or {prefix}:MODEL@http(s)://HOST/...")
    kind: Kind = "openai" if prefix == "openai" else "anthropic"
    return AgentSpec(spec, kind, model, base_url=url.rstrip("/") or None)
