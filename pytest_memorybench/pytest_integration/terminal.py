"""The terminal's part of a benchmark session: the header that says what runs, and the summary.

The header names the agent, judge, spans, seed, profile, concurrency and run folder, and what the
data held; the summary prints what the outputs wrote (`outputs.py`): the table and the files,
the exports, the agreement of a re-score, the cost cap's skips, the gate and the exit status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_memorybench.agents.spec import MEMORY_TOKENS
from pytest_memorybench.agents.store_spec import VENDOR
from pytest_memorybench.agents.supply import Source
from pytest_memorybench.core.tokens import approximation_note
from pytest_memorybench.pytest_integration.finishing import RESULTS_KEY, exit_line, exit_status
from pytest_memorybench.pytest_integration.keys import RUN_KEY, shown_path
from pytest_memorybench.runner.drift import ALLOW
from pytest_memorybench.runner.run import BenchmarkRun
from pytest_memorybench.runner.settings import Settings
from pytest_memorybench.runner.spending import SKIP_PREFIX

if TYPE_CHECKING:
    from pytest_memorybench.pytest_integration.finishing import Tally
    from pytest_memorybench.pytest_integration.outputs import Outputs


class TerminalOutput:
    """The session header, and the summary at the end of the run."""

    def __init__(self, config: pytest.Config, run: BenchmarkRun, tally: Tally, outputs: Outputs) -> None:
        self.config = config
        self.run = run
        self.tally = tally
        self.outputs = outputs

    def pytest_report_header(self, config: pytest.Config) -> str:
        return header(config)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int) -> None:
        tally, config = self.tally, self.config
        if tally.estimate is not None:
            terminalreporter.write_sep("=", "memorybench estimate")
            for line in tally.estimate:
                terminalreporter.write_line(line)
            return
        for title, lines in (("memorybench", summary(config)), ("memorybench agreement", agreement(config))):
            if lines:
                terminalreporter.write_sep("=", title)
                for line in lines:
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
        gate = self.outputs.gate.lines()
        if gate:
            failed = any(line.startswith("gate FAILED") for line in gate)
            terminalreporter.write_sep("=", "memorybench gate", red=failed, green=not failed)
            for line in gate:
                terminalreporter.write_line(line, red=line.startswith("gate FAILED"))
            status = exit_status(config, exitstatus, tally.finished, tally.other_failures)
            said = exit_line(config, tally.records, int(status))
            if said is not None:
                terminalreporter.write_line(said, green=True)


def summary(config: pytest.Config) -> list[str]:
    """The terminal summary of the finished run, or nothing when no results were written."""
    finished = config.stash.get(RESULTS_KEY, None)
    if finished is None:
        return []
    from pytest_memorybench.reports.summary import summary_lines

    lines = []
    if (
        finished.results is not None
        and finished.results_path is not None
        and finished.report_path is not None
    ):
        lines = summary_lines(
            finished.results,
            shown_path(config, finished.results_path),
            shown_path(config, finished.report_path),
            finished.markdown,
        )
    return lines + list(finished.exports) + ([finished.stopped] if finished.stopped else [])


def report_location(config: pytest.Config) -> str | None:
    """Where the finished run's report.html is, as the terminal names it; None before it is written."""
    finished = config.stash.get(RESULTS_KEY, None)
    if finished is None or finished.report_path is None:
        return None
    return shown_path(config, finished.report_path)


def agreement(config: pytest.Config) -> list[str]:
    """For a re-score of published results: our verdicts against theirs, per scenario."""
    finished = config.stash.get(RESULTS_KEY, None)
    if finished is None or finished.results is None:
        return []
    from pytest_memorybench.reports.agreement import agreement_lines

    return agreement_lines(finished.results, finished.results["run"].get("rescore_skipped", []))


def header(config: pytest.Config) -> str:
    """The session header: agent, judge, spans, seed, profile, concurrency and run folder; a note when
    its token counts are approximate; then, for each suite that reads published data, what it held
    and became, and a line per kind of thing its loader could not use."""
    run = config.stash[RUN_KEY]
    settings = run.context.settings
    if run.context.agentless:
        agent = f"none ({run.context.agentless})"
    else:
        agent = settings.agent.display if settings.agent else "memorybench_agent fixture"
    spans = ", ".join(f"{name}={span}" for name, span in run.context.interleaved_spans.items())
    if not spans:
        spans = (
            "- (probe suites: no interleaving)" if run.context.suites else "- (no suite: your own tests only)"
        )
    resumed = " (resumed)" if settings.resume else ""
    if run.context.shard is not None:
        resumed += (
            f" | shard {run.context.shard} of plan {run.context.fingerprint[:12]} ({run.context.shard_share})"
        )
    # a run that counts says when its counts are approximate (--collect-only counts nothing)
    tokens = None if config.option.collectonly else approximation_note()
    notes = [f"memorybench: {tokens}"] if tokens else []
    if settings.estimate is not None:
        line = (
            f"memorybench estimate: agent {agent} | span {spans} | seed {settings.seed} | nothing is called; "
            "the estimate follows the collection"
        )
        return "\n".join([line, *notes])
    turns = why_conversations_take_turns(run)
    judge, agent = settings.panel.describe(settings.judge), agent + _memory_terms(settings)
    line = (
        f"memorybench: agent {agent} | judge {judge} | span {spans} | seed {settings.seed} "
        f"| profile {settings.profile} | concurrency {1 if turns else settings.concurrency or 'auto'} "
        f"| run folder {shown_path(config, run.context.output)}{resumed}"
    )
    problems = [f"memorybench: {problem}" for suite in run.context.suites for problem in suite.problems]
    loaded = [
        f"memorybench: {said}" for suite, report in run.context.loaded.items() for said in report.lines(suite)
    ]
    provenance = _provenance_lines(run)
    return "\n".join(
        [line, *([f"memorybench: {turns}"] if turns else []), *notes, *provenance, *problems, *loaded]
    )


def why_conversations_take_turns(run: BenchmarkRun) -> str | None:
    """Why this run's conversations cannot overlap, though `--mb-concurrency` allows it: the agent
    exists once (as the run's supply was decided).  None when they may (or there is nothing to overlap)."""
    limit = run.context.settings.concurrency
    many = f"{limit}" if limit else "several"  # auto: as many as the provider rewards
    if limit == 1 or run.context.agentless or len({test.group for test in run.context.tests.values()}) < 2:
        return None
    if not run.agents.shares_one_agent():
        return None
    if run.agents.source is Source.AGENT_FIXTURE:
        return (
            "your memorybench_agent fixture is one agent, so its conversations take turns; a "
            f"memorybench_agent_factory fixture that makes a new agent per call lets {many} run at once"
        )
    spec = run.context.settings.agent
    assert spec is not None
    return (
        f"--agent {spec.display} is one agent object, so its conversations take turns; name a class "
        f"or a function that makes one to let {many} run at once"
    )


def _provenance_lines(run: BenchmarkRun) -> list[str]:
    """What the run reads (each data file's name, sha256 and size, or that its data is generated),
    the drift `--mb-allow-drift` let through, and the notes of the drift check."""
    provenance = run.context.provenance
    if provenance is None:
        return []
    data = [] if run.context.published is not None else [provenance.data_line(run.context.settings.seed)]
    allowed = [f"memorybench: {ALLOW}: {change}" for change in provenance.drift]
    return (
        [f"memorybench: {line}" for line in data]
        + allowed
        + [f"memorybench: {note}" for note in run.context.notes]
    )


def _memory_terms(settings: Settings) -> str:
    """A store's or memory system's terms in the header: its k and the tokens of memory an answer gets."""
    kind = settings.agent.kind if settings.agent else None
    cap = settings.agent_options.memory_tokens
    if kind == "store":
        vendor = (
            settings.agent is not None
            and settings.agent.store is not None
            and settings.agent.store.profile == VENDOR
        )
        tokens = f"{cap:,}" if cap else "the vendor's" if vendor else f"{MEMORY_TOKENS:,}"
        k = "the vendor's k" if vendor else f"k {settings.agent_options.k}"
        return f" ({k}, memory within {tokens} tokens)"
    if kind == "memory" and cap:
        return f" (memory within {cap:,} tokens)"
    return ""
