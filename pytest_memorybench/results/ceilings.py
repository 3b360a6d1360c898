"""Ceilings: the most a category's mean can honestly be, and whether this run's is above it.

A benchmark whose gold answers are known to be partly wrong (LoCoMo: its audit) bounds what a
right answer can score against that gold.  A mean above the bound was given credit the answers
cannot have earned: the judge is too lenient, or the run saw the answers.  The family knows its
bounds; a scenario that defines `ceilings(records, profile) -> {category: bound}` is asked here,
on the controller, with the item records of its scenario (as `summarize` is), and each bound it
gives is kept in that category's record of results.json with `exceeded` (`CeilingRecord`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.results.schema import CeilingRecord, ItemRecord, ResultsRecord, StatsRecord
from pytest_memorybench.scenarios import get_scenario

EPSILON = 1e-9  # means are rounded to 6 places: a mean equal to its ceiling is not above it


def scenario_ceilings(
    name: str, records: Sequence[ItemRecord], profile: str, categories: Mapping[str, StatsRecord]
) -> dict[str, CeilingRecord]:
    """Each bounded category's ceiling, and whether its mean (in `categories`) is above it."""
    try:
        scenario = get_scenario(name)
    except UsageError:
        return {}  # a scenario of a user's own test file, or one no longer registered
    bounds = getattr(scenario, "ceilings", None)
    if not callable(bounds):
        return {}
    found: dict[str, CeilingRecord] = {}
    for category, bound in cast(dict[str, dict[str, Any]], bounds(list(records), profile)).items():
        mean = categories[category]["mean"] if category in categories else None
        found[category] = {
            "maximum": float(bound["maximum"]),
            "wrong": int(bound["wrong"]),
            "of": int(bound["of"]),
            "source": str(bound["source"]),
            "exceeded": mean is not None and mean > float(bound["maximum"]) + EPSILON,
        }
    return found


def above_ceiling(results: ResultsRecord) -> list[tuple[str, str, float, CeilingRecord]]:
    """(scenario, category, mean, ceiling) of every category whose mean is above its ceiling."""
    return [
        (scenario, category, float(stats["mean"] or 0.0), stats["ceiling"])
        for scenario, record in cast(Mapping[str, Any], results).get("scenarios", {}).items()
        for category, stats in (record.get("categories") or {}).items()
        if (stats.get("ceiling") or {}).get("exceeded")
    ]
