"""An earlier run's results.json, read back: the file a gate compares this run with.

It is read and checked when the session starts (the options are checked), so a broken file costs
a run nothing at its end; the reports that use it (the gate) sit above the run that reads it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.readers import as_mapping, read_json, reading, require

SCHEMA_PREFIX = "memorybench.results/"


@dataclass(frozen=True)
class Baseline:
    """A previous results.json, read and checked when the session starts (not when it ends)."""

    path: Path
    results: dict[str, Any]

    @classmethod
    def load(cls, value: str) -> Baseline:
        path = Path(value)
        if not path.exists():
            raise usage_error(f"--mb-baseline {value}: no such file; give the results.json of an earlier run")
        with reading(f"--mb-baseline {value}", "give the results.json from an earlier run folder"):
            results = read_results(path)
            _check_means(results)
        return cls(path.resolve(), results)


def read_results(path: Path) -> dict[str, Any]:
    """The content of a results.json; a `Malformed` (for `readers.reading` to put in one line) if it is
    none."""
    results = read_json(path)
    schema = results.get("schema", "") if isinstance(results, dict) else ""
    message = f"not a pytest-memorybench results.json (schema {schema or 'missing'})"
    require(str(schema).startswith(SCHEMA_PREFIX), message)
    return as_mapping(results, message)


def _check_means(results: dict[str, Any]) -> None:
    """What the gate compares must be there and be numbers: a baseline is checked when the run
    starts, so a broken one never costs a run its verdict at the end."""
    totals = as_mapping(results.get("totals"), "no 'totals' mapping")
    for key in ("mean", "score", "max"):
        require(totals.get(key) is None or _is_number(totals[key]), f"totals.{key} is not a number")
    for level in ("suites", "scenarios"):
        table = results.get(level, {})
        require(isinstance(table, dict), f"'{level}' is not a mapping")
        for name, row in table.items():
            require(
                isinstance(row, dict) and (row.get("mean") is None or _is_number(row["mean"])),
                f"{level}.{name}.mean is not a number",
            )
    require(isinstance(results.get("items", []), list), "'items' is not a list")
    require(isinstance(results.get("run", {}), dict), "'run' is not a mapping")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
