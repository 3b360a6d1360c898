"""The hooks a benchmark session calls: every output of a run is a plugin that implements them.

pytest's own habit: one plugin per concern, and hooks others can implement.  The package's outputs
(the gate, JUnit properties, results.json and report.html, the Markdown summary, `--mb-export`,
pytest-html's extras) are small plugin objects registered when `--memorybench` starts a session
(`outputs.py`), and implement these hooks as a conftest.py or another plugin can, to add its own
(a leaderboard upload, a line in a chat channel):

    def pytest_memorybench_results(results, folder):
        post(results["totals"]["score"], folder / "results.json")

Registered by the entry point (`pytest_addhooks`), so a conftest.py's implementation is checked
against them in every pytest run; they are called only under `--memorybench`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_memorybench.results.schema import ItemRecord, ResultsRecord


@pytest.hookspec
def pytest_memorybench_item(item: pytest.Item, report: pytest.TestReport, record: ItemRecord) -> None:
    """A benchmark item ended: `record` is its line of results.json, `report` the report that ends it
    (its call's, or the set-up's when its conversation could not be had).

    Called where the item ran (an xdist worker under `-n`) from `pytest_runtest_makereport`, so an
    implementation may add to the report (`report.extras`) or to the item's `user_properties`, and
    what it adds travels with the report to the controller.
    """


@pytest.hookspec
def pytest_memorybench_results(config: pytest.Config, results: ResultsRecord, folder: Path) -> None:
    """The run ended and `results` (results.json's content, the gate's verdict in `results["gate"]`
    when a gate was asked for) are complete; `folder` is the run folder.

    Called once, on the controller (the only process without xdist), in `pytest_sessionfinish`,
    before pytest writes its own reports (JUnit XML) and the terminal summary.  The package's
    outputs run first, in this order: the gate, JUnit's suite properties, results.json and
    report.html, the Markdown summary, the exports; yours after them (the files are written).  A
    run that measured nothing (every item skipped, `--collect-only`) calls it not at all, nor does
    one whose results.json could not be written (the disk is full: the terminal says how to go on).
    """
