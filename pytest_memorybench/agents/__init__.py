"""Agents under test: the protocol, spec parsing, and the built-in agents and LLM adapters."""

from pytest_memorybench.agents.protocol import Agent, AgentAdapter
from pytest_memorybench.agents.spec import AgentOptions, AgentSpec, build_agent, parse_agent_spec

__all__ = ["Agent", "AgentAdapter", "AgentOptions", "AgentSpec", "build_agent", "parse_agent_spec"]
