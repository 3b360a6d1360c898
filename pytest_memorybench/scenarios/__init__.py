"""The scenario registry: suite files name scenarios, this maps names to implementations."""

from __future__ import annotations

from pytest_memorybench.errors import UsageError
from pytest_memorybench.scenarios.base import Scenario, ScoringContext
from pytest_memorybench.scenarios.ltm import colours

SCENARIOS: dict[str, Scenario] = {scenario.name: scenario for scenario in (colours.SCENARIO,)}


def get_scenario(name: str) -> Scenario:
    try:
        return SCENARIOS[name]
    except KeyError:
        raise UsageError(
            f"unknown scenario {name!r}; available: {', '.join(sorted(SCENARIOS))}"
        ) from None


__all__ = ["SCENARIOS", "Scenario", "ScoringContext", "get_scenario"]
