"""Reading the files users hand us: each read ends in a value or in one line saying what is wrong.

Every file a run reads comes from outside: suite YAML, run folders, data sets, baselines,
published results.  Any of them may be truncated, binary, nested past Python's recursion limit,
or valid JSON of another shape, and a reader that trusts it fails deep inside with a traceback.
A reader therefore does its whole work, parsing and picking fields alike, inside `reading(...)`:
whatever goes wrong there becomes one error naming the file and what to do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from pytest_memorybench.core.errors import UsageError, describe_exception, usage_error

# What a malformed file makes the code that reads it raise: parse errors, and a document of the
# wrong shape (a list for a mapping, a string for a number, a missing key).
FILE_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    ValueError,  # JSON syntax, UnicodeDecodeError, bad numbers and dates
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
    RecursionError,
    OverflowError,
    yaml.YAMLError,
)
MAX_PROBLEM_CHARS = 200  # a message quotes the file's own text: keep the line a line


@contextmanager
def reading(what: str, hint: str = "", error: type[Exception] = UsageError) -> Iterator[None]:
    """Turn any failure to read `what` (e.g. "suite file x.yaml") into one `error` line.

    Errors that already are one line (`UsageError`, or `error` itself) pass through unchanged.
    """
    try:
        yield
    except (UsageError, error):
        raise
    except FILE_ERRORS as exc:
        raise error(f"{what}: {problem(exc)}" + (f"; {hint}" if hint else "")) from None


class Malformed(ValueError):
    """A file that parsed but does not hold what it should; the message says what it lacks."""


def problem(exc: BaseException) -> str:
    """What is wrong with a file, from what reading it raised, in words a user can act on."""
    if isinstance(exc, Malformed):
        return _short(str(exc))
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text (is it a binary file?)"
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    if isinstance(exc, IsADirectoryError):
        return "a folder, not a file"
    if isinstance(exc, OSError):
        return f"cannot read it ({exc.strerror or exc})"
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON ({exc.msg}, line {exc.lineno})"
    if isinstance(exc, yaml.YAMLError):
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        return f"invalid YAML{where} ({getattr(exc, 'problem', None) or type(exc).__name__})"
    if isinstance(exc, (KeyError, TypeError, IndexError, AttributeError)):
        return _short(f"not the expected structure ({describe_exception(exc)})")
    return _short(describe_exception(exc))


def _short(text: str) -> str:
    return text if len(text) <= MAX_PROBLEM_CHARS else text[: MAX_PROBLEM_CHARS - 1] + "…"


def read_json(path: Path) -> Any:
    """The JSON document in `path`; call it inside `reading(...)`."""
    return json.loads(path.read_text(encoding="utf-8"))


def read_parquet(path: Path, owner: str) -> list[dict[str, Any]]:
    """The rows of a parquet file as dicts; needs pyarrow (`pip install 'pytest-memorybench[parquet]'`).
    `owner` names what reads it ("episodic data") in the one line a problem gets."""
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise usage_error(
            f"{owner} {path.name}: reading parquet needs pyarrow; install it with pip install"
            " 'pytest-memorybench[parquet]'"
        ) from None
    try:
        rows: list[dict[str, Any]] = parquet.read_table(path).to_pylist()
        return rows
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds for a bad file
        raise usage_error(
            f"{owner} {path}: not a readable parquet file ({type(exc).__name__}: {exc})"
        ) from None


def require(condition: bool, description: str) -> None:
    """Check the shape of what was read; inside `reading(...)`, a failed check is the file's one line."""
    if not condition:
        raise Malformed(description)


def as_mapping(value: object, description: str) -> dict[str, Any]:
    """`value`, which must be a JSON object; else the file's one line says `description`."""
    if not isinstance(value, dict):
        raise Malformed(description)
    return value


def as_list(value: object, description: str) -> list[Any]:
    """`value`, which must be a JSON list; else the file's one line says `description`."""
    if not isinstance(value, list):
        raise Malformed(description)
    return value
