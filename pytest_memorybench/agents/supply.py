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
from collections.abc import Callable, Coroutine
from typing import Any

from pytest_memorybench.agents.agent_build import agent_factory, build_agent, check_agent_spec
from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.spec import AgentOptions, AgentSpec
from pytest_memorybench.core.errors import AgentError, UsageError, describe_exception
from pytest_memorybench.models.budget import Budget
from pytest_memorybench.models.concurrency import AdaptiveLimit


class AgentSupply:
    """The agents of one run's conversations: made for each by a factory, or one shared by all."""

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
        self.limit: AdaptiveLimit | None = (
            None  # --mb-concurrency auto over your own agents: their replies at once
        )

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
        adapter = (
            made if isinstance(made, AgentAdapter) else AgentAdapter(made, self.name, timeout=self.timeout)
        )
        if id(adapter.target) in self._live:
            raise AgentError(
                f"{self.name} returned an agent that another conversation is using; it must make a new one "
                "at each call (or run with --mb-concurrency 1)"
            )
        adapter.budget = self.budget
        adapter.limit = self.limit
        self._live[id(adapter.target)] = adapter
        return adapter

    async def release(self, adapter: AgentAdapter | None) -> None:
        """A conversation ended: the agent made for it is closed (its HTTP client, its files)."""
        if adapter is None or self._live.pop(id(adapter.target), None) is None:
            return
        await adapter.aclose()


class RunAgents:
    """The run's agents: those `--agent` names, built here and nowhere else; each object a user hands
    us wrapped once (so its state persists across the items that share it); and the supply
    conversations draw theirs from, chosen when the first starts."""

    def __init__(
        self,
        run_sync: Callable[[Coroutine[Any, Any, Any]], Any],
        *,
        spec: AgentSpec | None = None,
        options: AgentOptions | None = None,
        budget: Budget,
    ) -> None:
        self._run_sync = run_sync
        self.spec = spec
        self.options = options or AgentOptions()
        self.timeout = self.options.timeout
        self.budget = budget
        self._plugin_agent: Any = None  # the agent the plugin's own `memorybench_agent` fixture built
        self.supply: AgentSupply | None = None
        self._adapters: dict[int, AgentAdapter] = {}
        self._async_fixtures: list[
            Any
        ] = []  # async generator agent fixtures we resolved: closed with the run

    def check(self) -> None:
        """`--agent` checked before anything runs: one line for what would fail at the first turn."""
        if self.spec is not None:
            check_agent_spec(self.spec, self.options)

    def spec_factory(self) -> Callable[[], AgentAdapter] | None:
        """How `--agent` makes a new agent per conversation; None when it names one object (or nothing)."""
        return agent_factory(self.spec, self.options) if self.spec is not None else None

    def build(self) -> AgentAdapter:
        """The agent `--agent` names (for tests written by hand)."""
        assert self.spec is not None
        return build_agent(self.spec, self.options)

    def built_by_plugin(self, agent: Any) -> None:
        """`agent` is the one the plugin's own `memorybench_agent` fixture built from `--agent`: a
        factory may stand in for it, so conversations can overlap."""
        self._plugin_agent = agent

    def adapt(self, agent: Any, name: str = "fixture:memorybench_agent") -> AgentAdapter | None:
        if agent is None or isinstance(agent, AgentAdapter):
            return agent
        adapter = self._adapters.get(id(agent))
        if adapter is None:
            adapter = AgentAdapter(
                self._resolve_async_fixture(agent), name, timeout=self.timeout, budget=self.budget
            )
            self._adapters[id(agent)] = adapter
        return adapter

    def _resolve_async_fixture(self, agent: Any) -> Any:
        """An `async def` agent fixture that reached us unresolved, resolved on the run's loop.

        Older pytest-asyncio releases (0.24, the lowest we declare, among them) prepare async
        fixtures only for tests collected from Python modules, so our items get the bare coroutine
        or async generator; 1.x resolves them.  A generator's teardown runs when the run closes.
        """
        if inspect.iscoroutine(agent):
            return self._run_sync(agent)
        if inspect.isasyncgen(agent):
            self._async_fixtures.append(agent)
            return self._run_sync(agent.__anext__())
        return agent

    def choose(self, agent: Any, factory: Callable[[], Any] | None, *, agentless: bool) -> AgentSupply:
        """Where conversations get their agents, decided once: made per conversation when a factory
        is given and no agent fixture of the user's stands in its way, else the one agent."""
        if self.supply is None:
            if agentless:
                self.supply = AgentSupply()
            elif factory is not None and (agent is None or agent is self._plugin_agent):
                self.supply = AgentSupply(factory=factory, timeout=self.timeout, budget=self.budget)
            else:
                self.supply = AgentSupply(shared=self.adapt(agent))
        return self.supply

    def close(self) -> None:
        for fixture in self._async_fixtures:
            self._run_sync(fixture.aclose())
