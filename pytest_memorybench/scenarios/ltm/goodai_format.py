"""GoodAI's LTM Benchmark files as the LTM scenarios read them: a definition's script, and a stored result.

Each LTM scenario reads GoodAI's definition files of its dataset (`from_goodai`, through
`goodai_definitions`); the parts every scripted one shares are here.  A scenario that re-scores a
stored result its own way (`rescore_goodai`) reads it as a `StoredTest`, which the re-scoring's
record of a result file (`rescore.goodai_results.StoredResult`) is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from typing_extensions import NotRequired, TypedDict

from pytest_memorybench.contract.scenario import Named
from pytest_memorybench.core.records import ScriptLine, TestDefinition
from pytest_memorybench.scenarios.base import definition


class StoredTest(Protocol):
    """What a scenario's `rescore_goodai` reads of one stored GoodAI result."""

    @property
    def responses(self) -> tuple[str, ...]: ...

    def exchanges(self) -> list[tuple[str, str | None]]:
        """(what the test said, what the agent replied) for this test's own lines, in order."""

    def replies_from(self, message: str) -> list[str]:
        """Every agent reply in the log from the reply to `message` on (whatever test it answers)."""


class GoodAIDefinitionFile(TypedDict):
    """A GoodAI definition file (`<example>.def.json`) as the converters read it, after
    `upgrade_format` gave every format one `waits` entry per line.

    `expected_responses` differs by dataset (texts; [item, count] pairs for Shopping; lists of
    synonyms for Spy Meeting; a quote, its author and a count for Prospective Memory): each
    scenario's `from_goodai` reads its own.  The keys that start with `_` are ours, added on reading.
    """

    script: list[str]
    is_question: list[bool]
    waits: list[dict[str, float]]  # per line: tokens, time (seconds), percentage_finished
    expected_responses: list[Any]
    can_be_interleaved: NotRequired[bool]
    is_temporal: NotRequired[bool]
    uses_callback: NotRequired[bool]
    token_spacings: NotRequired[list[int]]  # Benchmark 1's waits, before `upgrade_format`
    time_jumps: NotRequired[list[float]]
    _examples: NotRequired[list[Any]]  # every example's expected responses (Spy Meeting's penalty)
    _format: NotRequired[int]  # which format the file was: 1, 2 or 3


def goodai_format(definition: TestDefinition) -> int:
    """Which GoodAI format a definition was converted from (1, 2 or 3; our own are 3): the scorers
    whose rules changed between benchmarks score a Benchmark 1 or 2 file by its own rule."""
    version = definition.params.get("goodai_format", 3)
    return version if isinstance(version, int) else 3


def script_from_goodai(raw: GoodAIDefinitionFile) -> tuple[ScriptLine, ...]:
    """Script lines with their question flags and waits, as the file has them.

    Old (v2) files carry all three wait keys, zeros included; zeros mean no wait.
    """
    return tuple(
        ScriptLine(
            text,
            is_question=bool(question),
            wait={key: value for key, value in (wait or {}).items() if value},
        )
        for text, question, wait in zip(raw["script"], raw["is_question"], raw["waits"], strict=False)
    )


def goodai_definition(
    scenario: Named,
    raw: GoodAIDefinitionFile,
    example_id: str,
    suite: str,
    repetition: int,
    ideal_answers: Sequence[str],
    expected: Any,
    **more: Any,
) -> TestDefinition:
    """A GoodAI definition file as `scenario`'s: its script and waits as they are, seed 0."""
    params = {"goodai_example": example_id}
    return definition(
        scenario, suite, repetition, 0, script_from_goodai(raw), ideal_answers, expected, params, **more
    )
