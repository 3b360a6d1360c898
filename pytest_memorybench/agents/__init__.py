"""Agents under test: the protocol, one registry and the spec parser, and a folder for each kind of agent.

`agent_protocol` defines `Agent` (reply, and optional observe / reset / retrieve / fork) and the adapter
that wraps sync objects and functions.  `registry` lists every agent `--agent` names without a
user's code; `spec` parses `--agent` (and `mechanism_spec` a mechanism's settings), `agent_build` checks
a spec and makes its agent, `supply` hands each conversation one, `deadlines` calls user code sync or
async within a deadline.  `lexical` is the BM25 search the offline agents and the mechanisms
share.  The kinds: `reference/` (offline agents: null, oracle, the extractive `recall` baseline and
MemBench's reference memories), `mechanisms/` (the papers' memory systems over a model),
`stores/` (memory products on equal terms).  It imports the models and core layers.
"""

from typing import TYPE_CHECKING

# The protocol is what every agent module shares, and light: imported with the package, so one
# AgentAdapter class serves a process however often pytest runs in it (pytester's in-process runs
# forget the modules each run imported).
from pytest_memorybench.agents.agent_protocol import Agent, AgentAdapter
from pytest_memorybench.core.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_memorybench.agents.agent_build import build_agent
    from pytest_memorybench.agents.reference import ExtractiveAgent, NullAgent, OracleAgent
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec, parse_agent_spec

_MODULES = {
    "AgentOptions": "pytest_memorybench.agents.spec",
    "AgentSpec": "pytest_memorybench.agents.spec",
    "ExtractiveAgent": "pytest_memorybench.agents.reference.extractive",
    "NullAgent": "pytest_memorybench.agents.reference.null",
    "OracleAgent": "pytest_memorybench.agents.reference.oracle",
    "build_agent": "pytest_memorybench.agents.agent_build",
    "parse_agent_spec": "pytest_memorybench.agents.spec",
}
__all__ = [
    "Agent",
    "AgentAdapter",
    "AgentOptions",
    "AgentSpec",
    "ExtractiveAgent",
    "NullAgent",
    "OracleAgent",
    "build_agent",
    "parse_agent_spec",
]
# imported on first use: pytest imports the plugin, and with it this package, in every run
__getattr__ = lazy_exports(__name__, _MODULES)
