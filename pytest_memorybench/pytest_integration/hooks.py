"""The hooks of an active benchmark session, registered by the entry point under `--memorybench`."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable, Generator, Iterable

import pytest

from pytest_memorybench.pytest_integration.compat import TimeoutPerTest
from pytest_memorybench.pytest_integration.failures import FewFailures, chosen_by_user
from pytest_memorybench.pytest_integration.finishing import Stop, Tally, exit_status, finish, list_files
from pytest_memorybench.pytest_integration.gating import gate_decides_exit
from pytest_memorybench.pytest_integration.items import collect_benchmark
from pytest_memorybench.pytest_integration.keys import OUTCOME_KEY, PLANNED_KEY, PROGRESS_KEY, RUN_KEY
from pytest_memorybench.pytest_integration.outputs import register_outputs
from pytest_memorybench.pytest_integration.starting import is_worker, start
from pytest_memorybench.pytest_integration.terminal import TerminalOutput, report_location
from pytest_memorybench.runner.loop import describe_interruption, stop_on_signals
from pytest_memorybench.runner.run import BenchmarkRun
from pytest_memorybench.runner.spending import SpendingCap, process_spend


def activate(config: pytest.Config) -> None:
    """Start the benchmark session and register the hooks of an active run."""
    start(config)
    benchmark = BenchmarkHooks(config, restore_signals=stop_on_signals())
    register = config.pluginmanager.register
    register(benchmark, "memorybench-run")
    register(
        TerminalOutput(config, benchmark.run, benchmark.tally, benchmark.outputs), "memorybench-terminal"
    )
    register(SelectionHooks(benchmark.run), "memorybench-selection")
    if config.pluginmanager.hasplugin("timeout"):
        register(TimeoutPerTest(benchmark.run), "memorybench-timeout")
    if config.pluginmanager.hasplugin("xdist"):
        from pytest_memorybench.pytest_integration.xdist_controller import XdistControllerHooks

        register(XdistControllerHooks(benchmark.run, benchmark.tally), "memorybench-xdist")
    if not is_worker(config) and not chosen_by_user(config):
        tests = benchmark.run.context.tests
        few = FewFailures(
            lambda nodeid: nodeid in tests or nodeid.rpartition("@")[0] in tests,  # loadgroup adds @group
            lambda: report_location(config),
        )
        register(few, "memorybench-failures")
    if gate_decides_exit(config) and not is_worker(config):
        register(GateExitHooks(benchmark), "memorybench-exit")


class BenchmarkHooks:
    """The hooks of an active benchmark session."""

    def __init__(self, config: pytest.Config, restore_signals: Callable[[], None] = lambda: None) -> None:
        self.config = config
        self.restore_signals = restore_signals
        self.interruption: str | None = None  # what interrupted the session (Ctrl-C, SIGTERM)
        self.run = config.stash[RUN_KEY]
        self.progress = config.stash.get(PROGRESS_KEY, None)  # the controller's terminal; none in a worker
        self.tally = Tally()
        self.cap: SpendingCap | None = None
        self.outputs = register_outputs(config, self.run, lambda: self.tally.selected)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        items.extend(collect_benchmark(session, self.run))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        planned = [item.stash[PLANNED_KEY] for item in session.items if PLANNED_KEY in item.stash]
        if self.run.context.settings.estimate is not None:
            from pytest_memorybench.reports.estimate import estimate_lines
            from pytest_memorybench.runner.estimate_plays import estimate_run

            self.tally.estimate = estimate_lines(
                estimate_run(self.run, planned, self.run.context.settings.estimate)
            )
            return
        self.run.context.selection.select(test.key for test in planned)
        if not is_worker(self.config):  # (under xdist: the controller's own hook, below)
            self.run.context.record_selection(test.key for test in planned)
        if is_worker(self.config):
            from pytest_memorybench.runner.xdist_groups import worker_queue

            self.run.follow_queue(lambda: _planned_keys(worker_queue(self.config, session.items) or ()))
        self.tally.selected = len(planned)
        self.tally.scoreable = sum(not test.definition.skip_reason for test in planned)
        max_cost = self.run.context.settings.max_cost
        if max_cost is not None:
            worker = is_worker(self.config)
            process = self.config.workerinput["workerid"] if worker else "main"  # type: ignore[attr-defined]
            cap = self.cap = SpendingCap(
                max_cost, self.run.context.output, process, dict(Counter(test.group for test in planned))
            )
            if not worker:
                cap.clear()  # before any worker starts: workers collect after the controller
            self.run.admit_with(
                lambda group: (
                    self._paid_for(group)
                    or cap.reason_to_skip(group, self._spent(), self.run.book.conversations) is None
                )
            )
            self.run.agents.budget.stop_when(lambda: cap.reached(self._spent()))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """Under `--mb-max-cost`, skip a conversation that would overspend, before it starts."""
        if self.cap is None or PLANNED_KEY not in item.stash:
            return
        test = item.stash[PLANNED_KEY]
        if self._paid_for(test.group) or test.definition.skip_reason:
            return  # already paid for, or skipped anyway
        reason = self.cap.reason_to_skip(test.group, self._spent(), self.run.book.conversations)
        if reason is not None:
            pytest.skip(reason)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if report.skipped and PLANNED_KEY in item.stash and isinstance(report.longrepr, tuple):
            # Point the skip at the item, as a skip mark's reason is, not at the line of this plugin.
            # pytest folds a skip without a line number (a skip mark's) as it shows it; its type says int
            report.longrepr = (item.nodeid, None, report.longrepr[2])  # type: ignore[assignment]
        # The record goes with the report that ends the item: the call's, or a set-up's that errored.
        ends = call.when == "call" or (call.when == "setup" and report.failed)
        if ends and OUTCOME_KEY in item.stash:
            from pytest_memorybench.results.build import item_record

            planned = item.stash[PLANNED_KEY]
            record = item_record(
                planned.key,
                item.stash[OUTCOME_KEY],
                threshold=planned.threshold,
                conversation=planned.group,
                passed=report.passed,
            )
            # an attribute of the report travels with it to the xdist controller
            report.memorybench = record  # type: ignore[attr-defined]
            item.config.hook.pytest_memorybench_item(item=item, report=report, record=record)
        return report

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        """An estimate has planned and costed the items: none of them runs."""
        return True if self.tally.estimate is not None else None

    @pytest.hookimpl(tryfirst=True)  # before the terminal writes the result: the status makes way
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.progress is not None:
            self.progress.clear()
        record = getattr(report, "memorybench", None)
        if record is not None:
            self.tally.records_by_item[report.nodeid] = record
            if self.cap is not None:
                self.cap.publish(self._spent())
        elif report.failed:
            self.tally.other_failures += (
                1  # not a benchmark item's score: `--mb-exit gate` lets it fail the build
            )

    def _spent(self) -> float:
        overhead = sum(stats.overhead_usage.cost_usd for stats in self.run.book.conversations.values())
        # the agent's calls here, and what a resumed run's earlier sessions spent on its conversations
        agent = self.run.agents.budget.agent_usd + self.run.context.spent_before(self.run.has_started)
        return process_spend(
            agent, self.tally.records, overhead, self.run.instruments.judge_stats()["cost_usd"]
        )

    def _paid_for(self, group: str) -> bool:
        """Whether `group` is paid for: begun here, or by the run this one resumes.  The cost cap never
        skips it (what it holds would be lost); its calls still stop at the cap."""
        return self.run.has_started(group) or group in self.run.context.resumed_groups

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self.interruption = describe_interruption(excinfo.value)
        if self.progress is not None:
            self.progress.clear()

    @pytest.hookimpl(tryfirst=True)  # before junitxml writes its file: the suite properties go in it
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.tally.estimate is not None:
            return
        self.run.stop_conversations(
            "the session ended before their items ran"
        )  # -x, --maxfail: keep what they finished
        finished = finish(
            self.config,
            self.outputs,
            self.tally.records,
            self.tally.worker_conversations,
            self.tally.worker_judge_stats,
            scoreable=self.tally.scoreable,
            stop=self._stop(session),
            concurrency=self.tally.worker_concurrency,
        )
        self.tally.finished = finished
        session.exitstatus = exit_status(self.config, session.exitstatus, finished, self.tally.other_failures)

    def _stop(self, session: pytest.Session) -> Stop | None:
        """What ended the session before its tests, if anything: a signal, or pytest's `-x` / `--maxfail`."""
        if self.interruption is not None or session.exitstatus == pytest.ExitCode.INTERRUPTED:
            return Stop(self.interruption or "interrupted", interrupted=True)
        reason = session.shouldfail or session.shouldstop
        return Stop(str(reason), interrupted=False) if reason else None

    def pytest_unconfigure(self) -> None:
        self.restore_signals()
        self.run.close()
        if self.run.context.settings.estimate is not None:
            shutil.rmtree(self.run.context.output, ignore_errors=True)
        elif not is_worker(self.config):
            list_files(self.config)  # last: every file the session wrote, reports included


class GateExitHooks:
    """`--mb-exit gate`: the gate's verdict set as the exit status last, once every other plugin
    has finished the session (syrupy ORs the status pytest gave it back in, so a status lowered
    before it would not hold)."""

    def __init__(self, benchmark: BenchmarkHooks) -> None:
        self.benchmark = benchmark

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Generator[None, None, None]:
        yield
        benchmark = self.benchmark
        session.exitstatus = exit_status(
            benchmark.config, session.exitstatus, benchmark.tally.finished, benchmark.tally.other_failures
        )


class SelectionHooks:
    """Selection that is ours to make, after pytest's own (`-k`, `-m`, `--deselect`)."""

    def __init__(self, run: BenchmarkRun) -> None:
        self.run = run

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """A resumed or replayed run goes on with the tests its conversations began with, no others;
        a shard runs its own part, and a merge reports what the shards ran."""
        keep: list[pytest.Item] = []
        outside: list[pytest.Item] = []
        for item in items:
            planned = item.stash.get(PLANNED_KEY, None)
            (
                outside
                if planned is not None and self.run.context.selection.outside_this_run(planned.key)
                else keep
            ).append(item)
        if outside:
            config.hook.pytest_deselected(items=outside)
            items[:] = keep


def _planned_keys(items: Iterable[pytest.Item]) -> list[str]:
    return [item.stash[PLANNED_KEY].key for item in items if PLANNED_KEY in item.stash]
