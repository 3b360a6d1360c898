"""Stash keys shared by the plugin's modules (kept apart so the entry point stays import-light)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    pass

RUN_KEY = pytest.StashKey["BenchmarkRun"]()
PLANNED_KEY = pytest.StashKey["PlannedTest"]()
OUTCOME_KEY = pytest.StashKey["TestOutcome"]()
