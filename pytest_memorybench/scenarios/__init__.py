"""Scenarios: the four families' generators, loaders and scoring specs, and the registry that names them.

A suite file names scenarios; this maps names to implementations. Each family is a subpackage
(`ltm`, `episodic`, `beam`, `membench`) with a module per scenario holding its generator, its
definition and its scoring together; `yaml_scenario` makes a scenario of a user's YAML. It may
import conversation (programs, tokens), scoring, judges, goodai's formats and core.
"""

from __future__ import annotations

import importlib
import pkgutil

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.scenarios.base import Scenario, ScoringContext


def _builtin_scenarios() -> dict[str, Scenario]:
    """Every benchmark family is a subpackage (`ltm`, `episodic`, …); each of its modules that
    defines `SCENARIO` (or a tuple `SCENARIOS`) contributes scenarios."""
    found: dict[str, Scenario] = {}
    families = sorted(info.name for info in pkgutil.iter_modules(__path__) if info.ispkg)
    for family in (importlib.import_module(f"{__name__}.{name}") for name in families):
        for module_info in sorted(pkgutil.iter_modules(family.__path__), key=lambda info: info.name):
            module = importlib.import_module(f"{family.__name__}.{module_info.name}")
            single = getattr(module, "SCENARIO", None)
            for scenario in (*([single] if single is not None else []), *getattr(module, "SCENARIOS", ())):
                found[scenario.name] = scenario
    return found


BUILTIN: dict[str, Scenario] = _builtin_scenarios()
SCENARIOS: dict[str, Scenario] = dict(BUILTIN)


def register_scenario(scenario: Scenario) -> None:
    """Add a scenario defined in a suite file; a later definition of the same name replaces it."""
    if scenario.name in BUILTIN:
        raise usage_error(f"scenario {scenario.name!r} is built in; give yours another name")
    SCENARIOS[scenario.name] = scenario


def get_scenario(name: str) -> Scenario:
    """The scenario called `name`, built-in or registered; one line naming the known ones otherwise."""
    try:
        return SCENARIOS[name]
    except KeyError:
        raise usage_error(f"unknown scenario {name!r}; available: {', '.join(sorted(SCENARIOS))}") from None


__all__ = ["SCENARIOS", "Scenario", "ScoringContext", "get_scenario", "register_scenario"]
