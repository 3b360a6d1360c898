"""Building a memory system from its spec: the mechanism, its models and its embedder."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_memorybench.agents.memory.base import MemorySystem
from pytest_memorybench.agents.memory.embedders import EmbedderSpec, make_embedder
from pytest_memorybench.agents.memory.model import MemoryModel
from pytest_memorybench.agents.memory.systems import mechanism_class

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec


def build_memory_system(spec: AgentSpec, options: AgentOptions) -> MemorySystem:
    from pytest_memorybench.agents.spec import model_agent

    assert spec.memory is not None and spec.model_spec is not None
    answerer = model_agent(spec.model_spec, options)
    worker = model_agent(options.memory_model, options) if options.memory_model is not None else None
    embedder = make_embedder(options.embedder or EmbedderSpec("lexical"))
    system: MemorySystem = mechanism_class(spec.memory.mechanism)(MemoryModel(answerer, worker), embedder, spec.memory.settings)
    return system
