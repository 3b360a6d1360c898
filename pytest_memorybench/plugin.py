"""pytest hooks of pytest-memorybench.

The module-level hooks only add options and markers; everything else lives in `BenchmarkHooks`,
registered by `pytest_configure` when `--memorybench` is given, so a normal pytest run is untouched.
Each hook hands over to the module that does the work.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from pytest_memorybench import session
from pytest_memorybench.fixtures import memorybench_agent, memorybench_conversation  # noqa: F401  (registers them)
from pytest_memorybench.items import OUTCOME_KEY, PLANNED_KEY, RUN_KEY, collect_benchmark
from pytest_memorybench.reports.results import item_record


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("memorybench", "long-term-memory benchmarks (pytest-memorybench)")
    group.addoption("--memorybench", action="store_true", help="run the memory benchmark; with no paths, only it")
    group.addoption("--agent", dest="mb_agent", metavar="SPEC", help="agent under test: recall, null, oracle, openai:MODEL, anthropic:MODEL, openai:MODEL@URL, http://HOST/v1, an entry point name, or pkg.module:factory")
    group.addoption("--judge", dest="mb_judge", metavar="SPEC", default="local", help="semantic comparator for scorers that need one (default: local)")
    group.addoption("--span", dest="mb_span", metavar="SPAN", help="memory span: 2k, 32k, 120k, 1M, 500000 or isolated (default: the suite's)")
    group.addoption("--mb-suite", dest="mb_suite", action="append", metavar="NAME_OR_PATH", help="suite to run, repeatable: a built-in name (ltm) or a YAML file (default: ltm)")
    group.addoption("--mb-seed", dest="mb_seed", type=int, default=0, metavar="N", help="generation seed (default: 0)")
    group.addoption("--mb-profile", dest="mb_profile", default="paper", metavar="paper|official", help="scoring profile where the original code and its paper disagree (default: paper)")
    group.addoption("--mb-threshold", dest="mb_threshold", type=float, metavar="X", help="pass threshold for every item, overriding the suite's")
    group.addoption("--mb-context", dest="mb_context", type=int, metavar="N", help="context budget in tokens for the built-in LLM adapters (default: the model's)")
    group.addoption("--mb-output", dest="mb_output", metavar="DIR", help="run folder (default: .memorybench/runs/<run id>)")
    group.addoption("--mb-timeout", dest="mb_timeout", type=float, default=600.0, metavar="SECONDS", help="longest wait for one agent reply (default: 600)")
    group.addoption("--mb-conversations", dest="mb_conversations", type=int, default=1, metavar="K", help="split each suite into K independent conversations, so -n can share the work (default: 1)")
    group.addoption("--mb-resume", dest="mb_resume", metavar="DIR", help="continue an interrupted run in its folder, without re-asking what was answered")
    group.addoption("--mb-replay", dest="mb_replay", metavar="DIR", help="re-score a finished run with the current scorers, without the agent")
    group.addoption("--mb-definitions", dest="mb_definitions", metavar="DIR", help="reuse another run's test definitions (e.g. the same content at another span)")
    group.addoption("--mb-baseline", dest="mb_baseline", metavar="FILE", help="fail on regression against a previous results.json (not available yet)")
    group.addoption("--mb-max-drop", dest="mb_max_drop", type=float, metavar="X", help="largest allowed drop below the baseline (not available yet)")


def pytest_configure(config: pytest.Config) -> None:
    session.register_markers(config)
    if config.getoption("memorybench"):
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
        session.finish(self.config, self.records, self.worker_conversations)

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
        self.benchmark.worker_conversations += getattr(node, "workeroutput", {}).get(session.WORKER_CONVERSATIONS, [])
