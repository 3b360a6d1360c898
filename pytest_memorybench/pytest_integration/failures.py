"""The failures a benchmark run prints: a few in full, and how to see the rest.

A memory benchmark fails most of its items with any real agent: LoCoMo's file with the `recall`
baseline fails 1,979 of 1,986, and pytest prints each in full under FAILURES and again as a line of
the short test summary, 13,900 lines in all.  A run's output should be read in one screen: the
progress, the score table, the gate, and enough failures to see what kind they are.

So while pytest prints its own sections, its terminal sees `SHOWN` of the benchmark's failed items
(the first of each kind, a kind being a node id without its index: `ltm::colours`,
`locomo::conv-26::temporal`) and as many of its errored ones; a line below the short summary says
how many were left out and where they all are.  Only pytest's printing changes: the final counts,
the exit status, JUnit, report.html and results.json have every item, and the user's own tests (run
beside the benchmark) and collection errors are always shown.  A user who gives `--tb`, `-r` or
`-v` has chosen what pytest prints, and gets it, every item.  The terminal's lists are put back as
soon as its summary is printed: the line of counts that ends the run is pytest's, over every item.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import pytest

SHOWN = 5  # failed items printed in full (and as many errored ones)
_HELD = ("failed", "error")  # the terminal's lists of reports that are cut down
# pytest's own defaults: a value other than these was given by the user
_DEFAULT_TBSTYLE, _DEFAULT_REPORTCHARS = "auto", "fE"


def chosen_by_user(config: pytest.Config) -> bool:
    """Whether the user chose what pytest prints of failures: `--tb`, `-r` or `-v`."""
    option = config.option
    return (
        getattr(option, "tbstyle", _DEFAULT_TBSTYLE) != _DEFAULT_TBSTYLE
        or getattr(option, "reportchars", _DEFAULT_REPORTCHARS) != _DEFAULT_REPORTCHARS
        or getattr(option, "verbose", 0) > 0
    )


def shown(reports: list[Any], is_benchmark: Callable[[str], bool], limit: int = SHOWN) -> list[Any]:
    """The reports printed in full: every one that is not a benchmark item's, and `limit` of the
    benchmark's, the first of each kind before a second of any, in the order they ran."""
    ours = [index for index, report in enumerate(reports) if is_benchmark(report.nodeid)]
    chosen: set[int] = set()
    kinds: set[str] = set()
    for index in ours:  # the first of each kind
        kind = reports[index].nodeid.split("[", 1)[0]
        if kind not in kinds and len(chosen) < limit:
            kinds.add(kind)
            chosen.add(index)
    for index in ours:  # then the next ones, up to the limit
        if len(chosen) >= limit:
            break
        chosen.add(index)
    return [report for index, report in enumerate(reports) if index in chosen or index not in ours]


class FewFailures:
    """Cuts pytest's FAILURES, ERRORS and short summary down to a few benchmark items, for their printing."""

    def __init__(self, is_benchmark: Callable[[str], bool], where: Callable[[], str | None]) -> None:
        self.is_benchmark = is_benchmark
        self.where = where  # the run's report.html, once written

    @pytest.hookimpl(wrapper=True, tryfirst=True)  # around the terminal's own sections
    def pytest_terminal_summary(self, terminalreporter: Any) -> Generator[None]:
        if getattr(terminalreporter, "no_summary", False):  # --no-summary: pytest prints none of them
            return (yield)
        stats = terminalreporter.stats
        every = {name: stats[name] for name in _HELD if name in stats}
        for name, reports in every.items():
            stats[name] = shown(reports, self.is_benchmark)
        try:
            return (yield)
        finally:
            left_out = {name: len(reports) - len(stats[name]) for name, reports in every.items()}
            stats.update(every)  # the final counts, and anyone who reads them after, see every item
            line = self.left_out_line(left_out.get("failed", 0), left_out.get("error", 0))
            if line:
                terminalreporter.write_line(line, yellow=True)

    def left_out_line(self, failed: int, errors: int) -> str | None:
        """What the terminal did not show, and where every item is."""
        if not failed and not errors:
            return None
        counts = " and ".join(
            f"{count:,} more {what}" for count, what in ((failed, "failed"), (errors, "errored")) if count
        )
        report = self.where()
        every = f"{report} has every item; " if report else ""
        return (
            f"{counts} items not shown: {every}add --tb=no -rfE to list them a line each, --tb=short to"
            " print each"
        )
