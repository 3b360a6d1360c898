"""Building the agent a spec names, and checking beforehand that it can be built here.

`check_agent_spec` fails early, in one line, on what would otherwise fail at the first turn (a
missing key, a server that does not answer, a module that does not import).  `build_agent` makes
the agent and wraps it in the protocol's adapter; `agent_factory` says whether each conversation
can have an agent of its own.  Model adapters and mechanisms are imported here only when a spec
needs them, so parsing and checking an offline spec stay cheap.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.loading import import_target, load_entry_point
from pytest_memorybench.agents.registry import (
    MECHANISMS,
    REFERENCE_AGENTS,
    unknown_agent,
    unknown_prefix,
)
from pytest_memorybench.agents.spec import (
    API_KEY_VARIABLES,
    ENTRY_POINT_GROUP,
    LLM_PROVIDERS,
    AgentOptions,
    AgentSpec,
)
from pytest_memorybench.core.errors import describe_exception, usage_error

if TYPE_CHECKING:
    from pytest_memorybench.agents.mechanisms.base import MemorySystem
    from pytest_memorybench.agents.mechanisms.model import MemoryModel
    from pytest_memorybench.models.llm import LLMChatAgent


def check_agent_spec(spec: AgentSpec, options: AgentOptions | None = None) -> None:
    """Fail early, in one line, on what would otherwise fail at the first turn."""
    if spec.kind in ("memory", "store"):
        from pytest_memorybench.agents.mechanisms.embedders import check_embedder

        check_agent_spec(spec.model)
        if options is not None and options.memory_model is not None:
            check_agent_spec(options.memory_model)
        if options is not None and options.embedder is not None:
            check_embedder(options.embedder)
        if spec.kind == "store":
            from pytest_memorybench.agents.stores.store_build import check_store

            check_store(spec, options or AgentOptions())
    elif spec.kind in LLM_PROVIDERS:
        from pytest_memorybench.models.http import probe_server

        if spec.base_url is None:
            variable = API_KEY_VARIABLES[spec.kind]
            if not os.environ.get(variable):
                raise usage_error(
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
    """The agent `spec` names, behind the protocol's adapter."""
    if spec.kind == "builtin":
        target: Any = REFERENCE_AGENTS[spec.target].load()()
    elif spec.kind in LLM_PROVIDERS:
        target = model_agent(spec, options)
    elif spec.kind == "memory":
        target = build_mechanism(spec, options)
    elif spec.kind == "store":
        from pytest_memorybench.agents.stores.store_build import build_store_memory

        assert spec.model_spec is not None
        target = build_store_memory(spec, options, model_agent(spec.model_spec, options))
    elif spec.kind == "entry_point":
        target = _instantiate(_load_entry_point(spec), spec)
    else:
        target = _instantiate(_import_target(spec), spec)
    # A model adapter times out each request itself and retries it (a stalled provider is an outage
    # to ride out); the harness's own limit would cut those retries short, so it only bounds the
    # agents it cannot see into.
    return AgentAdapter(target, spec.display, timeout=None if spec.calls_a_model else options.timeout)


def model_agent(spec: AgentSpec, options: AgentOptions) -> LLMChatAgent:
    """The chat adapter for an `openai:` or `anthropic:` spec."""
    if spec.kind == "openai":
        from pytest_memorybench.models.openai import OpenAIChatAgent

        return OpenAIChatAgent(
            spec.target or None,
            base_url=spec.base_url,
            context_tokens=options.context_tokens,
            timeout=options.timeout,
            limits=options.limits,
        )
    from pytest_memorybench.models.anthropic import AnthropicAgent

    return AnthropicAgent(
        spec.target,
        base_url=spec.base_url,
        context_tokens=options.context_tokens,
        timeout=options.timeout,
        thinking_tokens=options.thinking_tokens,
        limits=options.limits,
    )


def build_mechanism(
    spec: AgentSpec, options: AgentOptions, stand_in: MemoryModel | None = None
) -> MemorySystem:
    """A memory mechanism over its models and embedder; over `stand_in` with lexical retrieval for
    `--mb-estimate`, which plays the run without calling anything."""
    from pytest_memorybench.agents.mechanisms.embedders import EmbedderSpec, make_embedder
    from pytest_memorybench.agents.mechanisms.model import MemoryModel

    assert spec.memory is not None and spec.model_spec is not None
    if stand_in is not None:
        model, embedder = stand_in, make_embedder(EmbedderSpec("lexical"))
    else:
        answerer = model_agent(spec.model_spec, options)
        worker = model_agent(options.memory_model, options) if options.memory_model is not None else None
        model, embedder = (
            MemoryModel(answerer, worker),
            make_embedder(options.embedder or EmbedderSpec("lexical")),
        )
    mechanism: type[MemorySystem] = MECHANISMS[spec.memory.mechanism].load()
    system = mechanism(model, embedder, spec.memory.settings)
    system.memory_cap = options.memory_tokens
    return system


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
    installed = [point.name for point in entry_points(group=ENTRY_POINT_GROUP)]
    return load_entry_point(
        ENTRY_POINT_GROUP,
        spec.target,
        spec.text,
        f"no built-in agent or installed '{ENTRY_POINT_GROUP}' entry point has that name;"
        f" {unknown_agent(spec.target, installed)}",
    )


def _import_target(spec: AgentSpec) -> Any:
    return import_target(
        spec.target,
        spec.text,
        unknown_prefix(spec.target.partition(":")[0], module=True),
    )


def _instantiate(obj: Any, spec: AgentSpec) -> Any:
    """An agent object is used as is; a class or zero-argument factory is called; a one-argument
    function is the reply function itself."""
    if hasattr(obj, "reply") and not inspect.isclass(obj):
        return obj
    if not callable(obj):
        raise usage_error(f"--agent {spec.text}: {type(obj).__name__} is neither an agent nor callable")
    if inspect.isclass(obj) or _required_parameters(obj) == 0:
        try:
            return obj()
        except Exception as exc:  # noqa: BLE001
            raise usage_error(
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
