"""results.json written and read back: the run's one writer, the one reader every consumer uses,
and the gate's baseline.

What is read is checked before anyone trusts it: its schema version is one this release reads,
and every field it has is of the type `schema.py` declares (`core.field_check`), or the file is
refused in one line naming the field ("items[3].score is "high", a number was expected").  A field
it lacks is let through: a file of an earlier release of version 1 (a field added keeps the
version), or a part of one (a baseline kept as its means alone); a reader of such a part asks for
it (`part`, `.get`).  A version this release does not know is refused, a newer one with the advice
to upgrade; version 2, when a field is renamed or removed, brings the migration of version 1
files here, beside the check.

A baseline is read and checked when the session starts (the options are checked), so a broken
file costs a run nothing at its end.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.field_check import WrongType, check_fields
from pytest_memorybench.core.files import write_atomically
from pytest_memorybench.core.readers import Malformed, as_mapping, read_json, reading, require
from pytest_memorybench.results.schema import SCHEMA, SCHEMA_PREFIX, VERSION, ResultsRecord


@dataclass(frozen=True)
class Baseline:
    """A previous results.json, read and checked when the session starts (not when it ends)."""

    path: Path
    results: ResultsRecord

    @classmethod
    def load(cls, value: str) -> Baseline:
        path = Path(value)
        if not path.exists():
            raise usage_error(f"--mb-baseline {value}: no such file; give the results.json of an earlier run")
        with reading(f"--mb-baseline {value}", "give the results.json from an earlier run folder"):
            results = read_results(path)
            _check_means(results)
        return cls(path.resolve(), results)


def write_results(path: Path, results: ResultsRecord) -> None:
    """Write results.json atomically: a reader never sees half a file."""
    write_atomically(path, json.dumps(results, indent=2, ensure_ascii=False) + "\n")


def read_results(path: Path) -> ResultsRecord:
    """A results.json, as every reader takes it (compare, the gate, snapshots, a shards' merge, a
    verify); a `Malformed` (for `readers.reading` to put in one line) if it is none, is of a version
    this release does not read, or has a field of the wrong type.

    A file of this schema's version, written before or after this release, loads, and so does a
    part of one (a baseline kept as its means alone): each reader checks that the parts it needs
    are there (the gate `_check_means`, a comparison its items, a merge its run, totals and items).
    """
    results = read_json(path)
    schema = results.get("schema", "") if isinstance(results, dict) else ""
    message = f"not a pytest-memorybench results.json (schema {schema or 'missing'})"
    require(isinstance(schema, str) and schema.startswith(SCHEMA_PREFIX), message)
    version = schema_version(str(schema))
    require(version is not None, message)
    require(
        version is None or version <= VERSION,
        f"schema {schema} is newer than this pytest-memorybench reads ({SCHEMA}): upgrade it to read"
        " this file",
    )
    try:
        check_fields(results, ResultsRecord)
    except WrongType as exc:
        raise Malformed(str(exc)) from None
    return cast(ResultsRecord, as_mapping(results, message))


def schema_version(schema: str) -> int | None:
    """The version a results.json's `schema` names (`memorybench.results/1` -> 1), or None."""
    number = schema.removeprefix(SCHEMA_PREFIX)
    return int(number) if schema.startswith(SCHEMA_PREFIX) and number.isdigit() and number.isascii() else None


def part(results: ResultsRecord, name: str) -> dict[str, Any]:
    """The part `name` of a results.json (`run`, `totals`), or an empty one when the file is a part
    of one that lacks it (a baseline kept as its means alone)."""
    value = cast(Mapping[str, Any], results).get(name)
    return value if isinstance(value, dict) else {}


def _check_means(results: ResultsRecord) -> None:
    """What the gate compares must be there and be numbers: a baseline is checked when the run
    starts, so a broken one never costs a run its verdict at the end."""
    totals = as_mapping(results.get("totals"), "no 'totals' mapping")
    for key in ("mean", "score", "max"):
        require(totals.get(key) is None or _is_number(totals[key]), f"totals.{key} is not a number")
    for level in ("suites", "scenarios"):
        table: Any = results.get(level, {})
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
