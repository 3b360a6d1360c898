"""Where each conversation's agent comes from: made fresh for it, or the session's one agent.

Conversations driven at once must never share an agent, or one conversation's memories leak into
another's answers.  So when the run can make agents (an `--agent` spec naming a built-in, a model,
a class or a zero-argument factory; or a `memorybench_agent_factory` fixture), every conversation
gets its own, closed when the conversation ends.  An agent that exists once (a `memorybench_agent`
fixture, a module-level object, a plain reply function) is shared: its conversations then take
turns, and the session header says so.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pytest_memorybench.agents.protocol import AgentAdapter
from pytest_memorybench.budget import Budget
from pytest_memorybench.errors import AgentError, UsageError, describe_exception


class AgentSupply:
    def __init__(
        self,
        *,
        factory: Callable[[], Any] | None = None,
        shared: AgentAdapter | None = None,
        name: str = "memorybench_agent_factory",
        timeout: float | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.factory = factory
        self.shared = shared
        self.name = name
        self.timeout = timeout
        self.budget = budget
        self._live: dict[int, AgentAdapter] = {}  # agents made for conversations still running, by target id

    @property
    def multiplies(self) -> bool:
        """Whether each conversation gets an agent of its own (so conversations may overlap)."""
        return self.factory is not None

    async def acquire(self) -> AgentAdapter | None:
        """The agent for a conversation about to start."""
        if self.factory is None:
            return self.shared
        try:
            made = self.factory()
            if inspect.isawaitable(made):
                made = await made
        except (AgentError, UsageError) as exc:
            raise AgentError(str(exc)) from None
        except Exception as exc:  # user code may raise anything
            raise AgentError(f"{self.name} raised {describe_exception(exc)} making an agent") from exc
        adapter = made if isinstance(made, AgentAdapter) else AgentAdapter(made, self.name, timeout=self.timeout)
        if id(adapter.target) in self._live:
            raise AgentError(
                f"{self.name} returned an agent that another conversation is using; it must make a new one "
                "at each call (or run with --mb-concurrency 1)"
            )
        adapter.budget = self.budget
        self._live[id(adapter.target)] = adapter
        return adapter

    async def release(self, adapter: AgentAdapter | None) -> None:
        """A conversation ended: the agent made for it is closed (its HTTP client, its files)."""
        if adapter is None or self._live.pop(id(adapter.target), None) is None:
            return
        await adapter.aclose()

