"""`--mb-compare`: two or more finished runs side by side, calling no agent, instead of a test session.

The comparison reads the runs' results.json files only (`reports/compare/report.py`): tables,
paired tests and figures, and the Markdown a CI summary shows.
"""

from __future__ import annotations

import pytest

from pytest_memorybench.pytest_integration.keys import option_group


def pytest_addoption(parser: pytest.Parser) -> None:
    """The comparison's options, in the plugin's group."""
    group = option_group(parser)
    group.addoption(
        "--mb-compare",
        dest="mb_compare",
        nargs="+",
        action="extend",
        metavar="RUN",
        help=(
            "compare two or more runs (run folders or results.json files), calling no agent: tables, paired"
            " tests, figures"
        ),
    )
    group.addoption(
        "--mb-label",
        dest="mb_label",
        action="append",
        metavar="LABEL",
        help="the name of each --mb-compare run, in order (default: what tells the runs apart)",
    )
    group.addoption(
        "--mb-compare-to",
        dest="mb_compare_to",
        metavar="LABEL",
        help="test each run against this one only (default: every pair)",
    )
    group.addoption(
        "--mb-show",
        dest="mb_show",
        metavar="OUTCOME",
        help=(
            "with --mb-compare: print the questions of this outcome, a few per scenario, each run's answer"
            " ('A right, B wrong', 'all wrong', 'disagree')"
        ),
    )
    group.addoption(
        "--mb-compare-anyway",
        dest="mb_compare_anyway",
        action="store_true",
        help=(
            "compare runs scored with different profiles or judges (--mb-compare, or a --mb-baseline gate),"
            " saying so"
        ),
    )


def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """`--mb-compare`: compare the runs and exit, instead of a test session."""
    if not config.getoption("mb_compare"):
        return None
    from pytest_memorybench.reports.compare.report import run_comparison

    return run_comparison(config, print)
