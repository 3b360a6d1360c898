"""What the GoodAI LTM scenario tests share: a scenario's definitions generated as the `ltm` suite does."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.core.records import TestDefinition
from tests.support.paths import REFERENCE


def generator(scenario: Any, **defaults: Any) -> Callable[..., TestDefinition]:
    """`generate(seed=0, repetition=1, **params)` for `scenario`, its parameters the suite's when none
    are given (`defaults`)."""

    def generate(seed: int = 0, repetition: int = 1, **params: Any) -> TestDefinition:
        definition: TestDefinition = scenario.generate("ltm", params or defaults, seed, repetition)
        return definition

    return generate


GOODAI_TESTS = REFERENCE / "goodai-ltm/data/tests"
needs_goodai = pytest.mark.skipif(not GOODAI_TESTS.is_dir(), reason="../shared/reference is not available")


def goodai_definitions(scenario_name: str, benchmark: str = "Benchmark 3 - 32k") -> list[Path]:
    """GoodAI's published definition files of one scenario, in order (empty without ../shared)."""
    return sorted((GOODAI_TESTS / benchmark / "definitions" / scenario_name).glob("*.def.json"))


def goodai_results(scenario_name: str) -> list[Path]:
    """Every stored GoodAI result file of one scenario, across benchmarks and agents."""
    return sorted(GOODAI_TESTS.glob(f"*/results/*/{scenario_name}/*.json"))


def published(scenario: Any, scenario_name: str) -> list[tuple[dict[str, Any], TestDefinition]]:
    """Each published definition of one scenario with what `from_goodai` made of it (repetitions in
    file order), every one checked to keep GoodAI's script word for word."""
    pairs = []
    for repetition, path in enumerate(goodai_definitions(scenario_name), 1):
        raw = json.loads(path.read_text())
        definition = scenario.from_goodai(raw, path.name.removesuffix(".def.json"), "goodai", repetition)
        assert [line.text for line in definition.script] == raw["script"]
        pairs.append((raw, definition))
    return pairs


def stored_agreement(
    scenario_name: str,
    verdict: Callable[[dict[str, Any], str], float],
    profiles: tuple[str, ...] = ("paper", "official"),
) -> tuple[int, dict[str, int]]:
    """How many stored GoodAI results one scenario has and, per scoring profile, on how many our
    `verdict(stored_result, profile)` gives the stored score again (`score / max_score`)."""
    files = goodai_results(scenario_name)
    agreement = dict.fromkeys(profiles, 0)
    for path in files:
        stored = json.loads(path.read_text())
        for profile in profiles:
            agreement[profile] += verdict(stored, profile) == pytest.approx(
                stored["score"] / stored["max_score"]
            )
    return len(files), agreement
