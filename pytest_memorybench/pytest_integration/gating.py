"""What fails a CI build besides a failing item: a regression from a baseline, a low mean, errors.

The session-level gates are an output (`RunGate`) that judges the finished results first, through
`reports/gate.py`, so every other output writes its verdict; `--mb-markdown` writes the table a CI
job summary shows beside them.  With `--mb-exit gate` their verdict alone is the exit status
(`finishing.exit_status`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.pytest_integration.keys import option_group, shown_path

if TYPE_CHECKING:  # this part is loaded in every pytest run: what an active session needs is not
    from collections.abc import Callable
    from pathlib import Path

    from pytest_memorybench.reports.gate import GateResult
    from pytest_memorybench.results.schema import ResultsRecord
    from pytest_memorybench.runner.run import BenchmarkRun


def pytest_addoption(parser: pytest.Parser) -> None:
    """The gates' options, in the plugin's group."""
    group = option_group(parser)
    group.addoption(
        "--mb-baseline",
        dest="mb_baseline",
        metavar="FILE",
        help="compare the means with a previous results.json and fail (exit 1) on a regression",
    )
    group.addoption(
        "--mb-max-drop",
        dest="mb_max_drop",
        type=float,
        metavar="X",
        help="largest drop of the total or a suite mean below the baseline that still passes (default: 0)",
    )
    group.addoption(
        "--mb-max-scenario-drop",
        dest="mb_max_scenario_drop",
        type=float,
        metavar="X",
        help=(
            "also fail when a scenario mean drops more than X below the baseline (default: scenarios are"
            " shown, not gated)"
        ),
    )
    group.addoption(
        "--mb-min-score",
        dest="mb_min_score",
        type=float,
        metavar="X",
        help="fail (exit 1) when the mean score of all items is below X",
    )
    group.addoption(
        "--mb-gate-on",
        dest="mb_gate_on",
        metavar="mean|strict",
        help=(
            "the means --mb-min-score and --mb-baseline judge: mean (over the items that scored) or strict"
            " (over every item, an error counting 0; a run with errors is then judged, not refused)"
            " (default: mean)"
        ),
    )
    group.addoption(
        "--mb-exit",
        dest="mb_exit",
        choices=("items", "gate"),
        default="items",
        metavar="items|gate",
        help=(
            "what decides the exit status: items (default: 1 when an item or a gate fails) or gate (the"
            " gates alone: 0 unless a gate fails, for CI; items still fail in the reports)"
        ),
    )
    group.addoption(
        "--mb-max-errors",
        dest="mb_max_errors",
        metavar="N|P%",
        help=(
            "items that errored (no score: agent, provider or judge failed) a gate lets pass, comparing the"
            " rest (default: 0, the gate refuses a run with errors)"
        ),
    )
    group.addoption(
        "--mb-allow-empty-memory",
        dest="mb_allow_empty_memory",
        action="store_true",
        help=(
            "let a gate judge a run whose memory store came back empty for every search (by default it"
            " refuses: such scores measure the answering model, not the store)"
        ),
    )
    group.addoption(
        "--mb-markdown",
        dest="mb_markdown",
        metavar="FILE",
        help=(
            "also write the run's (or the comparison's) table as Markdown to FILE; it is appended to"
            " $GITHUB_STEP_SUMMARY when that is set"
        ),
    )


def gate_decides_exit(config: pytest.Config) -> bool:
    """Whether `--mb-exit gate` makes the gates' verdict the exit status."""
    return bool(config.getoption("mb_exit", "items") == "gate")


def check_exit_mode(config: pytest.Config, *, gate_asked: bool) -> None:
    """`--mb-exit gate` with no gate asked for is one line (exit 4): an exit status nothing can fail
    says nothing."""
    if gate_decides_exit(config) and not gate_asked:
        raise usage_error(
            "--mb-exit gate makes the gate's verdict the exit status, and no gate is asked for: add"
            " --mb-baseline FILE or --mb-min-score X (--mb-min-score 0 fails only a run that errored or"
            " scored nothing)"
        )


class RunGate:
    """The session-level gates (`--mb-baseline`, `--mb-min-score`, ...): their verdict on the finished
    results, recorded in them before any other output writes them (so it is `tryfirst`)."""

    def __init__(self, run: BenchmarkRun, selected: Callable[[], int]) -> None:
        self.run = run
        self.selected = selected  # how many benchmark items the session selected
        self.verdict: GateResult | None = None  # None: no gate was asked for, or nothing ended

    @pytest.hookimpl(tryfirst=True)
    def pytest_memorybench_results(self, config: pytest.Config, results: ResultsRecord, folder: Path) -> None:
        settings = self.run.context.settings.gate
        if not settings.active:
            return
        from pytest_memorybench.reports.gate import evaluate

        partial = results["run"].get("partial")
        gate = evaluate(
            results,
            baseline=settings.baseline,
            max_drop=settings.max_drop,
            max_scenario_drop=settings.max_scenario_drop,
            min_score=settings.min_score,
            max_errors=settings.max_errors if partial is None else None,
            folder=shown_path(config, folder),
            anyway=settings.anyway,
            empty_memory=settings.empty_memory,
            strict=settings.strict,
        )
        if partial is not None:
            gate.failures.append(
                f"the run stopped early ({partial['reason']}); a gate needs every selected test"
            )
        elif not results["items"] and self.selected():
            gate.failures.append(nothing_to_gate(self.selected()))
        results["gate"] = gate.to_json()
        self.verdict = gate

    def nothing_measured(self) -> GateResult:
        """The verdict on a session whose selected items produced no score: a gate that passed then
        would wave a broken run through."""
        from pytest_memorybench.reports.gate import GateResult

        self.verdict = GateResult(failures=[nothing_to_gate(self.selected())])
        return self.verdict

    def lines(self) -> list[str]:
        """The gate's lines for the terminal, when a gate was asked for."""
        if self.verdict is None:
            return []
        from pytest_memorybench.reports.gate import gate_lines

        return gate_lines(self.verdict)


def nothing_to_gate(selected: int) -> str:
    """The gate's failure when no selected item produced a score."""
    return f"none of the {selected} benchmark items produced a score; nothing to gate on"
