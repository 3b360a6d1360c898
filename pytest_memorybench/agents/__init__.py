"""Agents under test: the protocol, spec parsing, the built-in agents and LLM adapters, and their limits.

`protocol` defines `Agent` (reply, and optional observe / reset / retrieve / fork) and the
adapter that wraps sync objects and functions; `spec` parses `--agent`; `recall`, `null` and
`oracle` need no network; `openai_agent`, `anthropic_agent` and `llm` talk to models; `limits`,
`prices` and `budget` bound what they may ask and spend; `supply` hands each conversation an agent.
It imports only the core layer.
"""

from pytest_memorybench.agents.protocol import Agent, AgentAdapter
from pytest_memorybench.agents.spec import AgentOptions, AgentSpec, build_agent, parse_agent_spec

__all__ = ["Agent", "AgentAdapter", "AgentOptions", "AgentSpec", "build_agent", "parse_agent_spec"]
