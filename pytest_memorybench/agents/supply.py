"""Where each conversation's agent comes from: made fresh for it, or the session's one agent.

Conversations driven at once must never share an agent, or one conversation's memories leak into
another's answers.  So when the run can make agents (an `--agent` spec naming a built-in, a model,
a class or a zero-argument factory; or a `memorybench_agent_factory` fixture), every conversation
gets its own, closed when the conversation ends.  An agent that exists once (a `memorybench_agent`
fixture, a module-level object, a plain reply function) is shared: its conversations then take
turns, and the session header says so.

Which of these a run has is decided once, when the session starts (`RunAgents`, from `--agent`
and the agent fixtures a conftest.py defines).  A fixture's value only pytest can make: the first
benchmark item to run hands it in (`RunAgents.provide`).  No agent is built that neither a
conversation nor a test of yours uses.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Coroutine
from enum import Enum
from typing import Any

from pytest_memorybench.agents.agent_build import agent_factory, build_agent, check_agent_spec
from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.spec import AgentOptions, AgentSpec
from pytest_memorybench.core.errors import AgentError, UsageError, describe_exception
from pytest_memorybench.models.budget import Budget
from pytest_memorybench.models.concurrency import AdaptiveLimit


class Source(Enum):
    """Where a run's conversations get their agents (the name: the fixture that provides them)."""

    NONE = "none"  # replies come from a replayed run's log or published results (or no agent is given)
    SPEC = "--agent"  # made from the spec: one per conversation, or the one object it names
    AGENT_FIXTURE = "memorybench_agent"  # a fixture of the user's: one agent, shared
    FACTORY_FIXTURE = "memorybench_agent_factory"  # a fixture of the user's: one agent per conversation


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
    """The run's agents: where its conversations get theirs (`source`), decided when the session
    starts; those `--agent` names, built here and nowhere else; each object a user hands us wrapped
    once (so its state persists across the items that share it)."""

    def __init__(
        self,
        run_sync: Callable[[Coroutine[Any, Any, Any]], Any],
        *,
        spec: AgentSpec | None = None,
        options: AgentOptions | None = None,
        budget: Budget,
        agentless: bool = False,
        fixtures: Collection[str] = (),
    ) -> None:
        self._run_sync = run_sync
        self.spec = spec
        self.options = options or AgentOptions()
        self.timeout = self.options.timeout
        self.budget = budget
        self.source = _source(agentless=agentless, spec=spec, fixtures=fixtures)
        # the user's fixture whose value the supply waits for (the first benchmark item hands it in)
        self.awaiting: str | None = (
            self.source.value if self.source in (Source.AGENT_FIXTURE, Source.FACTORY_FIXTURE) else None
        )
        self.supply: AgentSupply | None = None  # made when the first conversation starts
        self._one: AgentAdapter | None = None
        self._factory: tuple[Callable[[], AgentAdapter] | None] | None = None
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
        if self._factory is None:
            self._factory = (agent_factory(self.spec, self.options) if self.spec is not None else None,)
        return self._factory[0]

    def shares_one_agent(self) -> bool:
        """Whether the conversations share one agent, as the start of the session knows it (a factory
        fixture of yours may still hand back none, and its conversations then take turns)."""
        return self.source is Source.AGENT_FIXTURE or (
            self.source is Source.SPEC and self.spec_factory() is None
        )

    def one(self) -> AgentAdapter:
        """The agent `--agent` names, built once: the conversations' when it names one object, and
        the agent of tests written by hand (`memorybench_agent`); closed with the run."""
        assert self.spec is not None
        if self._one is None:
            self._one = build_agent(self.spec, self.options)
        return self._one

    def provide(self, value: Any) -> None:
        """The value of the fixture the supply awaits.  A factory fixture that hands back no factory
        (it steps aside for an `--agent` naming one object) leaves the `memorybench_agent` fixture's
        one agent; an agent fixture that hands back none, `--agent`'s agents."""
        if self.awaiting == Source.FACTORY_FIXTURE.value and not callable(value):
            self.awaiting = Source.AGENT_FIXTURE.value
            return
        if self.awaiting == Source.FACTORY_FIXTURE.value:
            self.supply = AgentSupply(factory=value, timeout=self.timeout, budget=self.budget)
        elif value is not None or self.spec is None:
            self.supply = AgentSupply(shared=self.adapt(value))
        self.awaiting = None

    def ready(self) -> AgentSupply:
        """The supply the conversations draw their agents from, once nothing is awaited."""
        assert self.awaiting is None, f"the {self.awaiting} fixture's value is handed in first"
        if self.supply is None:
            factory = self.spec_factory() if self.source is not Source.NONE else None
            if factory is not None:
                self.supply = AgentSupply(factory=factory, timeout=self.timeout, budget=self.budget)
            else:
                self.supply = AgentSupply(shared=self.one() if self.spec is not None else None)
        return self.supply

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

    def close(self) -> None:
        if self._one is not None:
            self._run_sync(self._one.aclose())
        for fixture in self._async_fixtures:
            self._run_sync(fixture.aclose())


def _source(*, agentless: bool, spec: AgentSpec | None, fixtures: Collection[str]) -> Source:
    """Where the conversations' agents come from: a fixture of the user's wins over `--agent` (an
    agent fixture over a factory fixture), and a run that replays or re-scores has none."""
    if agentless:
        return Source.NONE
    for source in (Source.AGENT_FIXTURE, Source.FACTORY_FIXTURE):
        if source.value in fixtures:
            return source
    return Source.SPEC if spec is not None else Source.NONE
