"""One benchmark run: the selected suites' definitions, the run folder, and the conversations.

pytest asks for results one item at a time; conversations, though, are driven a group at a time.
`BenchmarkRun` bridges the two: the first item of a conversation group to run drives the whole
group for the items that were selected, caches every outcome, and later items read their own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import secrets
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from pytest_memorybench.agents.protocol import AgentAdapter
from pytest_memorybench.conversation.clock import SimulatedClock
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.isolated import run_isolated
from pytest_memorybench.conversation.tokens import default_counter
from pytest_memorybench.errors import UsageError
from pytest_memorybench.records import TestDefinition, TestOutcome
from pytest_memorybench.scenarios import ScoringContext
from pytest_memorybench.settings import Settings
from pytest_memorybench.spans import Span
from pytest_memorybench.suite import Suite, load_suite

T = TypeVar("T")


@dataclass(frozen=True)
class PlannedTest:
    """A definition as the run schedules it: its key (the item's node id), group and threshold."""

    key: str
    group: str
    definition: TestDefinition
    threshold: float
    span: Span


def new_run_id(now: datetime | None = None) -> str:
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(2)}"


class BenchmarkRun:
    def __init__(self, settings: Settings, run_id: str, output: Path, *, worker: str | None = None) -> None:
        self.settings = settings
        self.run_id = run_id
        self.output = output
        self.worker = worker
        self.started = datetime.now(timezone.utc)
        self.suites: list[Suite] = [load_suite(name) for name in settings.suites]
        self.tests: dict[str, PlannedTest] = {}
        for suite in self.suites:
            span = settings.span or suite.span
            if not span.isolated:
                raise UsageError(
                    f"span {span} for suite {suite.name}: interleaved conversations are not "
                    "available yet in this version; run with --span=isolated"
                )
            for definition in suite.definitions(settings.seed):
                key = f"{suite.name}::{definition.test_id}"
                threshold = settings.threshold
                if threshold is None:
                    threshold = suite.threshold_for(definition.scenario)
                # Isolated: every test is a conversation of its own.
                self.tests[key] = PlannedTest(key, key, definition, threshold, span)
        self.counter = default_counter()
        self.clock = SimulatedClock(self.started)
        self._selected: set[str] = set(self.tests)
        self._outcomes: dict[str, TestOutcome] = {}
        self._adapters: dict[int, AgentAdapter] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._log: EventLog | None = None

    # -- selection and the run folder -------------------------------------------------------------

    def select(self, keys: Iterable[str]) -> None:
        """Remember which tests pytest will run, so a group drives only its selected tests."""
        self._selected = set(keys) & set(self.tests)

    def write_definitions(self) -> None:
        """Save every definition of the run as JSON; identical from every xdist worker."""
        for test in self.tests.values():
            path = self.output / "definitions" / test.definition.suite / f"{test.definition.test_id}.json"
            write_atomically(path, test.definition.to_json())

    @property
    def log(self) -> EventLog:
        if self._log is None:
            name = f"events-{self.worker}.jsonl" if self.worker else "events.jsonl"
            self._log = EventLog(self.output / name)
        return self._log

    # -- running ----------------------------------------------------------------------------------

    def adapt(self, agent: Any, name: str = "fixture:memorybench_agent") -> AgentAdapter:
        """Wrap a user's agent once, so its state persists across the items that share it."""
        if isinstance(agent, AgentAdapter):
            return agent
        adapter = self._adapters.get(id(agent))
        if adapter is None:
            adapter = AgentAdapter(agent, name, timeout=self.settings.agent_options.timeout)
            self._adapters[id(agent)] = adapter
        return adapter

    def outcome(self, key: str, agent: Any) -> TestOutcome:
        """The outcome of test `key`, driving its conversation group first if nobody has yet."""
        if key not in self._outcomes:
            group = self.tests[key].group
            members = [t for t in self.tests.values() if t.group == group and (t.key in self._selected or t.key == key)]
            self.run_sync(self._drive(members, self.adapt(agent)))
        return self._outcomes[key]

    async def _drive(self, tests: list[PlannedTest], agent: AgentAdapter) -> None:
        scoring = ScoringContext(profile=self.settings.profile)
        for test in tests:
            self._outcomes[test.key] = await run_isolated(
                test.definition,
                agent,
                key=test.key,
                clock=self.clock,
                counter=self.counter,
                log=self.log,
                scoring=scoring,
            )

    def run_sync(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the run's own loop, which lives as long as the run.

        One long-lived loop (not `asyncio.run` per call) keeps agents' HTTP clients usable across
        items.  If the caller is itself inside a running loop, we never nest: the coroutine runs on
        our loop in a helper thread.
        """
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._loop.run_until_complete(coroutine)
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(self._loop.run_until_complete, coroutine).result()

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
        if self._loop is not None:
            self._loop.close()


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary sibling, then rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, temporary.with_name(path.name))
