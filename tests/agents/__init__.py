"""Agents, memory systems and memory stores (`pytest_memorybench/agents/`): the protocol, specs,
mechanisms, stores.
"""
