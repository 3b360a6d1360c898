"""What every scenario module builds its definitions with: its name and skills on each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memorybench.contract.scenario import Named
from pytest_memorybench.core.records import ScriptLine, TestDefinition


def definition(
    scenario: Named,
    suite: str,
    repetition: int,
    seed: int,
    script: Sequence[ScriptLine],
    ideal_answers: Sequence[str],
    expected: Any,
    params: Mapping[str, Any],
    **more: Any,
) -> TestDefinition:
    """A definition of `scenario`'s, under its name and with its skills."""
    return TestDefinition(
        suite=suite,
        scenario=scenario.name,
        repetition=repetition,
        seed=seed,
        script=tuple(script),
        ideal_answers=tuple(ideal_answers),
        expected=expected,
        skills=scenario.skills,
        params=dict(params),
        **more,
    )
