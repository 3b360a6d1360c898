"""Scenario parameters read from suite files, checked so a typo fails loudly instead of silently."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

import pytest

from pytest_memorybench.core.names import suggest
from pytest_memorybench.core.spans import MAX_SPAN_TOKENS

P = TypeVar("P")
MAX_COUNT = 10_000  # questions, chats, chapters, steps… of one scenario
MAX_NUMBER = MAX_SPAN_TOKENS  # any number a suite file gives; the largest are token counts


def params_error(message: str) -> pytest.UsageError:
    """The one line a wrong parameter gets; it starts `scenario NAME:`, which `names_parameters`
    reads, so a suite names its file on the line (found as the suite generates its tests, not by
    generating every test once more when the file is read)."""
    return pytest.UsageError(" ".join(message.splitlines()))


def names_parameters(error: pytest.UsageError, scenario: str) -> bool:
    """Whether `error` is `read_params`'s, about a parameter of `scenario`."""
    return str(error).startswith(f"scenario {scenario}: ")


def read_params(kind: type[P], scenario: str, given: Mapping[str, Any]) -> P:
    """Build the scenario's parameter dataclass from suite YAML, naming any bad key or value.

    The dataclass checks ranges itself in `__post_init__` by raising ValueError.
    """
    fields = {f.name: f for f in dataclasses.fields(kind)}  # type: ignore[arg-type]
    unknown = sorted(set(given) - set(fields))
    if unknown:
        raise params_error(
            f"scenario {scenario}: unknown parameter {unknown[0]!r}; {suggest(unknown[0], sorted(fields))}"
        )
    values = {}
    for name, value in given.items():
        default = fields[name].default
        value = _as_written(value, default)
        if isinstance(default, bool) != isinstance(value, bool) or not isinstance(value, type(default)):
            raise params_error(
                f"scenario {scenario}: parameter {name!r} must be of type {type(default).__name__}, got"
                f" {value!r}"
            )
        if (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and not -MAX_NUMBER <= value <= MAX_NUMBER
        ):
            raise params_error(f"scenario {scenario}: parameter {name!r} is out of range, got {value!r}")
        values[name] = value
    try:
        return kind(**values)
    except ValueError as exc:
        raise params_error(f"scenario {scenario}: {exc}") from None


def _as_written(value: Any, default: Any) -> Any:
    """What the suite's author meant where YAML typed it otherwise: `p: 1` for a float, and an
    unquoted date (`start_date: 2024-01-01`, which YAML reads as a date) for a text."""
    if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(default, str) and isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


def at_least(name: str, value: int, minimum: int, maximum: int = MAX_COUNT) -> None:
    """The common range check of a parameter dataclass's `__post_init__`: counts have a ceiling too,
    so a typo (`chats: 1000000`) fails at once instead of generating for hours."""
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    if value > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}, got {value:,}")
