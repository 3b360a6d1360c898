"""The rows of the score table: each suite, its scenarios, their categories, with what they cost.

The terminal summary and the HTML reports show the same table; deriving its rows once keeps the
two from disagreeing about what a row counts.  Costs of a row are what the agent spent on those
items' own turns (their `usage`); what a conversation spent around them (introduction, filler)
belongs to no item and shows only in the totals.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.results.schema import ItemRecord, ResultsRecord
from pytest_memorybench.results.statistics import stats_of, strict_mean


@dataclass(frozen=True)
class TableRow:
    """One row of the summary table: a suite, scenario or category, with its items."""

    level: str  # suite, scenario or category
    label: str  # as shown: a scenario without its suite's prefix, a category by its name
    name: str  # the full name: suite, scenario, or category
    stats: Mapping[str, Any]  # mean, ci95, n; for a scenario also categories and metrics if any
    items: list[ItemRecord]

    @property
    def passed(self) -> int:
        return sum(item["passed"] for item in self.items)

    @property
    def score(self) -> float:
        return float(sum(item["score"] for item in self.items if item["score"] is not None))

    @property
    def errors(self) -> int:
        """Items with no score: their test errored (agent, provider, judge, a cut), so no mean counts them."""
        return sum(item["score"] is None for item in self.items)

    @property
    def scored(self) -> int:
        return len(self.items) - self.errors

    @property
    def strict(self) -> float | None:
        """The mean over every item, one that errored counting 0 (results.json's `mean_strict`)."""
        return strict_mean(self.items)

    @property
    def tokens(self) -> int:
        return sum(item["usage"]["input_tokens"] + item["usage"]["output_tokens"] for item in self.items)

    @property
    def seconds(self) -> float:
        return float(sum(item["usage"]["seconds"] for item in self.items))

    @property
    def cost(self) -> float:
        return float(sum(item["usage"]["cost_usd"] for item in self.items))


def short_name(scenario: str, suite: str) -> str:
    """`ltm.colours` in suite `ltm` reads `colours`: the suite row above already says `ltm`."""
    return scenario.removeprefix(f"{suite}.") if scenario.startswith(f"{suite}.") else scenario


def table_rows(results: ResultsRecord) -> Iterator[TableRow]:
    """Suite, then each of its scenarios (sorted), each followed by its categories."""
    for suite, stats in results["suites"].items():
        members = [item for item in results["items"] if item["suite"] == suite]
        yield TableRow("suite", suite, suite, stats, members)
        for scenario in sorted({item["scenario"] for item in members}):
            in_scenario = [item for item in members if item["scenario"] == scenario]
            scenario_stats: Mapping[str, Any] = results["scenarios"][scenario]
            if scenario_stats.get("n", 0) + scenario_stats.get("errors", 0) != len(
                in_scenario
            ):  # in other suites too
                scenario_stats = stats_of(
                    in_scenario, results["run"].get("seed", 0), f"scenario:{suite}:{scenario}"
                )
            yield TableRow("scenario", short_name(scenario, suite), scenario, scenario_stats, in_scenario)
            for category, category_stats in scenario_stats.get("categories", {}).items():
                in_category = [item for item in in_scenario if item.get("category") == category]
                yield TableRow("category", category, category, category_stats, in_category)
