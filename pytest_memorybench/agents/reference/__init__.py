"""Reference agents: offline, with no model, the floor, the ceiling and the baselines a run is read against.

`null` abstains (the floor), `oracle` answers each question with its ideal answer (the ceiling,
which validates scorers), `extractive` is the `recall` baseline (BM25 over what it was told,
answering with the best match) and `memories` puts MemBench's Full, Recent and Retrieval memories
behind that same answerer.  Their `--agent` names are in `agents/registry.py`.
"""

from typing import TYPE_CHECKING

from pytest_memorybench.core.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_memorybench.agents.reference.extractive import ExtractiveAgent
    from pytest_memorybench.agents.reference.memories import (
        FullMemoryAgent,
        MemoryAgent,
        MemoryComponent,
        RecentMemoryAgent,
        RetrievalMemoryAgent,
    )
    from pytest_memorybench.agents.reference.null import NullAgent
    from pytest_memorybench.agents.reference.oracle import OracleAgent

_PACKAGE = "pytest_memorybench.agents.reference"
_MODULES = {
    "ExtractiveAgent": f"{_PACKAGE}.extractive",
    "FullMemoryAgent": f"{_PACKAGE}.memories",
    "MemoryAgent": f"{_PACKAGE}.memories",
    "MemoryComponent": f"{_PACKAGE}.memories",
    "RecentMemoryAgent": f"{_PACKAGE}.memories",
    "RetrievalMemoryAgent": f"{_PACKAGE}.memories",
    "NullAgent": f"{_PACKAGE}.null",
    "OracleAgent": f"{_PACKAGE}.oracle",
}
__all__ = [
    "ExtractiveAgent",
    "FullMemoryAgent",
    "MemoryAgent",
    "MemoryComponent",
    "NullAgent",
    "OracleAgent",
    "RecentMemoryAgent",
    "RetrievalMemoryAgent",
]
# each imported on first use, so naming one agent does not load the others' libraries
__getattr__ = lazy_exports(_PACKAGE, _MODULES)
