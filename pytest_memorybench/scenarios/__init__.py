"""The scenario registry: suite files name scenarios, this maps names to implementations."""

from __future__ import annotations

from pytest_memorybench.errors import UsageError
from pytest_memorybench.scenarios.base import Scenario, ScoringContext
from pytest_memorybench.scenarios.ltm import colours

BUILTIN: dict[str, Scenario] = {scenario.name: scenario for scenario in (colours.SCENARIO,)}
SCENARIOS: dict[str, Scenario] = dict(BUILTIN)


def register_scenario(scenario: Scenario) -> None:
    """Add a scenario defined in a suite file; a later definition of the same name replaces it."""
    if scenario.name in BUILTIN:
        raise UsageError(f"scenario {scenario.name!r} is built in; give yours another name")
    SCENARIOS[scenario.name] = scenario


def get_scenario(name: str) -> Scenario:
    try:
        return SCENARIOS[name]
    except KeyError:
        raise UsageError(
            f"unknown scenario {name!r}; available: {', '.join(sorted(SCENARIOS))}"
        ) from None


__all__ = ["SCENARIOS", "Scenario", "ScoringContext", "get_scenario", "register_scenario"]
