"""How a generated test opens: its parameters checked, and a random stream of its own.

A test's stream is seeded by its scenario's name, `--mb-seed` and its repetition, and by nothing
else, so its content does not depend on which other scenarios run or in what order, and the same
seed gives the same conversation on every machine (a string seed is hashed the same everywhere).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, TypeVar

from pytest_memorybench.scenarios.params import read_params

P = TypeVar("P")


def seeded(scenario: str, seed: int, repetition: int) -> random.Random:
    """The random stream of one repetition of `scenario` under `seed`."""
    return random.Random(f"{scenario}|{seed}|{repetition}")


def opening(
    kind: type[P], scenario: str, params: Mapping[str, Any], seed: int, repetition: int
) -> tuple[P, random.Random]:
    """A generator's first line: the suite's parameters read into `kind`, and the test's stream."""
    return read_params(kind, scenario, params), seeded(scenario, seed, repetition)
