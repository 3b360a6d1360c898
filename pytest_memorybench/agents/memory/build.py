"""Building a memory system from its spec: the mechanism, its models and its embedder."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_memorybench.agents.memory.base import MemorySystem
from pytest_memorybench.agents.memory.embedders import EmbedderSpec, make_embedder
from pytest_memorybench.agents.memory.model import MemoryModel
from pytest_memorybench.agents.memory.systems import mechanism_class

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec


def build_memory_system(
    spec: AgentSpec, options: AgentOptions, stand_in: MemoryModel | None = None
) -> MemorySystem:
    """The mechanism over its models; over `stand_in` with lexical retrieval for `--mb-estimate`,
    which plays the run without calling anything."""
    from pytest_memorybench.agents.spec import model_agent

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
    system: MemorySystem = mechanism_class(spec.memory.mechanism)(model, embedder, spec.memory.settings)
    return system
