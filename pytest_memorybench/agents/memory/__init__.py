"""Memory systems: the seeds' mechanisms as agents over any model, and the offline reference memories.

`reference` holds `full-memory`, `recent-memory` and `retrieval-memory`, which answer with the
extractive `recall` reader and need no model.  `--agent MECHANISM:MODEL_SPEC` builds one of the
mechanisms of `systems.MECHANISMS` around a model: `base` is what they share (the agent protocol, a
reply read then written), `model` counts their calls as *write* or *read*, `embedders` and `index`
rank what they stored, and each mechanism has a module of its own (`full_context`, `recent`,
`rag`, `light`, `ltm_agent`, `memorybank`, `generative_agents`, `memgpt`, `scm`).
The reference agents' names are imported from here when first used, so parsing a spec stays light.
"""

from typing import Any

__all__ = [
    "AGENTS",
    "DEFAULT_CONTEXT_WORDS",
    "DEFAULT_K",
    "DEFAULT_MAX_WORDS",
    "DEFAULT_RECENT_TURNS",
    "FullMemory",
    "FullMemoryAgent",
    "MemoryAgent",
    "MemoryComponent",
    "RecentMemory",
    "RecentMemoryAgent",
    "RetrievalMemory",
    "RetrievalMemoryAgent",
    "full_memory",
    "recent_memory",
    "retrieval_memory",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from pytest_memorybench.agents.memory import reference

        return getattr(reference, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
