"""One process's part of a benchmark run: conversations driven as pytest asks for their items.

pytest asks for results one item at a time; conversations, though, are driven a group at a time.
`BenchmarkRun` bridges the two: the first item of a conversation group to run drives the whole
group for the items that were selected (through the run's driver, `drivers.py`), the outcome book
keeps every outcome, and later items read their own.  While it waits, the conversations this
process runs next are driven beside it (`pool.py`), each with an agent of its own
(`agents/supply.py`, whose source is decided with the run).  What the run is, its plan and
folder, is settled before (`context.py`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Coroutine, Iterable, Iterator
from typing import Any, TypeVar

from filelock import FileLock

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.lexical import stopwords
from pytest_memorybench.agents.supply import RunAgents
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.interactive import MemoryConversation
from pytest_memorybench.conversation.trivia import TriviaSource
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.records import TestOutcome
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.models.budget import Budget
from pytest_memorybench.models.concurrency import AdaptiveLimit
from pytest_memorybench.models.provider_pool import ProviderPool, serve
from pytest_memorybench.runner.book import OutcomeBook
from pytest_memorybench.runner.context import RunContext
from pytest_memorybench.runner.drivers import choose_driver
from pytest_memorybench.runner.folder import claim, remembered_levels
from pytest_memorybench.runner.instruments import RunInstruments, while_fresh
from pytest_memorybench.runner.loop import RunLoop, describe_interruption
from pytest_memorybench.runner.plan import PlannedTest, planned_size
from pytest_memorybench.runner.pool import ConversationPool
from pytest_memorybench.scenarios import get_scenario

T = TypeVar("T")


class BenchmarkRun:
    """Drives a run's conversations for the items pytest asks about, and keeps their outcomes.
    `fixtures`: the user's agent fixtures, which with `--agent` decide where its agents come from."""

    def __init__(self, context: RunContext, fixtures: Collection[str] = ()) -> None:
        self.context = context
        settings = context.settings
        self.book = OutcomeBook(context.tests)
        self.instruments = RunInstruments(context)
        self.loop = RunLoop()
        self.agents = RunAgents(
            self.run_sync,
            spec=settings.agent,
            options=settings.agent_options,
            budget=Budget(),
            agentless=context.agentless is not None,
            fixtures=fixtures,
        )
        self.driver = choose_driver(context, self.book, self.instruments)
        self._pending_keys: Callable[[], Iterable[str]] = lambda: context.selection.order
        self._may_start: Callable[[str], bool] = lambda group: True  # the cost cap's say
        self._stopping: str | None = None  # why the run is ending the conversations in flight
        self._warm_up: threading.Thread | None = None
        self._agents_ready = False
        self._lock: FileLock | None = None
        self.providers = _provider_pool(context)
        self._stop_serving = serve(self.providers)
        self.pool = ConversationPool(
            self._run_group, self._upcoming_groups, settings.concurrency or self.providers.conversations
        )
        if settings.concurrency is None:
            self.providers.on_level_change(self.pool.level_changed)

    def follow_queue(self, pending_keys: Callable[[], Iterable[str]]) -> None:
        """The keys this process will be asked for next, in order (an xdist worker's queue)."""
        self._pending_keys = pending_keys

    def admit_with(self, may_start: Callable[[str], bool]) -> None:
        """Who decides whether a conversation may start (the cost cap)."""
        self._may_start = may_start

    def claim_folder(self) -> None:
        """Lock the run folder for this run (the controller's, or the only process's)."""
        self._lock = claim(
            self.context.output, "--mb-resume" if self.context.settings.resume else "--mb-output"
        )

    def outcome(self, key: str) -> TestOutcome:
        """The outcome of test `key`, driving its conversation group first if nobody has yet.

        A conversation is driven once: cut short (pytest-timeout, a signal), its finished tests
        keep their outcomes and the others say so (driving it again would ask the agent twice).
        """
        group = self.context.tests[key].group
        if key not in self.book and not self.book.is_cut(group):
            self._ready_agents()
            self._start_warm_up()
            members = self.context.selection.members(key)
            try:
                driving = self.pool.drive(group, lambda group: self._run_group(group, members))
                self.run_sync(while_fresh(self.instruments.listeners, driving))
            except BaseException as exc:
                self.book.mark_cut(group, exc, self._stopping or self.loop.interruption or "cancelled")
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    self.stop_conversations(describe_interruption(exc))  # the session ends: so do the others
                else:
                    self.run_sync(self.pool.cancel([group]))  # a timeout: this conversation only
                raise
        return self.book.outcome(key)

    def stop_conversations(self, reason: str) -> None:
        """End the conversations still in flight (the session ends), keeping what they finished."""
        if self.pool.in_flight:
            self._stopping = reason
            self.run_sync(self.pool.cancel())

    def has_started(self, group: str) -> bool:
        """Whether `group` began, or ended, in this process (it has been paid for)."""
        return self.pool.started(group) or group in self.book.conversations

    def tests_waited_on(self, key: str) -> int:
        """How many tests the item of `key` waits on: its whole conversation's if nobody drove it yet."""
        if key in self.book or self.book.is_cut(self.context.tests[key].group):
            return 1
        return max(1, len(self.context.selection.members(key)))

    def _start_warm_up(self) -> None:
        """Once: the slow preparations of what this run will use, in a thread beside the conversations."""
        if self._warm_up is None:
            scenarios = {self.context.tests[key].definition.scenario for key in self.context.selection.keys}
            self._warm_up = threading.Thread(
                target=warm_up, args=(scenarios,), name="memorybench-warm-up", daemon=True
            )
            self._warm_up.start()

    def _ready_agents(self) -> None:
        """Once: the agents' supply, measured as a provider under auto, or one agent taking turns."""
        supply = self.agents.ready()
        if not self._agents_ready:
            self._agents_ready = True
            if supply.multiplies:
                supply.limit = _measured_as_provider(self.context, self.providers)
            elif self.context.agentless is None:
                self.pool.limit = 1  # one agent: its conversations take turns

    async def _run_group(self, group: str, tests: list[PlannedTest] | None = None) -> None:
        """Drive one conversation group with an agent of its own (or the shared one)."""
        supply = self.agents.ready()
        tests = tests if tests is not None else self.context.selection.group_tests(group)
        agent = None
        try:
            agent = await supply.acquire()
            await self.driver.drive(group, tests, agent)
        except BaseException as exc:
            self.book.mark_cut(group, exc, self._stopping or self.loop.interruption or "cancelled")
            raise
        finally:
            await supply.release(agent)

    def _upcoming_groups(self) -> Iterator[str]:
        """The conversations this process is to drive next, among those the cost cap lets start:
        the longest first, ties in pytest's order (the last to end bounds the run; the short ones
        fill the places the long ones leave).  The item pytest waits on starts in its own `drive`."""
        tests, group_tests = self.context.tests, self.context.selection.group_tests
        groups = dict.fromkeys(
            tests[key].group for key in self._pending_keys() if key in tests and key not in self.book
        )
        waiting = [
            g for g in groups if not self.has_started(g) and not self.book.is_cut(g) and group_tests(g)
        ]
        longest = sorted(waiting, key=lambda group: planned_size(group_tests(group)), reverse=True)
        return (group for group in longest if self._may_start(group))

    def run_sync(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.loop.run(coroutine)

    def close(self) -> None:
        if self._warm_up is not None:
            self._warm_up.join()  # an import half done when the session ends would be left broken
        try:
            self.agents.close()
            self.run_sync(self.instruments.aclose_judge())
        finally:
            self.loop.close()  # after an interruption: ends the tasks still in flight, before the log closes
            self.instruments.close_log()
            self.providers.close()
            self._stop_serving()
            if self._lock is not None:
                self._lock.release()


def _provider_pool(context: RunContext) -> ProviderPool:
    """The run's providers, measured afresh from where the last run in its folder ended (auto)."""
    settings = context.settings
    if settings.concurrency is not None:
        return ProviderPool(prices=settings.prices)
    remembered = remembered_levels(context.output, resumed=settings.resume is not None)
    return ProviderPool(remembered, prices=settings.prices)


def _measured_as_provider(context: RunContext, providers: ProviderPool) -> AdaptiveLimit | None:
    """Under auto, the replies at once of agents your code makes, measured as a provider's are."""
    spec = context.settings.agent
    if context.settings.concurrency is not None or (
        spec is not None and spec.kind not in ("entry_point", "import")
    ):
        return None
    return providers.limit_for(f"agent {spec.display if spec else 'memorybench_agent_factory'}")


def conversation_for(run: BenchmarkRun, test: str, agent: Any) -> MemoryConversation:
    """A hand-driven conversation for a user's own test, logged under the test's node id."""
    adapter: AgentAdapter | None = run.agents.adapt(agent)
    if adapter is None:
        raise usage_error("memorybench_conversation needs an agent; --mb-replay has none")
    clock = SimulatedClock(run.context.clock_start)
    channel = AgentChannel(
        adapter, group=test, counter=run.instruments.counter, clock=clock, log=run.instruments.log
    )
    run.run_sync(channel.reset())
    return MemoryConversation(channel, run.run_sync, TriviaSource(run.context.settings.seed))


def warm_up(scenarios: Iterable[str]) -> None:
    """The token counter, the stopwords and the planned scenarios' slow scorer preparations."""
    default_counter()  # cl100k's ranks
    stopwords()  # the words every search and evidence recall skip (bm25s)
    for name in sorted(scenarios):
        prepare = getattr(get_scenario(name), "warm_up", None)
        if prepare is not None:
            prepare()


__all__ = ["BenchmarkRun", "conversation_for", "warm_up"]
