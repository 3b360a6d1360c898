"""What the GoodAI LTM scenario tests share: a scenario's definitions generated as the `ltm` suite does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_memorybench.core.records import TestDefinition


def generator(scenario: Any, **defaults: Any) -> Callable[..., TestDefinition]:
    """`generate(seed=0, repetition=1, **params)` for `scenario`, its parameters the suite's when none
    are given (`defaults`)."""

    def generate(seed: int = 0, repetition: int = 1, **params: Any) -> TestDefinition:
        definition: TestDefinition = scenario.generate("ltm", params or defaults, seed, repetition)
        return definition

    return generate
