"""The package's own outputs of a run, each a plugin implementing the hooks of `hookspecs.py`.

`register_outputs` registers them when a benchmark session starts, as a conftest.py's output is
(`docs/reports.md`): JUnit's properties, results.json with report.html, the Markdown summary,
`--mb-export`'s files and pytest-html's extras (the gate is `gating.RunGate`).  What each wrote is
kept on it, for the terminal summary (`terminal.py`) and the exit status (`finishing.py`).

What they write is imported when they write it, not at start-up: a run's first message to its
agent waits on nothing it does not need (tests/pytest_integration/test_startup.py keeps it so).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_memorybench.core.files import write_atomically
from pytest_memorybench.pytest_integration.gating import RunGate
from pytest_memorybench.pytest_integration.keys import shown_path
from pytest_memorybench.results.schema import ItemRecord, ResultsRecord
from pytest_memorybench.runner.run import BenchmarkRun

if TYPE_CHECKING:
    from collections.abc import Callable

    from pytest_memorybench.reports.transcript import EventIndex


class ResultsUnwritten(Exception):
    """results.json could not be written: the outputs after it have nothing to point at."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line  # what the terminal says, and how to go on


class ResultsFiles:
    """results.json, the concurrency levels the folder's next run starts from, and report.html."""

    def __init__(self, run: BenchmarkRun) -> None:
        self.run = run
        self.results_path: Path | None = None
        self.report_path: Path | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_memorybench_results(self, config: pytest.Config, results: ResultsRecord, folder: Path) -> None:
        from pytest_memorybench.reports.html import report_page
        from pytest_memorybench.results.file import write_results
        from pytest_memorybench.runner.folder import write_levels

        path, report = folder / "results.json", folder / "report.html"
        try:
            write_results(path, results)
            write_levels(folder, results["run"]["concurrency"])
            items = transcripts(self.run, results["items"])
            write_atomically(report, report_page(results, items, results.get("gate")))
        except OSError as exc:
            shown = shown_path(config, folder)
            raise ResultsUnwritten(
                f"cannot write the results in {shown} ({exc.strerror or exc}); make room, then"
                f" --mb-resume={shown} writes them without asking the agent again"
            ) from exc
        self.results_path, self.report_path = path, report


class JUnitProperties:
    """Each item's score and the run's means as JUnit properties (`--junitxml`)."""

    def pytest_memorybench_item(
        self, item: pytest.Item, report: pytest.TestReport, record: ItemRecord
    ) -> None:
        from pytest_memorybench.reports.junit import item_properties

        item.user_properties.extend(item_properties(record))

    @pytest.hookimpl(tryfirst=True)  # before results.json is written, as it always was
    def pytest_memorybench_results(self, config: pytest.Config, results: ResultsRecord, folder: Path) -> None:
        from pytest_memorybench.reports.junit import add_suite_properties, suite_properties

        add_suite_properties(config, suite_properties(results, results.get("gate")))


class MarkdownSummary:
    """The run's table as Markdown: `--mb-markdown FILE`, and the GitHub job summary when there is one."""

    def __init__(self) -> None:
        self.targets: tuple[str, ...] = ()

    def pytest_memorybench_results(self, config: pytest.Config, results: ResultsRecord, folder: Path) -> None:
        from pytest_memorybench.reports.markdown import publish, run_markdown

        markdown = run_markdown(results, results.get("gate"))
        self.targets = tuple(publish(markdown, config.getoption("mb_markdown", None)))


class Exports:
    """The answers in each benchmark's own format (`--mb-export`), in the run folder, a line each."""

    def __init__(self, run: BenchmarkRun) -> None:
        self.run = run
        self.lines: tuple[str, ...] = ()

    def pytest_memorybench_results(self, config: pytest.Config, results: ResultsRecord, folder: Path) -> None:
        if not config.getoption("mb_export", None):
            return
        from pytest_memorybench.reports.exports import export_formats, write_exports

        formats = export_formats(config.getoption("mb_export"))
        if not formats:
            return
        planned = [(key, test.definition) for key, test in self.run.context.tests.items()]
        try:
            written = write_exports(formats, results, planned, folder, lambda path: shown_path(config, path))
        except OSError as exc:
            self.lines = (f"cannot write the exports in {folder} ({exc.strerror or exc}); make room and"
                          f" replay the run with --mb-replay and --mb-export",)  # fmt: skip
            return
        self.lines = tuple(written)


class PytestHtml:
    """pytest-html's report (`--html`): each item's transcript, a Score column, the score tables.

    Registered only when pytest-html is loaded: its hook names are unknown to pytest otherwise.
    """

    def __init__(self, config: pytest.Config, run: BenchmarkRun) -> None:
        self.config = config
        self.run = run
        self.extras = bool(getattr(config.option, "htmlpath", None))  # a report is written
        self.results: ResultsRecord | None = None
        self._events: EventIndex | None = None

    def pytest_memorybench_item(
        self, item: pytest.Item, report: pytest.TestReport, record: ItemRecord
    ) -> None:
        if not self.extras:
            return
        from pytest_html import extras

        from pytest_memorybench.reports.html import item_fragment

        if self._events is None:
            self._events = event_index(self.run)
        self._events.refresh()
        transcript = self._events.transcript(record["conversation"], record["nodeid"])
        report.extras = [*getattr(report, "extras", []), extras.html(item_fragment(record, transcript))]  # type: ignore[attr-defined]

    @pytest.hookimpl(wrapper=True)  # around the other outputs: kept even when results.json is not written
    def pytest_memorybench_results(
        self, config: pytest.Config, results: ResultsRecord, folder: Path
    ) -> Generator[None]:
        self.results = results  # the gate's verdict is added to it in place
        return (yield)

    def pytest_html_results_summary(self, prefix: list[str], summary: list[str], postfix: list[str]) -> None:
        if self.results is not None:
            from pytest_memorybench.reports.html import summary_fragment

            postfix.append(summary_fragment(self.results, self.results.get("gate")))

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


@dataclass(frozen=True)
class Outputs:
    """The package's own outputs of one session, for what the terminal and the exit status say of them."""

    gate: RunGate
    files: ResultsFiles
    markdown: MarkdownSummary
    exports: Exports


def register_outputs(config: pytest.Config, run: BenchmarkRun, selected: Callable[[], int]) -> Outputs:
    """Every output of the package, registered so each runs where `hookspecs.py` says.

    pluggy calls the plugin registered last first (and `tryfirst` ones before the rest), so they are
    registered in reverse of the order they write in: the gate judges, JUnit gets the properties,
    results.json and report.html are written, then the Markdown and the exports; a conftest.py's
    own outputs (registered before the session starts) come after all of them.
    """
    outputs = Outputs(RunGate(run, selected), ResultsFiles(run), MarkdownSummary(), Exports(run))
    register = config.pluginmanager.register
    if config.pluginmanager.hasplugin("html"):
        register(PytestHtml(config, run), "memorybench-html")
    register(outputs.exports, "memorybench-exports")
    register(outputs.markdown, "memorybench-markdown")
    register(outputs.files, "memorybench-results")
    register(JUnitProperties(), "memorybench-junit")
    register(outputs.gate, "memorybench-gate")
    return outputs


def event_index(run: BenchmarkRun) -> EventIndex:
    """The run's event logs, and those of the run it replays (which hold the replayed replies)."""
    from pytest_memorybench.reports.transcript import EventIndex

    return EventIndex([run.context.output, run.context.settings.previous_run, *run.context.settings.merge])


def transcripts(run: BenchmarkRun, records: Sequence[ItemRecord]) -> dict[str, Any]:
    """Each item's own messages, from the run's logs, for report.html."""
    index = event_index(run)
    index.refresh()
    return {
        record["nodeid"]: index.transcript(record["conversation"], record["nodeid"]) for record in records
    }
