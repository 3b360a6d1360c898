"""The hooks of an active benchmark session, registered by the entry point under `--memorybench`."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from pytest_memorybench import session
from pytest_memorybench.items import collect_benchmark
from pytest_memorybench.keys import OUTCOME_KEY, PLANNED_KEY, RUN_KEY
from pytest_memorybench.reports.results import item_record


def activate(config: pytest.Config) -> None:
    session.start(config)
    benchmark = BenchmarkHooks(config)
    config.pluginmanager.register(benchmark, "memorybench-run")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistControllerHooks(benchmark), "memorybench-xdist")


class BenchmarkHooks:
    """The hooks of an active benchmark session."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.run = config.stash[RUN_KEY]
        self.records: list[dict[str, Any]] = []
        self.worker_conversations: list[dict[str, Any]] = []
        self.worker_judge_stats: list[dict[str, Any]] = []

    def pytest_report_header(self, config: pytest.Config) -> str:
        return session.header(config)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        items.extend(collect_benchmark(session, self.run))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.run.select(item.stash[PLANNED_KEY].key for item in session.items if PLANNED_KEY in item.stash)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if call.when == "call" and OUTCOME_KEY in item.stash:
            planned = item.stash[PLANNED_KEY]
            record = item_record(planned.key, planned, item.stash[OUTCOME_KEY], report.passed)
            report.memorybench = record  # type: ignore[attr-defined]  (travels to the xdist controller)
            item.user_properties.extend(session.junit_properties(record))
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, "memorybench", None)
        if record is not None and report.when == "call":
            self.records.append(record)

    def pytest_sessionfinish(self) -> None:
        session.finish(self.config, self.records, self.worker_conversations, self.worker_judge_stats)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        lines = session.summary(self.config)
        if lines:
            terminalreporter.write_sep("=", "memorybench")
            for line in lines:
                terminalreporter.write_line(line)

    def pytest_unconfigure(self) -> None:
        self.run.close()


class XdistControllerHooks:
    """Hands the run id and folder to every xdist worker, and takes its conversations back."""

    def __init__(self, benchmark: BenchmarkHooks) -> None:
        self.benchmark = benchmark

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput.update(session.worker_input(node.config))

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {})
        self.benchmark.worker_conversations += output.get(session.WORKER_CONVERSATIONS, [])
        if session.WORKER_JUDGE in output:
            self.benchmark.worker_judge_stats.append(output[session.WORKER_JUDGE])
