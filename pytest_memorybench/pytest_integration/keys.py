"""Names shared by the plugin's modules: stash keys, the option group, and how a path is shown (apart,
so the entry point stays light)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_memorybench.core.records import TestOutcome
    from pytest_memorybench.reports.progress import TerminalProgress
    from pytest_memorybench.runner.plan import PlannedTest
    from pytest_memorybench.runner.run import BenchmarkRun

RUN_KEY: pytest.StashKey[BenchmarkRun] = pytest.StashKey()
PLANNED_KEY: pytest.StashKey[PlannedTest] = pytest.StashKey()
OUTCOME_KEY: pytest.StashKey[TestOutcome] = pytest.StashKey()
PROGRESS_KEY: pytest.StashKey[TerminalProgress] = pytest.StashKey()  # the controller's terminal


def option_group(parser: pytest.Parser) -> pytest.OptionGroup:
    """The group of `pytest --help` every part of the plugin declares its options in."""
    return parser.getgroup("memorybench", "long-term-memory benchmarks (pytest-memorybench)")


def shown_path(config: pytest.Config, path: Path) -> str:
    """`path` as the terminal shows it: relative to where pytest was started, when it is below it."""
    try:
        return str(path.relative_to(config.invocation_params.dir))
    except ValueError:
        return str(path)
