"""Memory mechanisms: the seeds' memory systems as agents over any model, and what a new one builds on.

`--agent MECHANISM:MODEL_SPEC` builds one of the mechanisms of `agents/registry.py` around a model.
`base` is what they share (`MemorySystem`: the agent protocol around `write`, `answer` and
`search`; `Entry`, a message as the memory heard it), `prompt` lays out the answering prompt
within the model's window (`PromptRoom`), `model` counts their calls as *write* or *read*,
`embedders` and `index` rank what they stored, `settings` checks a mechanism's settings; each
mechanism has a module of its own (`full_context`, `recent`, `rag`, `light`, `ltm_agent`,
`memorybank`, `generative_agents`, `memgpt`, `scm`).  Your own mechanism subclasses `MemorySystem`
with the names exported here (docs/memory-systems.md has a complete one).
"""

from typing import TYPE_CHECKING

from pytest_memorybench.core.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem, exchange_text, exchanges
    from pytest_memorybench.agents.mechanisms.embedders import Embedder
    from pytest_memorybench.agents.mechanisms.index import DenseIndex, Index, LexicalIndex, top
    from pytest_memorybench.agents.mechanisms.model import MemoryModel, Phase
    from pytest_memorybench.agents.mechanisms.prompt import (
        PromptRoom,
        best_that_fit,
        newest_that_fit,
        section,
        system_prompt,
        tokens,
    )
    from pytest_memorybench.agents.mechanisms.settings import one_of, positive, require

_PACKAGE = "pytest_memorybench.agents.mechanisms"
_MODULES = {
    **dict.fromkeys(("Entry", "MemorySystem", "exchange_text", "exchanges"), f"{_PACKAGE}.base"),
    "Embedder": f"{_PACKAGE}.embedders",
    **dict.fromkeys(("DenseIndex", "Index", "LexicalIndex", "top"), f"{_PACKAGE}.index"),
    **dict.fromkeys(("MemoryModel", "Phase"), f"{_PACKAGE}.model"),
    **dict.fromkeys(
        ("PromptRoom", "best_that_fit", "newest_that_fit", "section", "system_prompt", "tokens"),
        f"{_PACKAGE}.prompt",
    ),
    **dict.fromkeys(("one_of", "positive", "require"), f"{_PACKAGE}.settings"),
}

__all__ = [
    "DenseIndex",
    "Embedder",
    "Entry",
    "Index",
    "LexicalIndex",
    "MemoryModel",
    "MemorySystem",
    "Phase",
    "PromptRoom",
    "best_that_fit",
    "exchange_text",
    "exchanges",
    "newest_that_fit",
    "one_of",
    "positive",
    "require",
    "section",
    "system_prompt",
    "tokens",
    "top",
]
# imported on first use: the spec parser reads `settings` in every run, mechanisms need numpy
__getattr__ = lazy_exports(__name__, _MODULES)
