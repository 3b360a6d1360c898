"""What the paged item lists of report.html and compare.html share (templates/paged_list.js draws
both): texts stored once in the page's data, and the choices of the place filters.
"""

from __future__ import annotations

from collections.abc import Iterable

from typing_extensions import TypedDict


class TextTable:
    """Texts stored once in a page's data, items pointing at them by number: a retrieved memory or
    a transcript's turn recurs across items (and runs), and a page of thousands of items stays a few
    megabytes."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def at(self, text: str) -> int:
        return self.numbers.setdefault(text, len(self.numbers))

    @property
    def texts(self) -> list[str]:
        """The texts in the order of their numbers, as the page's data lists them."""
        return list(self.numbers)


class PlaceChoices(TypedDict):
    """The choices of a page's suite and scenario / category filters."""

    suites: list[str]
    scenarios: list[str]
    categories: list[tuple[str, str]]  # (scenario, category), listed under the scenario


def place_choices(places: Iterable[tuple[str, str, str | None]]) -> PlaceChoices:
    """The suite and scenario / category filters' choices (the `place_filters` macro) from each
    item's (suite, scenario, category)."""
    seen = list(places)
    return {
        "suites": sorted({suite for suite, _, _ in seen}),
        "scenarios": sorted({scenario for _, scenario, _ in seen}),
        "categories": sorted({(scenario, category) for _, scenario, category in seen if category}),
    }
