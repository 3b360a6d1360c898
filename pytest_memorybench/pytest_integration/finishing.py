"""Finishing a benchmark session: the run's results put together and handed to its outputs.

An xdist worker hands its conversations and judge statistics to the controller (`workeroutput`);
the controller (or the only process) builds results.json's content from every item's record and
calls `pytest_memorybench_results` (`hookspecs.py`), which its outputs and yours implement.  What
they wrote decides the exit status with the gate's verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_memorybench.pytest_integration.gating import gate_decides_exit
from pytest_memorybench.pytest_integration.keys import RUN_KEY, shown_path
from pytest_memorybench.pytest_integration.outputs import Outputs, ResultsUnwritten
from pytest_memorybench.pytest_integration.starting import (
    WORKER_CONCURRENCY,
    WORKER_CONVERSATIONS,
    WORKER_JUDGE,
    is_worker,
)
from pytest_memorybench.results.schema import ConversationRecord, ItemRecord, ResultsRecord
from pytest_memorybench.runner.resumed import resume_command
from pytest_memorybench.runner.run import BenchmarkRun

if TYPE_CHECKING:
    from pytest_memorybench.reports.gate import GateResult


@dataclass(frozen=True)
class Finished:
    """What the controller wrote at session end, for the terminal summary and the exit code."""

    results: ResultsRecord | None  # None: no item produced a score
    results_path: Path | None
    report_path: Path | None
    gate: GateResult | None
    stopped: str | None = None  # the line saying the run stopped early, and how to go on
    markdown: tuple[str, ...] = ()  # where the Markdown summary went (--mb-markdown, the GitHub job summary)
    exports: tuple[str, ...] = ()  # what each --mb-export wrote, a line each


@dataclass(frozen=True)
class Stop:
    """Why a session ended before every selected test did: Ctrl-C, SIGTERM, `-x` / `--maxfail`."""

    reason: str
    interrupted: bool  # a signal, rather than pytest's own stopping rule


RESULTS_KEY = pytest.StashKey[Finished]()


@dataclass
class Tally:
    """What the session counts as it goes, for its end: the hooks fill it, finishing, the terminal
    and the exit status read it."""

    selected: int = 0
    scoreable: int = 0  # the selected tests that can have a score (not skipped before they start)
    records_by_item: dict[str, ItemRecord] = field(default_factory=dict)  # a rerun item's last report wins
    worker_conversations: list[ConversationRecord] = field(default_factory=list)
    worker_judge_stats: list[dict[str, Any]] = field(default_factory=list)
    worker_concurrency: list[dict[str, Any]] = field(default_factory=list)
    other_failures: int = 0  # failed reports that are no benchmark item's (a test of your own)
    finished: Finished | None = None  # what the session wrote and judged at its end
    estimate: list[str] | None = None  # the bill, when only estimating

    @property
    def records(self) -> list[ItemRecord]:
        return list(self.records_by_item.values())


def conversation_records(config: pytest.Config) -> list[ConversationRecord]:
    """This process's conversations, as results.json lists them."""
    from pytest_memorybench.results.build import conversation_record

    return [conversation_record(stats) for stats in config.stash[RUN_KEY].book.conversations.values()]


def finish(
    config: pytest.Config,
    outputs: Outputs,
    records: list[ItemRecord],
    conversations: list[ConversationRecord],
    judge_stats: list[dict[str, Any]],
    scoreable: int = 0,
    stop: Stop | None = None,
    concurrency: Sequence[dict[str, Any]] = (),
) -> Finished | None:
    """The run's results handed to its outputs on the controller (or the only process).

    A worker hands its conversations and judge statistics to the controller instead
    (`workeroutput`), which adds them to its own.  A run that `stop` ended early also lists the
    tests its conversations finished that pytest never reported; if some of the `scoreable` tests
    (selected, not skipped up front) have no result, it is marked partial and says how to go on.
    """
    run = config.stash[RUN_KEY]
    if is_worker(config):
        config.workeroutput[WORKER_CONVERSATIONS] = conversation_records(config)  # type: ignore[attr-defined]
        config.workeroutput[WORKER_JUDGE] = run.instruments.judge_stats()  # type: ignore[attr-defined]
        config.workeroutput[WORKER_CONCURRENCY] = run.providers.record(run.context.settings.concurrency)  # type: ignore[attr-defined]
        return None
    stopped = None
    if stop is not None:
        records = records + unreported_records(run, records)
        if len(records) >= scoreable:
            stop = None  # every selected test ended after all
        else:
            stopped = stopped_line(config, stop, len(records), scoreable)
    spent = bool(conversations or run.book.conversations)  # the agent was asked: what that cost is recorded
    if (
        not records
        and not spent
        and (run.context.shard is None or stopped is not None or config.option.collectonly)
    ):
        return _nothing_measured(config, outputs, stopped)
    from pytest_memorybench.results.build import build_results

    if run.context.merged is not None:  # the shards' own conversations, judging and agent
        conversations = run.context.merged.conversations() + conversations
        judge_stats = run.context.merged.judge_stats() + judge_stats
    results = build_results(
        run.context.facts(_agent_name(run), run.instruments.counter.name),
        records,
        conversations + conversation_records(config),
        judge_stats + [run.instruments.judge_stats()],
        [*concurrency, run.providers.record(run.context.settings.concurrency)],
    )
    if stop is not None:
        results["run"]["partial"] = {
            "reason": stop.reason,
            "tests_with_results": len(records),
            "tests_selected": scoreable,
        }
    try:
        config.hook.pytest_memorybench_results(config=config, results=results, folder=run.context.output)
    except ResultsUnwritten as unwritten:
        finished = Finished(results, None, None, outputs.gate.verdict, unwritten.line)
    else:
        files = outputs.files
        finished = Finished(
            results,
            files.results_path,
            files.report_path,
            outputs.gate.verdict,
            stopped,
            outputs.markdown.targets,
            outputs.exports.lines,
        )
    config.stash[RESULTS_KEY] = finished
    return finished


def _nothing_measured(config: pytest.Config, outputs: Outputs, stopped: str | None) -> Finished | None:
    """A session that measured nothing: said so when it stopped early or a gate was asked for."""
    if stopped is not None:
        config.stash[RESULTS_KEY] = Finished(None, None, None, None, stopped)
        return config.stash[RESULTS_KEY]
    gate = outputs.gate
    if (
        config.stash[RUN_KEY].context.settings.gate.active
        and gate.selected()
        and not config.option.collectonly
    ):
        config.stash[RESULTS_KEY] = Finished(None, None, None, gate.nothing_measured())
        return config.stash[RESULTS_KEY]
    return None


def _agent_name(run: BenchmarkRun) -> str:
    """The agent results.json names: the shards', none for an agentless run, or the spec or fixture."""
    if run.context.merged is not None:
        return run.context.merged.agent
    if run.context.agentless:
        return run.context.agentless
    return run.context.settings.agent.display if run.context.settings.agent else "fixture:memorybench_agent"


def list_files(config: pytest.Config) -> None:
    """The run folder's manifest.json (`runner/checksums.py`), once the run has closed its logs and
    pytest's plugins wrote their reports (JUnit XML, pytest-html) in it."""
    from pytest_memorybench.runner.checksums import write_checksums

    run = config.stash[RUN_KEY]
    try:
        write_checksums(run.context.output, run.context.run_id)
    except OSError:
        pass  # a folder the run can no longer write to: --mb-verify says it has no manifest


def exit_status(
    config: pytest.Config, status: int | pytest.ExitCode, finished: Finished | None, other_failures: int
) -> int | pytest.ExitCode:
    """The session's exit status once the run is written and judged.

    By default a failed gate, or results that could not be written, turn a passing session's 0
    into 1.  Under `--mb-exit gate` the gate decides alone: a session whose only failures are
    benchmark items below their thresholds exits 0 when the gate passed; what pytest says
    otherwise stands (2 interrupted, 3 internal error, 4 usage error, 5 nothing collected), and so
    does a failure of a test of the user's own (`other_failures`).
    """
    gate = finished.gate if finished is not None else None
    unwritten = finished is not None and finished.results is not None and finished.results_path is None
    if (gate is not None and not gate.passed) or unwritten:
        return pytest.ExitCode.TESTS_FAILED if status == pytest.ExitCode.OK else status
    if (
        gate_decides_exit(config)
        and gate is not None
        and status == pytest.ExitCode.TESTS_FAILED
        and not other_failures
    ):
        return pytest.ExitCode.OK  # the items that failed stay failures in the reports and JUnit
    return status


def unreported_records(run: BenchmarkRun, records: list[ItemRecord]) -> list[ItemRecord]:
    """Tests whose conversation finished them but whose items pytest never ran (it stopped first)."""
    from pytest_memorybench.results.build import item_record

    reported = {record["nodeid"] for record in records}
    return [
        item_record(
            key,
            outcome,
            threshold=run.context.tests[key].threshold,
            conversation=run.context.tests[key].group,
            passed=run.context.tests[key].passes(outcome),
        )
        for key, outcome in run.book.finished().items()
        if key not in reported and key in run.context.tests
    ]


def stopped_line(config: pytest.Config, stop: Stop, done: int, selected: int) -> str:
    """The one line that says the run stopped early, and the command that finishes it."""
    run = config.stash[RUN_KEY]
    head = "interrupted" if stop.interrupted else "stopped early"
    facts = f"{done} of {selected} tests have results; {stop.reason}"
    if run.context.agentless:
        return f"{head}: run the same command again to finish ({facts})"
    folder = shown_path(config, run.context.output)
    paths = list(config.args) if config.args_source == pytest.Config.ArgsSource.ARGS else []
    command = resume_command(folder, paths, list(run.context.settings.command.withheld))
    return f"{head}: resume with {command} ({facts})"


def exit_line(config: pytest.Config, records: Sequence[ItemRecord], status: int) -> str | None:
    """Under `--mb-exit gate`, why a session with items below their thresholds exits 0."""
    below = sum(record["error"] is None and not record["passed"] for record in records)
    if status != 0 or not below or not gate_decides_exit(config):
        return None
    items = f"{below} items are below their thresholds" if below != 1 else "1 item is below its threshold"
    return f"exit 0 (--mb-exit gate: the gate passed); {items}: failures in the reports, not of the build"
