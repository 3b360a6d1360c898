"""One benchmark run: the selected suites' definitions, the run folder, and the conversations.

pytest asks for results one item at a time; conversations, though, are driven a group at a time.
`BenchmarkRun` bridges the two: the first item of a conversation group to run drives the whole
group for the items that were selected, caches every outcome, and later items read their own.
While it waits, the conversations this process runs next are driven beside it (`pool.py`), each
with an agent of its own (`agents/supply.py`); how one group is driven is `driving.py`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import threading
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from filelock import FileLock

from pytest_memorybench.agents.lexical import stopwords
from pytest_memorybench.agents.models.budget import Budget
from pytest_memorybench.agents.models.concurrency import (
    AUTO_CEILING,
    active_limits,
    auto_conversations,
    forget_limits,
    limit_for,
    on_level_change,
    remember_levels,
)
from pytest_memorybench.agents.protocol import AgentAdapter
from pytest_memorybench.agents.supply import RunAgents
from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.clock import SimulatedClock
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.interactive import MemoryConversation
from pytest_memorybench.conversation.log_reader import (
    ConversationLog,
    iter_events,
    read_conversations,
)
from pytest_memorybench.conversation.probing import ProbeSession, read_probe_answers
from pytest_memorybench.conversation.scheduler import Conversation, ConversationStats
from pytest_memorybench.conversation.trivia import TriviaSource
from pytest_memorybench.core.errors import RunStopped, usage_error
from pytest_memorybench.core.records import Score, TestOutcome, Usage
from pytest_memorybench.core.spans import Span
from pytest_memorybench.core.tokens import TokenCounter, default_counter
from pytest_memorybench.goodai.rescore import PublishedRun, read_published
from pytest_memorybench.judges.base import JudgeStats
from pytest_memorybench.judges.client import CachedJudge
from pytest_memorybench.judges.local import VERSION as LOCAL_VERSION
from pytest_memorybench.judges.spec import build_judge
from pytest_memorybench.runner.driving import drive_group
from pytest_memorybench.runner.folder import Manifest, claim, read_manifest, remembered_levels, write_plan
from pytest_memorybench.runner.loop import RunLoop, describe_interruption
from pytest_memorybench.runner.plan import (
    PlannedTest,
    check_consistent,
    make_plan,
    planned_size,
)
from pytest_memorybench.runner.pool import ConversationPool
from pytest_memorybench.runner.selection import Selection
from pytest_memorybench.runner.settings import Settings, Shard
from pytest_memorybench.runner.shards import deal, fingerprint, read_shards
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.suite import Suite, load_suite, suite_source

if TYPE_CHECKING:  # the pytest face hands the run its terminal; the run only calls it
    from pytest_memorybench.reports.progress import TerminalProgress

T = TypeVar("T")
# Conversations in a row that an outage (a model provider or a memory store that still fails after
# its retries) ended: the run stops there, keeping what it has, instead of retrying a dead service
# for every conversation left.
OUTAGE_STOP = 3
OUTAGES = ("provider", "store")


def new_run_id(now: datetime | None = None) -> str:
    """A run id: the UTC time and four random hex digits."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(2)}"


class BenchmarkRun:
    """One benchmark run: its settings, its plan of tests and conversations, and how they are driven."""

    def __init__(
        self,
        settings: Settings,
        run_id: str,
        output: Path,
        *,
        worker: str | None = None,
        judge_cache: Path | None = None,
    ) -> None:
        self.merged = read_shards(settings.merge) if settings.merge else None
        if self.merged is not None:  # the shards' seed and profile, whatever this command says
            settings = dataclasses.replace(settings, seed=self.merged.seed, profile=self.merged.profile)
        self.settings = settings
        self.judge_cache = judge_cache
        self.worker = worker
        previous = settings.previous_run
        source = previous or (
            self.merged.shards[0].folder if self.merged else None
        )  # the run folder planned before
        manifest = read_manifest(source) if source else None
        self.run_id = manifest.id if settings.resume and manifest else run_id
        self.output = previous if settings.resume and previous else output
        self.started = datetime.now(timezone.utc)
        self.clock_start = manifest.clock_start if manifest else self.started
        self.conversation_count = manifest.conversations if manifest else settings.conversations
        self.published = _read_published(settings.rescore) if settings.rescore is not None else None
        self.suites: list[Suite] = (
            list(self.published.suites) if self.published else [load_suite(name) for name in settings.suites]
        )
        logged_spans = manifest.spans if manifest else {}
        self.spans = {
            suite.name: logged_spans.get(suite.name) or settings.span or suite.span for suite in self.suites
        }
        if manifest:
            check_consistent(settings, manifest, self.spans, self.conversation_count)
        self._plan(source, manifest, previous)
        self._prepare_driving()

    def _plan(self, source: Path | None, manifest: Manifest | None, previous: Path | None) -> None:
        """The tests, their conversation groups, this shard's part, and what an earlier run logged."""
        settings = self.settings
        plan = make_plan(
            self.suites, self.spans, settings, self.conversation_count,
            definitions_from=source or settings.definitions, each_alone=self.published is not None,
        )  # fmt: skip
        self.tests = plan.tests
        self.contexts = plan.contexts  # by conversation group
        by_group = plan.by_group()
        self.fingerprint = fingerprint(self.tests.values(), self.spans)
        self.shard = self._shard(settings.shard, manifest)
        dealt = deal(by_group, self.shard.count) if self.shard else {}
        if self.merged is not None and self.merged.fingerprint != self.fingerprint:
            raise usage_error(
                "--mb-merge: the shards ran another plan than this command makes: give it the --mb-suite"
                " options the shards ran with"
            )
        self.logged: dict[str, ConversationLog] = read_conversations(previous) if previous else {}
        self.logged_answers = read_probe_answers(iter_events(previous)) if previous else {}
        self.selection = Selection(
            self.tests,
            by_group,
            self.logged,
            shard_groups={group for group, index in dealt.items() if index == self.shard.index}
            if self.shard
            else None,
            merged_keys=self.merged.records if self.merged is not None else None,
        )

    def _prepare_driving(self) -> None:
        """What drives the conversations: the pool, its loop, the agents, the budget, the token counter."""
        settings = self.settings
        self.conversations: dict[str, ConversationStats] = {}
        self.progress: TerminalProgress | None = None  # the controller's terminal; none in xdist workers
        self.pending_keys: Callable[[], Iterable[str]] | None = None  # an xdist worker's queue, when known
        self.may_start: Callable[[str], bool] = lambda group: True  # the cost cap's say on a new conversation
        self._outcomes: dict[str, TestOutcome] = {}
        self._outages: list[str] = []  # the errors of the conversations an outage ended, in a row
        self._cut: dict[str, str] = {}  # conversation group -> what cut its driving short
        self._stopping: str | None = None  # why the run is ending the conversations in flight
        self.budget = Budget()
        self._warm_up: threading.Thread | None = None
        if settings.concurrency is None:
            forget_limits()  # this run measures its providers afresh, from where the last run ended
            remember_levels(remembered_levels(self.output, resumed=settings.resume is not None))
        self.pool = ConversationPool(
            self._run_group, self._upcoming_groups, settings.concurrency or auto_conversations
        )
        if settings.concurrency is None:
            on_level_change(self.pool.level_changed)
        self.loop = RunLoop()
        self.agents = RunAgents(self.run_sync, timeout=settings.agent_options.timeout, budget=self.budget)
        self._log: EventLog | None = None
        self._judge: CachedJudge | None = None
        self._lock: FileLock | None = None

    @cached_property
    def counter(self) -> TokenCounter:
        """The run's token counter, loaded when a conversation first counts (cl100k takes 0.4 s to
        load: `--collect-only` never pays it, and a run loads it in its warm-up thread)."""
        return default_counter()

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
        if self.merged is not None:
            return f"merging {len(self.merged.shards)} shards"
        return None

    @property
    def shard_share(self) -> str:
        """How much of the plan this shard runs, for the header: "2 of 5 conversations"."""
        groups, shard_groups = self.selection.by_group, self.selection.shard_groups or ()
        return f"{len(shard_groups)} of {len(groups)} conversation{'s' if len(groups) != 1 else ''}"

    def _shard(self, given: Shard | None, manifest: Manifest | None) -> Shard | None:
        """The part of the run this process runs: `--mb-shard`, or the one a resumed shard ran."""
        logged = (
            Shard(*manifest.shard)
            if manifest is not None and manifest.shard and self.merged is None
            else None
        )
        if given is not None and logged is not None and given != logged:
            flag = "--mb-resume" if self.settings.resume else "--mb-replay"
            raise usage_error(
                f"--mb-shard {given} conflicts with the run given to {flag} (shard {logged}); drop --mb-shard"
            )
        return given or logged

    # -- selection and the run folder -------------------------------------------------------------

    def select(self, keys: Iterable[str]) -> None:
        """Remember which tests pytest will run, so a group drives only its selected tests."""
        self.selection.select(keys)

    def selected_count(self) -> int:
        """The selected tests that will be driven (not those skipped before they start): the progress's
        total."""
        return sum(not self.tests[key].definition.skip_reason for key in self.selection.keys)

    def outside_this_run(self, key: str) -> bool:
        return self.selection.outside_this_run(key)

    def claim_folder(self) -> None:
        """Lock the run folder for this run (the controller's, or the only process's)."""
        self._lock = claim(self.output, "--mb-resume" if self.settings.resume else "--mb-output")

    def write_plan(self) -> None:
        """Save the manifest and every definition; a resumed run keeps the folder's own."""
        if self.settings.resume:
            return
        write_plan(
            self.output,
            (test.definition for test in self.tests.values()),
            {
                "id": self.run_id,
                "clock_start": self.clock_start.isoformat(),
                "spans": {name: str(span) for name, span in self.spans.items()},
                "suites": None if self.published else [suite_source(name) for name in self.settings.suites],
                "data": self.settings.data,
                "conversations": self.conversation_count,
                "seed": self.settings.seed,
                "replayed_from": str(self.settings.replay) if self.settings.replay else None,
                "rescored_from": str(self.settings.rescore) if self.settings.rescore else None,
                "fingerprint": self.fingerprint,
                "shard": {
                    "index": self.shard.index,
                    "count": self.shard.count,
                    "fingerprint": self.fingerprint,
                }
                if self.shard
                else None,
                "merged_from": [str(shard.folder) for shard in self.merged.shards] if self.merged else None,
            },
        )

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
            # auto: a model judge's endpoint limit decides how many at once (the local judge is CPU)
            auto = self.settings.concurrency is None and self.settings.judge.kind != "local"
            limit: dict[str, Any] = {"max_concurrency": AUTO_CEILING} if auto else {}
            self._judge = build_judge(
                self.settings.judge,
                cache_path=self.judge_cache,
                limits=self.settings.agent_options.limits,
                **limit,
            )
        return self._judge

    def concurrency_record(self) -> dict[str, Any]:
        """How many requests this process sent at once, and (auto) what each provider's limit did."""
        if self.settings.concurrency is not None:
            return {"mode": "fixed", "conversations": self.settings.concurrency, "providers": []}
        return {"mode": "auto", "providers": [limit.record() for limit in active_limits()]}

    def judge_stats(self) -> dict[str, Any]:
        """This process's judging, for results.json (zeros when the judge was never needed)."""
        if self._judge is not None:
            stats = dataclasses.asdict(self._judge.stats)
        else:  # never needed: the spec says who would have judged
            spec = self.settings.judge
            stats = dataclasses.asdict(
                JudgeStats(model=spec.model, version=LOCAL_VERSION if spec.kind == "local" else None)
            )
        return {"name": self._judge.name if self._judge is not None else self.settings.judge.display, **stats}

    # -- running ----------------------------------------------------------------------------------

    def outcome(self, key: str, agent: Any, factory: Callable[[], Any] | None = None) -> TestOutcome:
        """The outcome of test `key`, driving its conversation group first if nobody has yet.

        `agent` and `factory` are the item's `memorybench_agent` and `memorybench_agent_factory`.
        A conversation is driven once.  If something cuts the driving short (pytest-timeout, a
        signal), the tests it had finished keep their outcomes and the others get `cut_outcome`:
        driving it again from the start would ask the agent twice and score half a conversation.
        """
        if key not in self._outcomes:
            group = self.tests[key].group
            if group in self._cut:
                return self.cut_outcome(key)
            self._choose_supply(agent, factory)
            self._start_warm_up()
            members = self.selection.members(key)
            try:
                self.run_sync(
                    self._waited_on(self.pool.drive(group, lambda group: self._run_group(group, members)))
                )
            except BaseException as exc:
                self._mark_cut(group, exc)
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    self.stop_conversations(describe_interruption(exc))  # the session ends: so do the others
                else:
                    self.run_sync(self.pool.cancel([group]))  # a timeout: this conversation only
                raise
        return self._outcomes[key] if key in self._outcomes else self.cut_outcome(key)

    async def _waited_on(self, driving: Coroutine[Any, Any, None]) -> None:
        """`driving`, with the progress kept fresh on the terminal while pytest waits on it."""
        if self.progress is None:
            return await driving
        status = asyncio.get_running_loop().create_task(self.progress.keep_fresh(), name="memorybench:status")
        try:
            await driving
        finally:
            status.cancel()
            await asyncio.gather(status, return_exceptions=True)

    def stop_conversations(self, reason: str) -> None:
        """End the conversations still in flight (the session ends), keeping what they finished."""
        if self.pool.in_flight:
            self._stopping = reason
            self.run_sync(self.pool.cancel())

    def has_started(self, group: str) -> bool:
        """Whether `group` began, or ended, in this process (it has been paid for)."""
        return self.pool.started(group) or group in self.conversations

    @property
    def in_flight(self) -> int:
        return self.pool.in_flight

    def _start_warm_up(self) -> None:
        """Once: the token counter, the stopwords and the planned scenarios' slow scorer preparations, in a
        thread beside the conversations."""
        if self._warm_up is not None:
            return
        scenarios = {self.tests[key].definition.scenario for key in self.selection.keys}
        warm_ups: list[Callable[[], object]] = [
            default_counter,  # cl100k's ranks
            stopwords,  # the words every search and evidence recall skip (bm25s)
            *(warm for name in sorted(scenarios) if (warm := getattr(get_scenario(name), "warm_up", None))),
        ]
        self._warm_up = threading.Thread(
            target=lambda: [warm() for warm in warm_ups], name="memorybench-warm-up", daemon=True
        )
        self._warm_up.start()

    def _choose_supply(self, agent: Any, factory: Callable[[], Any] | None) -> None:
        """Once: the agents' supply, and one agent's conversations made to take turns."""
        if self.agents.supply is not None:
            return
        supply = self.agents.choose(agent, factory, agentless=self.agentless is not None)
        spec = self.settings.agent
        if (
            self.settings.concurrency is None
            and supply.multiplies
            and (spec is None or spec.kind in ("entry_point", "import"))
        ):
            supply.limit = limit_for(
                f"agent {spec.display if spec else 'memorybench_agent_factory'}"
            )  # your code: measured as a provider
        if self.agentless is None and not supply.multiplies:
            if factory is not None and self.pool.limit > 1 and self.progress is not None:
                # The header could not know: the user's fixture was free to hand back --agent's agent.
                self.progress(
                    {
                        "event": "note",
                        "text": (
                            "your memorybench_agent fixture gave one agent, so its conversations take turns;"
                            " a memorybench_agent_factory fixture lets"
                            f" {self.settings.concurrency or 'several'} run at once"
                        ),
                    }
                )
            self.pool.limit = 1  # one agent: its conversations take turns

    async def _run_group(self, group: str, tests: list[PlannedTest] | None = None) -> None:
        """Drive one conversation group with an agent of its own (or the shared one)."""
        supply = self.agents.supply
        assert supply is not None
        tests = tests if tests is not None else self.selection.group_tests(group)
        agent = None
        try:
            agent = await supply.acquire()
            await self.drive(group, tests, agent)
        except BaseException as exc:
            self._mark_cut(group, exc)
            raise
        finally:
            await supply.release(agent)

    def _mark_cut(self, group: str, exc: BaseException) -> None:
        if isinstance(exc, asyncio.CancelledError):
            reason = self._stopping or self.loop.interruption or "cancelled"
        else:
            reason = describe_interruption(exc)
        self._cut.setdefault(group, reason)
        if group in self.conversations:
            self.conversations[group].error = f"cut short: {self._cut[group]}"

    def _upcoming_groups(self) -> Iterator[str]:
        """The conversations this process is to drive next, among those the cost cap lets start:
        the one pytest will ask for next (so no item waits for a free place), then the longest
        first (the last conversation to finish bounds the run)."""
        keys = self.pending_keys() if self.pending_keys is not None else self.selection.order
        groups = dict.fromkeys(
            self.tests[key].group for key in keys if key in self.tests and key not in self._outcomes
        )
        group_tests = self.selection.group_tests
        waiting = [
            group
            for group in groups
            if not self.has_started(group) and group not in self._cut and group_tests(group)
        ]
        longest = sorted(waiting[1:], key=lambda group: planned_size(group_tests(group)), reverse=True)
        return (group for group in waiting[:1] + longest if self.may_start(group))

    def cut_outcome(self, key: str) -> TestOutcome:
        """What test `key` has when its conversation was cut short: its outcome, or an error saying so."""
        if key in self._outcomes:
            return self._outcomes[key]
        test = self.tests[key]
        error = (
            f"conversation {test.group} was cut short ({self._cut.get(test.group, 'interrupted')}) before"
            " this test ended, so it has no score; --mb-resume continues the conversation without asking"
            " again"
        )
        return TestOutcome(
            test.definition,
            [],
            Score(0.0, (error,)),
            [],
            0,
            Usage(),
            error=error,
            span_target=test.span.tokens,
            error_kind="interrupted",
        )

    def finished_outcomes(self) -> dict[str, TestOutcome]:
        """Every outcome this process has, including those of tests pytest never got to report
        (an interruption, `-x`): a partial results.json lists them too."""
        return dict(self._outcomes)

    def tests_waited_on(self, key: str) -> int:
        """How many tests the item of `key` waits on: its whole conversation's if nobody drove it yet."""
        if key in self._outcomes or self.tests[key].group in self._cut:
            return 1
        return max(1, len(self.selection.members(key)))

    async def drive(self, group: str, tests: list[PlannedTest], agent: AgentAdapter | None) -> None:
        """Drive conversation group `group` for `tests` with `agent` (`driving.drive_group`)."""
        await drive_group(self, group, tests, agent)

    def record_outcomes(self, outcomes: Mapping[str, TestOutcome]) -> None:
        """The outcomes a group's driving gave its tests."""
        self._outcomes.update(outcomes)

    def keep_finished(self, group: str, conversation: Conversation | ProbeSession) -> None:
        """Keep what a conversation finished, also when something cut it short."""
        for key, outcome in conversation.finished().items():
            self._outcomes.setdefault(key, outcome)
        self.conversations[group] = conversation.stats
        self._count_outage(conversation.stats)

    def _count_outage(self, stats: ConversationStats) -> None:
        """Stop the run when the last OUTAGE_STOP conversations all ended in an outage."""
        if stats.error is None:
            self._outages = []
        elif stats.error_kind in OUTAGES:
            self._outages.append(stats.error)
            if len(self._outages) >= OUTAGE_STOP:
                raise RunStopped(
                    f"{len(self._outages)} conversations in a row failed after their retries, the last with:"
                    f" {self._outages[-1]}"
                )

    def conversation_for(self, test: str, agent: Any) -> MemoryConversation:
        """A hand-driven conversation for a user's own test, logged under the test's node id."""
        adapter = self.agents.adapt(agent)
        if adapter is None:
            raise usage_error("memorybench_conversation needs an agent; --mb-replay has none")
        channel = AgentChannel(
            adapter, group=test, counter=self.counter, clock=SimulatedClock(self.clock_start), log=self.log
        )
        self.run_sync(channel.reset())
        return MemoryConversation(channel, self.run_sync, TriviaSource(self.settings.seed))

    def run_sync(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.loop.run(coroutine)

    def close(self) -> None:
        if self._warm_up is not None:
            self._warm_up.join()  # an import half done when the session ends would be left broken
        try:
            self.agents.close()
            if self._judge is not None:
                self.run_sync(self._judge.aclose())
        finally:
            self.loop.close()  # after an interruption: ends the tasks still in flight, before the log closes
            if self._log is not None:
                self._log.close()
            if self._lock is not None:
                self._lock.release()


def _read_published(path: Path) -> PublishedRun:
    """Published verdicts to re-score: a LoCoMo pipeline's eval_results.json, or GoodAI's results."""
    from pytest_memorybench.runner.locomo_results import is_eval_results, read_eval_results  # imports LoCoMo

    return read_eval_results(path) if is_eval_results(path) else read_published(path)
