"""Stash keys shared by the plugin's modules (kept apart so the entry point stays import-light)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_memorybench.core.records import TestOutcome
    from pytest_memorybench.runner.plan import PlannedTest
    from pytest_memorybench.runner.run import BenchmarkRun

RUN_KEY = pytest.StashKey["BenchmarkRun"]()
PLANNED_KEY = pytest.StashKey["PlannedTest"]()
OUTCOME_KEY = pytest.StashKey["TestOutcome"]()
