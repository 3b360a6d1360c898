"""Scenarios: the families' generators, loaders and scoring specs, and the registry that names them.

A suite file names scenarios; this maps names to implementations. Each family is a subpackage
(`ltm`, `episodic`, `beam`, `membench`, `locomo`, `longmemeval`, `memoryagentbench`, `convomem`,
`statebench`)
with a module per scenario holding its generator, its definition and its scoring together; `ltm`
also reads GoodAI's definition files (`goodai_format`, `goodai_definitions`: `--mb-suite
goodai-definitions=PATH`); `base` builds a definition; `yaml_scenario` makes a scenario of a
user's YAML. Each implements the contract (`contract/`: what a scenario is, the program actions of
a dynamic test, probe contexts); the conversation that runs them never imports this registry: the
run's drivers hand it the lookup. It may import contract, conversation (trivia facts for filler),
scoring, judges, agents and core.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, MutableMapping

from pytest_memorybench.contract.scenario import Scenario
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.names import suggest

# Where each built-in scenario is defined (the module's `SCENARIO`, or one of its `SCENARIOS`).
# A module is imported when one of its scenarios is first asked for, so a run imports the
# scenarios it plans and their scoring, not every family's (tests/pytest_integration/test_startup.py
# checks the table against the modules).
BUILTIN_MODULES: dict[str, str] = {
    "beam.conversations": "beam.scenario",
    **{
        f"convomem.{name}": "convomem.scenario"
        for name in (
            "user_facts",
            "assistant_facts",
            "changing_facts",
            "abstention",
            "preferences",
            "implicit_connections",
        )
    },
    "episodic.book": "episodic.scenario",
    "locomo.conversations": "locomo.scenario",
    "longmemeval.questions": "longmemeval.scenario",
    **{
        f"ltm.{name}": f"ltm.{name}"
        for name in (
            "chapterbreak",
            "colours",
            "conflicting_personal_information",
            "delayed_recall",
            "how_to_think",
            "instruction_recall",
            "jokes",
            "key_value_pairs",
            "locations",
            "locations_directions",
            "multi_session_chat",
            "name_list",
            "names",
            "prospective_memory",
            "restaurant",
            "sallyanne",
            "shopping",
            "spy_meeting",
            "trigger_response",
        )
    },  # fmt: skip
    **{
        f"memoryagentbench.{name}": "memoryagentbench.scenario"
        for name in (
            "accurate_retrieval",
            "test_time_learning",
            "long_range_understanding",
            "conflict_resolution",
        )
    },
    "membench.observation": "membench.observation",
    "membench.participation": "membench.participation",
    "statebench.timelines": "statebench.scenario",
    "sdebench.tasks": "sdebench.scenario",
    "precisionmem.retrieval": "precisionmem.scenario",
    "precisionmem.session": "precisionmem.scenario",
}


def defined_in(module: str) -> tuple[Scenario, ...]:
    """The scenarios a module of this package defines: its `SCENARIO` and its `SCENARIOS`."""
    found = importlib.import_module(f"{__name__}.{module}")
    single = getattr(found, "SCENARIO", None)
    return (*([single] if single is not None else []), *getattr(found, "SCENARIOS", ()))


class ScenarioRegistry(MutableMapping[str, Scenario]):
    """Scenarios by name: the built-in ones imported on first use, and those suite files define."""

    def __init__(self, modules: Mapping[str, str]) -> None:
        self._modules = dict(modules)
        self._scenarios: dict[str, Scenario] = {}

    def __getitem__(self, name: str) -> Scenario:
        if name not in self._scenarios:
            for scenario in defined_in(self._modules[name]):  # KeyError: an unknown name
                self._scenarios.setdefault(scenario.name, scenario)
        return self._scenarios[name]

    def __setitem__(self, name: str, scenario: Scenario) -> None:
        self._scenarios[name] = scenario

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._modules.pop(name, None)
        self._scenarios.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(self._modules), **dict.fromkeys(self._scenarios)})

    def __len__(self) -> int:
        return len(self._modules.keys() | self._scenarios.keys())

    def __contains__(self, name: object) -> bool:
        return name in self._modules or name in self._scenarios


SCENARIOS = ScenarioRegistry(BUILTIN_MODULES)


def register_scenario(scenario: Scenario) -> None:
    """Add a scenario defined in a suite file; a later definition of the same name replaces it."""
    if scenario.name in BUILTIN_MODULES:
        raise usage_error(f"scenario {scenario.name!r} is built in; give yours another name")
    SCENARIOS[scenario.name] = scenario


def get_scenario(name: str) -> Scenario:
    """The scenario called `name`, built-in or registered; one line naming the known ones otherwise."""
    try:
        return SCENARIOS[name]
    except KeyError:
        where = "every scenario: the suites' pages of the docs"
        raise usage_error(
            f"unknown scenario {name!r}; {suggest(name, sorted(SCENARIOS), where=where)}"
        ) from None


__all__ = ["SCENARIOS", "get_scenario", "register_scenario"]
