"""The contract every scenario keeps, checked on each one the package builds in.

- Its definitions are the same in any process (another `PYTHONHASHSEED`), differ with the seed,
  and come back from JSON unchanged: a run folder, a shard or a resume plans the same tests.
- The oracle scores 1 on every test and the null agent about 0, except where the right answer is
  that nothing was said (an abstention: the null agent's silence is then right), through the runner
  as a run drives them (isolated, and interleaved at a span; GoodAI's suite under the official
  profile too, the extended one's Multi-session Chat excepted there: the official profile judges
  its gold line, as GoodAI's code did, so every reply passes).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import defaultdict

import pytest

from pytest_memorybench.agents.reference import NullAgent, OracleAgent
from pytest_memorybench.core.records import TestDefinition, TestOutcome
from pytest_memorybench.scenarios import BUILTIN_MODULES
from pytest_memorybench.suite import load_suite
from tests.support.runs import drive_plan

SUITES = (
    "ltm",
    "ltm_extended",
    "episodic",
    "beam",
    "membench",
    "locomo",
    "longmemeval",
    "memoryagentbench",
    "convomem",
    "statebench",
    "sdebench",
    "precisionmem",
)
NOTHING_SAID = "abstention"  # the category whose right answer is that nothing was said
ABOUT_ZERO = 0.05  # BEAM's event ordering gives an empty answer a little Kendall credit

FINGERPRINTS = """
import hashlib, json
from pytest_memorybench.suite import load_suite
seen = {}
for suite in SUITES:
    for definition in load_suite(suite).generate(0, data={}).definitions:
        seen.setdefault(definition.scenario, hashlib.sha256()).update(definition.to_json().encode())
print(json.dumps({scenario: digest.hexdigest() for scenario, digest in seen.items()}))
"""


def _by_scenario(seed: int) -> dict[str, list[TestDefinition]]:
    found: dict[str, list[TestDefinition]] = defaultdict(list)
    for suite in SUITES:
        for definition in load_suite(suite).generate(seed, data={}).definitions:
            found[definition.scenario].append(definition)
    return found


def _fingerprint(definitions: list[TestDefinition]) -> str:
    digest = hashlib.sha256()
    for definition in definitions:
        digest.update(definition.to_json().encode())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def planned() -> dict[int, dict[str, list[TestDefinition]]]:
    return {seed: _by_scenario(seed) for seed in (0, 1)}


@pytest.fixture(scope="module")
def elsewhere() -> list[dict[str, str]]:
    """Each scenario's fingerprint in two other processes, under two hash seeds."""
    script = f"SUITES = {SUITES!r}\n{FINGERPRINTS}"
    return [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", script],
                env={**os.environ, "PYTHONHASHSEED": hash_seed},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for hash_seed in ("1", "2")
    ]


def test_every_scenario_is_in_a_built_in_suite(planned: dict[int, dict[str, list[TestDefinition]]]) -> None:
    assert sorted(planned[0]) == sorted(BUILTIN_MODULES)


@pytest.mark.parametrize("scenario", sorted(BUILTIN_MODULES))
def test_definitions_are_the_same_anywhere_differ_by_seed_and_survive_json(
    scenario: str, planned: dict[int, dict[str, list[TestDefinition]]], elsewhere: list[dict[str, str]]
) -> None:
    definitions = planned[0][scenario]
    assert [other[scenario] for other in elsewhere] == [_fingerprint(definitions)] * 2
    for definition in definitions:
        assert TestDefinition.from_dict(json.loads(definition.to_json())) == definition
    if not all(definition.skip_reason for definition in definitions):  # one that needs data it lacks
        assert _fingerprint(planned[1][scenario]) != _fingerprint(definitions)


def _nothing_said(definition: TestDefinition) -> bool:
    """The right answer is that nothing was said: an abstention (a category, or ConvoMem's scenario
    of them), or an episodic question about a cue that matches no event (its category ends in `/0`)."""
    category = definition.category or ""
    return category == NOTHING_SAID or category.endswith("/0") or NOTHING_SAID in definition.skills


def _means(outcomes: dict[str, TestOutcome], *, counting_nothing_said: bool) -> dict[str, float]:
    scores: dict[str, list[float]] = defaultdict(list)
    for outcome in outcomes.values():
        assert outcome.error is None, outcome.error
        if counting_nothing_said or not _nothing_said(outcome.definition):
            scores[outcome.definition.scenario].append(outcome.score.value)
    return {scenario: sum(values) / len(values) for scenario, values in sorted(scores.items())}


@pytest.mark.parametrize(
    "suite, span, profile",
    [
        *((suite, "isolated", "paper") for suite in SUITES),
        ("ltm", "4k", "official"),
        ("ltm_extended", "4k", "paper"),
    ],
)
def test_the_oracle_scores_one_and_the_null_agent_about_zero(
    pytester: pytest.Pytester, suite: str, span: str, profile: str
) -> None:
    args = (f"--mb-suite={suite}", f"--span={span}", f"--mb-profile={profile}")
    oracle = _means(drive_plan(pytester, *args, agent=OracleAgent), counting_nothing_said=True)
    assert oracle and set(oracle.values()) == {1.0}, oracle
    null = _means(drive_plan(pytester, *args, agent=NullAgent, folder="null"), counting_nothing_said=False)
    abstaining = {
        scenario for scenario in oracle if scenario.endswith(f".{NOTHING_SAID}")
    }  # all nothing said
    assert null.keys() == oracle.keys() - abstaining and max(null.values()) <= ABOUT_ZERO, null
