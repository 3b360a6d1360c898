"""The hooks of an active benchmark session, registered by the entry point under `--memorybench`."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable, Generator, Iterable
from typing import TYPE_CHECKING, Any

import pytest

from pytest_memorybench.pytest_integration import session as lifecycle  # `session` is a hook argument name
from pytest_memorybench.pytest_integration.compat import TimeoutPerTest
from pytest_memorybench.pytest_integration.failures import FewFailures, chosen_by_user
from pytest_memorybench.pytest_integration.gating import gate_decides_exit
from pytest_memorybench.pytest_integration.items import collect_benchmark
from pytest_memorybench.pytest_integration.keys import OUTCOME_KEY, PLANNED_KEY, PROGRESS_KEY, RUN_KEY
from pytest_memorybench.results.schema import ConversationRecord, ItemRecord
from pytest_memorybench.runner.loop import describe_interruption, stop_on_signals
from pytest_memorybench.runner.run import BenchmarkRun
from pytest_memorybench.runner.spending import SKIP_PREFIX, SpendingCap, process_spend

if TYPE_CHECKING:
    from pytest_memorybench.reports.transcript import EventIndex


def activate(config: pytest.Config) -> None:
    """Start the benchmark session and register the hooks of an active run."""
    lifecycle.start(config)
    benchmark = BenchmarkHooks(config, restore_signals=stop_on_signals())
    config.pluginmanager.register(benchmark, "memorybench-run")
    config.pluginmanager.register(SelectionHooks(benchmark.run), "memorybench-selection")
    if config.pluginmanager.hasplugin("timeout"):
        config.pluginmanager.register(TimeoutPerTest(benchmark.run), "memorybench-timeout")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistControllerHooks(benchmark), "memorybench-xdist")
    if config.pluginmanager.hasplugin("html") and not lifecycle.is_worker(config):
        config.pluginmanager.register(HtmlReportHooks(config), "memorybench-html")
    if not lifecycle.is_worker(config) and not chosen_by_user(config):
        tests = benchmark.run.context.tests
        few = FewFailures(
            lambda nodeid: nodeid in tests or nodeid.rpartition("@")[0] in tests,  # loadgroup adds @group
            lambda: lifecycle.report_location(config),
        )
        config.pluginmanager.register(few, "memorybench-failures")
    if gate_decides_exit(config) and not lifecycle.is_worker(config):
        config.pluginmanager.register(GateExitHooks(benchmark), "memorybench-exit")


class BenchmarkHooks:
    """The hooks of an active benchmark session."""

    def __init__(self, config: pytest.Config, restore_signals: Callable[[], None] = lambda: None) -> None:
        self.config = config
        self.restore_signals = restore_signals
        self.interruption: str | None = None  # what interrupted the session (Ctrl-C, SIGTERM)
        self.run = config.stash[RUN_KEY]
        self.progress = config.stash.get(PROGRESS_KEY, None)  # the controller's terminal; none in a worker
        self.records_by_item: dict[str, ItemRecord] = {}  # a rerun item's last report wins
        self.worker_conversations: list[ConversationRecord] = []
        self.worker_judge_stats: list[dict[str, Any]] = []
        self.worker_concurrency: list[dict[str, Any]] = []
        self.other_failures = 0  # failed reports that are no benchmark item's (a test of your own)
        self.finished: lifecycle.Finished | None = None  # what the session wrote and judged at its end
        self.selected = 0
        self.scoreable = 0  # the selected tests that can have a score (not skipped before they start)
        self.cap: SpendingCap | None = None
        self.html_extras = bool(getattr(config.option, "htmlpath", None))
        self.estimate: list[str] | None = None  # the bill, when only estimating
        self._events: EventIndex | None = None

    def pytest_report_header(self, config: pytest.Config) -> str:
        return lifecycle.header(config)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        items.extend(collect_benchmark(session, self.run))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        planned = [item.stash[PLANNED_KEY] for item in session.items if PLANNED_KEY in item.stash]
        if self.run.context.settings.estimate is not None:
            from pytest_memorybench.reports.estimate import estimate_lines
            from pytest_memorybench.runner.estimate_plays import estimate_run

            self.estimate = estimate_lines(
                estimate_run(self.run, planned, self.run.context.settings.estimate)
            )
            return
        self.run.context.selection.select(test.key for test in planned)
        if not lifecycle.is_worker(self.config):  # (under xdist: the controller's own hook, below)
            self.run.context.record_selection(test.key for test in planned)
        if lifecycle.is_worker(self.config):
            from pytest_memorybench.runner.xdist_groups import worker_queue

            self.run.follow_queue(lambda: _planned_keys(worker_queue(self.config, session.items) or ()))
        self.selected = len(planned)
        self.scoreable = sum(not test.definition.skip_reason for test in planned)
        max_cost = self.run.context.settings.max_cost
        if max_cost is not None:
            worker = lifecycle.is_worker(self.config)
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
            from pytest_memorybench.reports.junit import item_properties
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
            item.user_properties.extend(item_properties(record))
            if self.html_extras:
                report.extras = [*getattr(report, "extras", []), self._html_extra(record)]  # type: ignore[attr-defined]
        return report

    def _html_extra(self, record: ItemRecord) -> dict[str, Any]:
        from pytest_html import extras

        from pytest_memorybench.reports.html import item_fragment

        if self._events is None:
            self._events = lifecycle.event_index(self.run)
        self._events.refresh()
        transcript = self._events.transcript(record["conversation"], record["nodeid"])
        extra: dict[str, Any] = extras.html(item_fragment(record, transcript))
        return extra

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        """An estimate has planned and costed the items: none of them runs."""
        return True if self.estimate is not None else None

    @pytest.hookimpl(tryfirst=True)  # before the terminal writes the result: the status makes way
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.progress is not None:
            self.progress.clear()
        record = getattr(report, "memorybench", None)
        if record is not None:
            self.records_by_item[report.nodeid] = record
            if self.cap is not None:
                self.cap.publish(self._spent())
        elif report.failed:
            self.other_failures += 1  # not a benchmark item's score: `--mb-exit gate` lets it fail the build

    @property
    def records(self) -> list[ItemRecord]:
        return list(self.records_by_item.values())

    def _spent(self) -> float:
        overhead = sum(stats.overhead_usage.cost_usd for stats in self.run.book.conversations.values())
        # the agent's calls here, and what a resumed run's earlier sessions spent on its conversations
        agent = self.run.agents.budget.agent_usd + self.run.context.spent_before(self.run.has_started)
        return process_spend(agent, self.records, overhead, self.run.instruments.judge_stats()["cost_usd"])

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
        if self.estimate is not None:
            return
        self.run.stop_conversations(
            "the session ended before their items ran"
        )  # -x, --maxfail: keep what they finished
        finished = lifecycle.finish(
            self.config,
            self.records,
            self.worker_conversations,
            self.worker_judge_stats,
            selected=self.selected,
            scoreable=self.scoreable,
            stop=self._stop(session),
            concurrency=self.worker_concurrency,
        )
        self.finished = finished
        session.exitstatus = lifecycle.exit_status(
            self.config, session.exitstatus, finished, self.other_failures
        )

    def _stop(self, session: pytest.Session) -> lifecycle.Stop | None:
        """What ended the session before its tests, if anything: a signal, or pytest's `-x` / `--maxfail`."""
        if self.interruption is not None or session.exitstatus == pytest.ExitCode.INTERRUPTED:
            return lifecycle.Stop(self.interruption or "interrupted", interrupted=True)
        reason = session.shouldfail or session.shouldstop
        return lifecycle.Stop(str(reason), interrupted=False) if reason else None

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int) -> None:
        if self.estimate is not None:
            terminalreporter.write_sep("=", "memorybench estimate")
            for line in self.estimate:
                terminalreporter.write_line(line)
            return
        lines = lifecycle.summary(self.config)
        if lines:
            terminalreporter.write_sep("=", "memorybench")
            for line in lines:
                terminalreporter.write_line(line)
        agreement = lifecycle.agreement_summary(self.config)
        if agreement:
            terminalreporter.write_sep("=", "memorybench agreement")
            for line in agreement:
                terminalreporter.write_line(line)
        cap_skips = [
            report
            for report in terminalreporter.stats.get("skipped", [])
            if SKIP_PREFIX in str(getattr(report, "longrepr", ""))
        ]
        if cap_skips:
            max_cost = self.run.context.settings.max_cost
            terminalreporter.write_line(
                f"{SKIP_PREFIX} ${max_cost:.2f}: {len(cap_skips)} item(s) skipped to stay within the budget"
                " (see their skip reasons: pytest -rs)"
            )
        gate = lifecycle.gate_summary(self.config)
        if gate:
            failed = any(line.startswith("gate FAILED") for line in gate)
            terminalreporter.write_sep("=", "memorybench gate", red=failed, green=not failed)
            for line in gate:
                terminalreporter.write_line(line, red=line.startswith("gate FAILED"))
            status = lifecycle.exit_status(self.config, exitstatus, self.finished, self.other_failures)
            said = lifecycle.exit_line(self.config, self.records, int(status))
            if said is not None:
                terminalreporter.write_line(said, green=True)

    def pytest_unconfigure(self) -> None:
        self.restore_signals()
        self.run.close()
        if self.run.context.settings.estimate is not None:
            shutil.rmtree(self.run.context.output, ignore_errors=True)
        elif not lifecycle.is_worker(self.config):
            lifecycle.list_files(self.config)  # last: every file the session wrote, reports included


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
        session.exitstatus = lifecycle.exit_status(
            benchmark.config, session.exitstatus, benchmark.finished, benchmark.other_failures
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


class XdistControllerHooks:
    """Hands the run id and folder to every xdist worker, and takes its conversations back."""

    def __init__(self, benchmark: BenchmarkHooks) -> None:
        self.benchmark = benchmark
        self.recorded = False  # the selection, in the run folder

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput.update(lifecycle.worker_input(node.config))

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Under `loadgroup` (which `-n` alone becomes, see session.start), group benchmark items
        by conversation from the plan, not from node ids (pytest >= 9.2 drops xdist's suffix)."""
        if config.getvalue("dist") != "loadgroup":
            return None
        from pytest_memorybench.runner.xdist_groups import ConversationScheduling

        run = self.benchmark.run
        return ConversationScheduling(
            config,
            log,
            {key: test.group for key, test in run.context.tests.items()},
            run.context.settings.concurrency,
        )

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """The controller collects nothing itself: what its workers selected is what the run selected."""
        tests = self.benchmark.run.context.tests
        keys = [
            nodeid if nodeid in tests else nodeid.rpartition("@")[0] for nodeid in ids
        ]  # loadgroup adds @group
        if not self.recorded:  # every worker selects the same tests
            self.benchmark.run.context.record_selection(keys)
            self.recorded = True
        self.benchmark.selected = max(self.benchmark.selected, sum(key in tests for key in keys))
        scoreable = sum(key in tests and not tests[key].definition.skip_reason for key in keys)
        self.benchmark.scoreable = max(self.benchmark.scoreable, scoreable)

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {})
        self.benchmark.worker_conversations += output.get(lifecycle.WORKER_CONVERSATIONS, [])
        if lifecycle.WORKER_JUDGE in output:
            self.benchmark.worker_judge_stats.append(output[lifecycle.WORKER_JUDGE])
        if lifecycle.WORKER_CONCURRENCY in output:
            self.benchmark.worker_concurrency.append(output[lifecycle.WORKER_CONCURRENCY])


class HtmlReportHooks:
    """pytest-html's report (`--html`): a Score column, and the score tables above the results.

    Registered only when pytest-html is loaded: its hook names are unknown to pytest otherwise.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_html_results_summary(self, prefix: list[str], summary: list[str], postfix: list[str]) -> None:
        finished = self.config.stash.get(lifecycle.RESULTS_KEY, None)
        if finished is not None and finished.results is not None:
            from pytest_memorybench.reports.html import summary_fragment

            postfix.append(summary_fragment(finished.results, finished.results.get("gate")))

    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        cells.insert(2, '<th class="sortable" data-column-type="score">Score</th>')

    def pytest_html_results_table_row(self, report: pytest.TestReport, cells: list[str]) -> None:
        record = getattr(report, "memorybench", None)
        score = f"{record['score']:.2f}" if record is not None else ""
        cells.insert(2, f'<td class="col-score">{score}</td>')
        if record is not None and len(cells) > 1:
            from html import escape

            # pytest-html writes node ids unescaped; ours can carry ids from data files.
            cells[1] = f'<td class="col-testId">{escape(report.nodeid)}</td>'


def _planned_keys(items: Iterable[pytest.Item]) -> list[str]:
    return [item.stash[PLANNED_KEY].key for item in items if PLANNED_KEY in item.stash]
