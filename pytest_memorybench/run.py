"""One benchmark run: the selected suites' definitions, the run folder, and the conversations.

pytest asks for results one item at a time; conversations, though, are driven a group at a time.
`BenchmarkRun` bridges the two: the first item of a conversation group to run drives the whole
group for the items that were selected, caches every outcome, and later items read their own.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import secrets
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from filelock import FileLock

from pytest_memorybench.agents.protocol import AgentAdapter
from pytest_memorybench.conversation.channel import AgentChannel, LoggedJudge
from pytest_memorybench.conversation.clock import SimulatedClock
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.filler import TriviaSource
from pytest_memorybench.conversation.interactive import MemoryConversation
from pytest_memorybench.conversation.log_reader import (
    ConversationLog,
    iter_events,
    read_conversations,
)
from pytest_memorybench.conversation.probing import ProbeSession, read_probe_answers
from pytest_memorybench.conversation.scheduler import (
    Conversation,
    ConversationStats,
    ScheduledTest,
)
from pytest_memorybench.conversation.tokens import default_counter
from pytest_memorybench.errors import UsageError, describe_exception
from pytest_memorybench.goodai.rescore import read_published, rescore
from pytest_memorybench.judges.base import JudgeStats
from pytest_memorybench.judges.client import CachedJudge
from pytest_memorybench.judges.spec import build_judge
from pytest_memorybench.records import Score, TestDefinition, TestOutcome, Usage
from pytest_memorybench.runfolder import (
    MANIFEST,
    Manifest,
    claim,
    definition_path,
    load_definition,
    read_manifest,
    write_atomically,
)
from pytest_memorybench.runloop import RunLoop, describe_interruption
from pytest_memorybench.scenarios import ScoringContext, get_scenario
from pytest_memorybench.scenarios.probes import ProbeContext
from pytest_memorybench.settings import Settings
from pytest_memorybench.spans import ISOLATED, Span
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

    def passes(self, outcome: TestOutcome) -> bool:
        return outcome.error is None and outcome.score.value >= self.threshold


def new_run_id(now: datetime | None = None) -> str:
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(2)}"


class BenchmarkRun:
    def __init__(
        self, settings: Settings, run_id: str, output: Path, *, worker: str | None = None, judge_cache: Path | None = None
    ) -> None:
        self.settings = settings
        self.judge_cache = judge_cache
        self.worker = worker
        previous = settings.previous_run
        manifest = read_manifest(previous) if previous else None
        self.run_id = manifest.id if settings.resume and manifest else run_id
        self.output = previous if settings.resume and previous else output
        self.started = datetime.now(timezone.utc)
        self.clock_start = manifest.clock_start if manifest else self.started
        self.conversation_count = manifest.conversations if manifest else settings.conversations
        self.published = read_published(settings.rescore) if settings.rescore is not None else None
        self.suites: list[Suite] = (
            list(self.published.suites) if self.published else [load_suite(name) for name in settings.suites]
        )
        logged_spans = manifest.spans if manifest else {}
        self.spans = {suite.name: logged_spans.get(suite.name) or settings.span or suite.span for suite in self.suites}
        if manifest:
            _check_consistent(settings, manifest, self.spans, self.conversation_count)
        self.tests: dict[str, PlannedTest] = {}
        self.contexts: dict[str, ProbeContext] = {}  # by conversation group
        definitions_from = previous or settings.definitions
        for suite in self.suites:
            generated = suite.generate(settings.seed, data=settings.data)
            self.contexts.update((_context_group(suite.name, id), context) for id, context in generated.contexts.items())
            definitions = generated.definitions
            if definitions_from is not None:
                definitions = [load_definition(definitions_from, d) for d in definitions]
            span = self.spans[suite.name]
            definitions = [
                dataclasses.replace(d, skip_reason=reason) if (reason := suite.too_long_for(d.scenario, span)) else d
                for d in definitions
            ]
            grouping = ISOLATED if self.published else span  # a stored result is scored on its own
            for key, group, definition in _assign_groups(suite.name, definitions, grouping, self.conversation_count):
                threshold = settings.threshold if settings.threshold is not None else suite.threshold_for(definition.scenario)
                self.tests[key] = PlannedTest(key, group, definition, threshold, self.spans[suite.name])
        self.counter = default_counter()
        self.logged: dict[str, ConversationLog] = read_conversations(previous) if previous else {}
        self.logged_answers = read_probe_answers(iter_events(previous)) if previous else {}
        self.conversations: dict[str, ConversationStats] = {}
        self.progress: Callable[[dict[str, Any]], None] | None = None
        self._selected: set[str] = set(self.tests)
        self._outcomes: dict[str, TestOutcome] = {}
        self._cut: dict[str, str] = {}  # conversation group -> what cut its driving short
        self._adapters: dict[int, AgentAdapter] = {}
        self._async_fixtures: list[Any] = []  # async generator agent fixtures we resolved: closed with the run
        self.loop = RunLoop()
        self._log: EventLog | None = None
        self._judge: CachedJudge | None = None
        self._lock: FileLock | None = None

    @property
    def interleaved_spans(self) -> dict[str, Span]:
        """The spans that mean something: suites whose tests are woven into a conversation."""
        return {suite.name: self.spans[suite.name] for suite in self.suites if suite.uses_span}

    @property
    def agentless(self) -> str | None:
        """What stands in for the agent when none is called: a run replayed, or published results."""
        if self.settings.replay is not None:
            return f"replaying {self.settings.replay}"
        if self.settings.rescore is not None:
            return f"re-scoring the published results in {self.settings.rescore}"
        return None

    # -- selection and the run folder -------------------------------------------------------------

    def select(self, keys: Iterable[str]) -> None:
        """Remember which tests pytest will run, so a group drives only its selected tests.

        A conversation the run folder had begun keeps the tests it was planned with, whatever is
        selected now: its log can only be continued by the same conversation.
        """
        selected = {key for key in keys if key in self.tests and not self.outside_logged_plan(key)}
        for log in self.logged.values():
            selected |= set(log.tests or ()) & set(self.tests)
        self._selected = selected

    def selected_count(self) -> int:
        return len(self._selected)

    def outside_logged_plan(self, key: str) -> bool:
        """Test `key` belongs to a conversation the run folder began without it (resume, replay)."""
        log = self.logged.get(self.tests[key].group)
        return log is not None and log.tests is not None and key not in log.tests

    def claim_folder(self) -> None:
        """Lock the run folder for this run (the controller's, or the only process's)."""
        self._lock = claim(self.output, "--mb-resume" if self.settings.resume else "--mb-output")

    def write_plan(self) -> None:
        """Save the manifest and every definition; a resumed run keeps the folder's own."""
        if self.settings.resume:
            return
        for test in self.tests.values():
            write_atomically(definition_path(self.output, test.definition), test.definition.to_json())
        manifest = {
            "id": self.run_id,
            "clock_start": self.clock_start.isoformat(),
            "spans": {name: str(span) for name, span in self.spans.items()},
            "conversations": self.conversation_count,
            "seed": self.settings.seed,
            "replayed_from": str(self.settings.replay) if self.settings.replay else None,
            "rescored_from": str(self.settings.rescore) if self.settings.rescore else None,
        }
        write_atomically(self.output / MANIFEST, json.dumps(manifest, indent=2) + "\n")

    @property
    def log(self) -> EventLog:
        if self._log is None:
            name = f"events-{self.worker}.jsonl" if self.worker else "events.jsonl"
            self._log = EventLog(self.output / name)
        return self._log

    @property
    def judge(self) -> CachedJudge:
        """The run's judge, built on first use (a run whose scorers need none never builds it)."""
        if self._judge is None:
            self._judge = build_judge(self.settings.judge, cache_path=self.judge_cache)
        return self._judge

    def judge_stats(self) -> dict[str, Any]:
        """This process's judging, for results.json (zeros when the judge was never needed)."""
        stats = dataclasses.asdict(self._judge.stats) if self._judge is not None else dataclasses.asdict(JudgeStats())
        return {"name": self._judge.name if self._judge is not None else self.settings.judge.display, **stats}

    # -- running ----------------------------------------------------------------------------------

    def adapt(self, agent: Any, name: str = "fixture:memorybench_agent") -> AgentAdapter | None:
        """Wrap a user's agent once, so its state persists across the items that share it."""
        if agent is None or isinstance(agent, AgentAdapter):
            return agent
        adapter = self._adapters.get(id(agent))
        if adapter is None:
            adapter = AgentAdapter(self._resolve_async_fixture(agent), name, timeout=self.settings.agent_options.timeout)
            self._adapters[id(agent)] = adapter
        return adapter

    def _resolve_async_fixture(self, agent: Any) -> Any:
        """An `async def` agent fixture that reached us unresolved, resolved on the run's loop.

        pytest-asyncio before 0.24 prepares async fixtures only for tests collected from Python
        modules, so our items get the bare coroutine or async generator; newer versions resolve
        them.  A generator's teardown runs when the run closes.
        """
        if inspect.iscoroutine(agent):
            return self.run_sync(agent)
        if inspect.isasyncgen(agent):
            self._async_fixtures.append(agent)
            return self.run_sync(agent.__anext__())
        return agent

    def outcome(self, key: str, agent: Any) -> TestOutcome:
        """The outcome of test `key`, driving its conversation group first if nobody has yet.

        A conversation is driven once.  If something cuts the driving short (pytest-timeout, a
        signal), the tests it had finished keep their outcomes and the others get `cut_outcome`:
        driving it again from the start would ask the agent twice and score half a conversation.
        """
        if key not in self._outcomes:
            group = self.tests[key].group
            if group in self._cut:
                return self.cut_outcome(key)
            try:
                self.run_sync(self._drive(group, self._members(key), self.adapt(agent)))
            except BaseException as exc:
                self._cut[group] = describe_interruption(exc)
                if group in self.conversations:
                    self.conversations[group].error = f"cut short: {self._cut[group]}"
                raise
        return self._outcomes[key]

    def cut_outcome(self, key: str) -> TestOutcome:
        """What test `key` has when its conversation was cut short: its outcome, or an error saying so."""
        if key in self._outcomes:
            return self._outcomes[key]
        test = self.tests[key]
        error = (
            f"conversation {test.group} was cut short ({self._cut.get(test.group, 'interrupted')}) before this test "
            f"ended, so it has no score; --mb-resume continues the conversation without asking again"
        )
        return TestOutcome(test.definition, [], Score(0.0, (error,)), [], 0, Usage(), error=error, span_target=test.span.tokens)

    def finished_outcomes(self) -> dict[str, TestOutcome]:
        """Every outcome this process has, including those of tests pytest never got to report
        (an interruption, `-x`): a partial results.json lists them too."""
        return dict(self._outcomes)

    def tests_waited_on(self, key: str) -> int:
        """How many tests the item of `key` waits on: its whole conversation's if nobody drove it yet."""
        if key in self._outcomes or self.tests[key].group in self._cut:
            return 1
        return max(1, len(self._members(key)))

    def _members(self, key: str) -> list[PlannedTest]:
        """The tests that driving `key`'s conversation runs: the selected ones of its group, and it."""
        group = self.tests[key].group
        return [
            t
            for t in self.tests.values()
            if t.group == group and (t.key in self._selected or t.key == key) and not t.definition.skip_reason
        ]

    async def _drive(self, group: str, tests: list[PlannedTest], agent: AgentAdapter | None) -> None:
        if group in self.contexts:
            return await self._probe(group, tests, agent)
        if self.published is not None:
            return await self._rescore(group, tests)
        logged = self.logged.get(group)
        channel = AgentChannel(
            None if self.agentless else agent,
            group=group,
            counter=self.counter,
            clock=SimulatedClock(self.clock_start),
            log=self.log,
            replay=logged.exchanges if logged else (),
            saving_mode=logged.saving_mode if logged else None,
        )
        suite = next(s for s in self.suites if s.name == tests[0].definition.suite)
        conversation = Conversation(
            [ScheduledTest(t.key, t.definition) for t in tests],
            channel,
            span=tests[0].span.tokens,
            scoring=ScoringContext(profile=self.settings.profile, judge=LoggedJudge(self.judge, channel)),
            filler=TriviaSource(self.settings.seed),
            incompatible=suite.incompatible,
            programs=lambda scenario: getattr(get_scenario(scenario), "program", None),
            progress=self.progress,
        )
        try:
            self._outcomes.update(await conversation.run())
        finally:
            self._keep_finished(group, conversation)

    async def _probe(self, group: str, tests: list[PlannedTest], agent: AgentAdapter | None) -> None:
        channel = AgentChannel(
            None if self.agentless else agent, group=group, counter=self.counter,
            clock=SimulatedClock(self.clock_start), log=self.log,
        )
        session = ProbeSession(
            self.contexts[group],
            [ScheduledTest(t.key, t.definition) for t in tests],
            channel,
            scoring=ScoringContext(profile=self.settings.profile, judge=LoggedJudge(self.judge, channel)),
            logged=self.logged_answers,
            progress=self.progress,
        )
        try:
            self._outcomes.update(await session.run())
        finally:
            self._keep_finished(group, session)

    def _keep_finished(self, group: str, conversation: Conversation | ProbeSession) -> None:
        """Keep what a conversation finished, also when something cut it short."""
        for key, outcome in conversation.finished().items():
            self._outcomes.setdefault(key, outcome)
        self.conversations[group] = conversation.stats

    async def _rescore(self, group: str, tests: list[PlannedTest]) -> None:
        """Score stored GoodAI results; their conversations go to the log for the report."""
        assert self.published is not None
        for test in tests:
            stored = self.published.results[test.key]
            channel = AgentChannel(None, group=group, counter=self.counter, clock=SimulatedClock(self.clock_start), log=self.log)
            for number, (message, reply) in enumerate(stored.exchanges(), 1):
                is_question = reply is not None and reply in stored.responses
                channel.emit("message", i=number, source="test", test=test.key, text=message, is_question=is_question)
                if reply is not None:
                    channel.emit("reply", i=number, source="test", test=test.key, text=reply)
            scoring = ScoringContext(profile=self.settings.profile, judge=LoggedJudge(self.judge, channel))
            try:
                score = await rescore(test.definition, stored, scoring)
            except Exception as exc:  # noqa: BLE001 - one unusable result must not stop the others
                score, error = Score(0.0, (f"cannot re-score {stored.path}: {describe_exception(exc)}",)), describe_exception(exc)
            else:
                error = None
            channel.emit("score", test=test.key, value=score.value, reasons=list(score.reasons))
            if self.progress is not None:
                self.progress({"event": "test_end", "test": test.key, "tokens": stored.tokens or 0})
            self._outcomes[test.key] = TestOutcome(
                test.definition, list(stored.responses), score, [], stored.tokens or 0, Usage(), error=error,
                details={"published": stored.verdict_json()},
            )

    def conversation_for(self, test: str, agent: Any) -> MemoryConversation:
        """A hand-driven conversation for a user's own test, logged under the test's node id."""
        adapter = self.adapt(agent)
        if adapter is None:
            raise UsageError("memorybench_conversation needs an agent; --mb-replay has none")
        channel = AgentChannel(adapter, group=test, counter=self.counter, clock=SimulatedClock(self.clock_start), log=self.log)
        self.run_sync(channel.reset())
        return MemoryConversation(channel, self.run_sync, TriviaSource(self.settings.seed))

    def run_sync(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.loop.run(coroutine)

    def close(self) -> None:
        try:
            for fixture in self._async_fixtures:
                self.run_sync(fixture.aclose())
            if self._judge is not None:
                self.run_sync(self._judge.aclose())
        finally:
            self.loop.close()  # after an interruption: ends the tasks still in flight, before the log closes
            if self._log is not None:
                self._log.close()
            if self._lock is not None:
                self._lock.release()


def _assign_groups(
    suite: str, definitions: list[TestDefinition], span: Span, conversations: int
) -> list[tuple[str, str, TestDefinition]]:
    """(key, conversation group, definition) for each test of a suite.

    Isolated: every test is its own conversation.  Otherwise the suite is one conversation, or K:
    tests are dealt out in (repetition, scenario) order, so each conversation gets a share of every
    scenario and repetitions of one scenario can run side by side in different conversations.
    """
    keyed = [(f"{suite}::{d.test_id}", d) for d in definitions]
    probes = {key: _context_group(suite, d.context) for key, d in keyed if d.context is not None}
    scheduled = [(key, d) for key, d in keyed if key not in probes]
    if span.isolated:
        group_of = {key: key for key, _ in scheduled}
    elif conversations == 1:
        group_of = {key: suite for key, _ in scheduled}
    else:
        order = {name: i for i, name in enumerate(dict.fromkeys(d.scenario for _, d in scheduled))}
        dealt = sorted(scheduled, key=lambda pair: (pair[1].repetition, order[pair[1].scenario]))
        group_of = {key: f"{suite}-c{index % conversations + 1}" for index, (key, _) in enumerate(dealt)}
    group_of.update(probes)
    return [(key, group_of[key], d) for key, d in keyed]


def _context_group(suite: str, context: str) -> str:
    """A probe context is a conversation of its own: its questions share one delivery."""
    return f"{suite}::{context}"


def _check_consistent(settings: Settings, manifest: Manifest, spans: dict[str, Span], conversations: int) -> None:
    """A resumed or replayed run keeps its own span and split; say so instead of ignoring a flag."""
    flag = "--mb-resume" if settings.resume else "--mb-replay"
    if settings.span is not None and any(span != settings.span for span in spans.values()):
        used = ", ".join(f"{name}={span}" for name, span in spans.items())
        raise UsageError(f"--span {settings.span} conflicts with the run given to {flag} ({used}); drop --span")
    if settings.conversations not in (1, conversations):
        raise UsageError(
            f"--mb-conversations {settings.conversations} conflicts with the run given to {flag} "
            f"({conversations}); drop --mb-conversations"
        )
