"""`--agent` specs: parse the text, check it can work here, and build the agent.

Forms, tried in this order:
  recall | null | oracle              built-in agents, no network
  full-memory | recent-memory | retrieval-memory   reference memory agents, no network
  MECHANISM[(SETTINGS)]:MODEL_SPEC    a memory system over a model (`agents/memory/systems.py`),
                                      e.g. rag:openai:gpt-4o-mini, light(k=10):openai:NAME@URL
  openai:MODEL[@URL]                  OpenAI chat completions (URL: any compatible server)
  anthropic:MODEL[@URL]               Anthropic messages
  http(s)://HOST/.../v1               an OpenAI-compatible server; the model is its first listed
  NAME                                an entry point in the `memorybench.agents` group
  pkg.module:attribute                a Python object: an agent, an agent class or factory, or a
                                      plain `str -> str` reply function
Parsing is pure; `check_agent_spec` does the cheap environment checks (API key present, module
importable, server reachable) so that a bad spec fails before any test runs, with exit code 4.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Literal

from pytest_memorybench.agents.limits import RateLimits
from pytest_memorybench.agents.protocol import AgentAdapter
from pytest_memorybench.core.errors import UsageError, describe_exception

if TYPE_CHECKING:
    from pytest_memorybench.agents.memory.embedders import EmbedderSpec
    from pytest_memorybench.agents.memory.systems import MemorySpec

ENTRY_POINT_GROUP = "memorybench.agents"
LLM_PROVIDERS = ("openai", "anthropic")
API_KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
SPEC_FORMS = (
    "recall, null, oracle, full-memory, recent-memory, retrieval-memory, openai:MODEL, anthropic:MODEL,"
    " openai:MODEL@URL, http://HOST:PORT/v1, MECHANISM:MODEL (rag, light, memgpt, …), an installed"
    " memorybench.agents entry point, or pkg.module:factory"
)

Kind = Literal["builtin", "openai", "anthropic", "memory", "entry_point", "import"]
_URL = re.compile(r"^https?://\S+$")
_CREDENTIALS = re.compile(r"(https?://)[^/@\s]+@")
_NEITHER = (
    "neither a model prefix (openai, anthropic) nor a memory mechanism (full-context, recent-memory, rag,"
    " light, ltm-agent, memorybank, generative-agents, memgpt, scm)"
)
_IMPORT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


@dataclass(frozen=True)
class AgentSpec:
    text: str
    kind: Kind
    target: str  # builtin or entry-point name, model name, mechanism, or "module:attribute"
    base_url: str | None = None
    memory: MemorySpec | None = None  # a memory system's mechanism and settings
    model_spec: AgentSpec | None = None  # the model a memory system answers with

    @property
    def model(self) -> AgentSpec:
        """The model spec behind the agent: its own, or a memory system's answering model."""
        return self.model_spec or self

    @property
    def calls_a_model(self) -> bool:
        return self.model.kind in LLM_PROVIDERS

    @property
    def display(self) -> str:
        """The spec as shown in reports and logs: any user:password@ in a URL is masked."""
        return mask_credentials(self.text)


def mask_credentials(text: str) -> str:
    """`https://user:secret@host` → `https://***@host`, for anything shown or logged."""
    return _CREDENTIALS.sub(r"\1***@", text)


@dataclass(frozen=True)
class AgentOptions:
    """Settings the command line passes to the agents it builds."""

    context_tokens: int | None = None
    timeout: float | None = 600.0
    thinking_tokens: int | None = None  # Anthropic extended thinking budget
    limits: RateLimits = field(
        default_factory=RateLimits
    )  # the provider's limits, shared by all conversations
    memory_model: AgentSpec | None = (
        None  # a memory system's model for its own work (default: the answering one)
    )
    embedder: EmbedderSpec | None = None  # what a memory system ranks with (default: lexical)


def builtin_agents() -> dict[str, type]:
    from pytest_memorybench.agents.memory import AGENTS as MEMORY_AGENTS
    from pytest_memorybench.agents.null import NullAgent
    from pytest_memorybench.agents.oracle import OracleAgent
    from pytest_memorybench.agents.recall import RecallAgent

    return {"recall": RecallAgent, "null": NullAgent, "oracle": OracleAgent, **MEMORY_AGENTS}


def parse_agent_spec(text: str) -> AgentSpec:
    spec = text.strip()
    if not spec:
        raise UsageError(f"--agent is empty: give one of {SPEC_FORMS}")
    if spec in builtin_agents():
        return AgentSpec(spec, "builtin", spec)
    if _URL.match(spec):
        return AgentSpec(spec, "openai", "", base_url=spec.rstrip("/"))
    from pytest_memorybench.agents.memory.systems import parse_memory_spec

    memory = parse_memory_spec(spec)
    if memory is not None:
        model = parse_agent_spec(memory.model)
        if model.kind not in LLM_PROVIDERS:
            raise UsageError(
                f"--agent {spec!r}: {memory.mechanism} answers with a model: give openai:MODEL,"
                f" anthropic:MODEL, openai:MODEL@URL or a URL after '{memory.mechanism}:', not"
                f" {memory.model!r}"
            )
        return AgentSpec(
            spec, "memory", memory.mechanism, base_url=model.base_url, memory=memory, model_spec=model
        )
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in LLM_PROVIDERS:
        model, at, url = rest.partition("@")
        if not model or (at and not _URL.match(url)):
            raise UsageError(
                f"--agent {spec!r}: expected {prefix}:MODEL or {prefix}:MODEL@http(s)://HOST/..."
            )
        return AgentSpec(spec, prefix, model, base_url=url.rstrip("/") or None)  # type: ignore[arg-type]
    if _IMPORT.match(spec):
        return AgentSpec(spec, "import", spec)
    if sep:
        raise UsageError(
            f"--agent {spec!r}: {prefix!r} is {_NEITHER}; or pkg.module:factory for your own agent"
        )
    if re.fullmatch(r"[\w.-]+", spec):
        return AgentSpec(spec, "entry_point", spec)
    raise UsageError(f"--agent {spec!r} is not an agent spec: use {SPEC_FORMS}")


def check_agent_spec(spec: AgentSpec, options: AgentOptions | None = None) -> None:
    """Fail early, in one line, on what would otherwise fail at the first turn."""
    if spec.kind == "memory":
        from pytest_memorybench.agents.memory.embedders import check_embedder

        check_agent_spec(spec.model)
        if options is not None and options.memory_model is not None:
            check_agent_spec(options.memory_model)
        if options is not None and options.embedder is not None:
            check_embedder(options.embedder)
    elif spec.kind in LLM_PROVIDERS:
        from pytest_memorybench.agents.llm import probe_server

        if spec.base_url is None:
            variable = API_KEY_VARIABLES[spec.kind]
            if not os.environ.get(variable):
                raise UsageError(
                    f"--agent {spec.text}: {variable} is not set; export it, or point the agent at "
                    f"a compatible server with {spec.kind}:MODEL@URL"
                )
        else:
            probe_server(spec.base_url, spec.text)
    elif spec.kind == "entry_point":
        _load_entry_point(spec)
    elif spec.kind == "import":
        _import_target(spec)


def build_agent(spec: AgentSpec, options: AgentOptions = AgentOptions()) -> AgentAdapter:
    if spec.kind == "builtin":
        target: Any = builtin_agents()[spec.target]()
    elif spec.kind in LLM_PROVIDERS:
        target = model_agent(spec, options)
    elif spec.kind == "memory":
        from pytest_memorybench.agents.memory.build import build_memory_system

        target = build_memory_system(spec, options)
    elif spec.kind == "entry_point":
        target = _instantiate(_load_entry_point(spec), spec)
    else:
        target = _instantiate(_import_target(spec), spec)
    # A model adapter times out each request itself and retries it (a stalled provider is an outage
    # to ride out); the harness's own limit would cut those retries short, so it only bounds the
    # agents it cannot see into.
    return AgentAdapter(target, spec.display, timeout=None if spec.calls_a_model else options.timeout)


def model_agent(spec: AgentSpec, options: AgentOptions) -> Any:
    """The chat adapter for an `openai:` or `anthropic:` spec."""
    if spec.kind == "openai":
        from pytest_memorybench.agents.openai_agent import OpenAIChatAgent

        return OpenAIChatAgent(
            spec.target or None,
            base_url=spec.base_url,
            context_tokens=options.context_tokens,
            timeout=options.timeout,
            limits=options.limits,
        )
    from pytest_memorybench.agents.anthropic_agent import AnthropicAgent

    return AnthropicAgent(
        spec.target,
        base_url=spec.base_url,
        context_tokens=options.context_tokens,
        timeout=options.timeout,
        thinking_tokens=options.thinking_tokens,
        limits=options.limits,
    )


def agent_factory(
    spec: AgentSpec, options: AgentOptions = AgentOptions()
) -> Callable[[], AgentAdapter] | None:
    """How to make a new agent for each conversation; None when the spec names one object (an agent
    instance, a `str -> str` reply function), which the conversations must then share."""
    if spec.kind in ("entry_point", "import"):
        obj = _load_entry_point(spec) if spec.kind == "entry_point" else _import_target(spec)
        if not (
            inspect.isclass(obj)
            or (callable(obj) and not hasattr(obj, "reply") and _required_parameters(obj) == 0)
        ):
            return None
    return functools.partial(build_agent, spec, options)


def _load_entry_point(spec: AgentSpec) -> Any:
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == spec.target]
    if not found:
        raise UsageError(
            f"--agent {spec.text!r}: no built-in agent or installed '{ENTRY_POINT_GROUP}' entry "
            f"point has that name; use {SPEC_FORMS}"
        )
    try:
        return found[0].load()
    except Exception as exc:  # noqa: BLE001
        raise UsageError(
            f"--agent {spec.text}: loading its entry point failed: {describe_exception(exc)}"
        ) from None


def _import_target(spec: AgentSpec) -> Any:
    """Import `module:attribute`, finding modules in the current directory as `python -m` does."""
    module_name, _, attribute = spec.target.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name and "." not in module_name:
            raise UsageError(
                f"--agent {spec.text!r}: {module_name!r} is {_NEITHER}, nor a module; your own agent:"
                " pkg.module:factory"
            ) from None
        raise UsageError(
            f"--agent {spec.text}: cannot import {module_name!r} ({describe_exception(exc)}); "
            "check the module path and that it is importable from the current directory"
        ) from None
    except Exception as exc:  # noqa: BLE001
        raise UsageError(
            f"--agent {spec.text}: cannot import {module_name!r} ({describe_exception(exc)}); "
            "check the module path and that it is importable from the current directory"
        ) from None
    obj: Any = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"--agent {spec.text}: module {module_name!r} has no attribute {attribute!r}")
        obj = getattr(obj, part)
    return obj


def _instantiate(obj: Any, spec: AgentSpec) -> Any:
    """An agent object is used as is; a class or zero-argument factory is called; a one-argument
    function is the reply function itself."""
    if hasattr(obj, "reply") and not inspect.isclass(obj):
        return obj
    if not callable(obj):
        raise UsageError(f"--agent {spec.text}: {type(obj).__name__} is neither an agent nor callable")
    if inspect.isclass(obj) or _required_parameters(obj) == 0:
        try:
            return obj()
        except Exception as exc:  # noqa: BLE001
            raise UsageError(
                f"--agent {spec.text}: creating the agent failed: {describe_exception(exc)}"
            ) from None
    return obj


def _required_parameters(func: Any) -> int:
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(
        1
        for p in parameters
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )
