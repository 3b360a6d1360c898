"""A JSON document checked against the TypedDicts that type it, the first wrong field named in words.

A reader handed a user's file (a baseline, a run to compare or merge) trusts its types from then
on, so a number kept as a string must stop it at the door, not deep in a mean.  pydantic checks
what a run writes, exactly (`core.schemas`); this checks what a reader is given: every field
present has its declared type, a field the types do not know passes (a later release's), and a
field that is absent passes too (an older file, or a part of one): whoever reads an optional part
asks for it.  The walk needs no import beyond `typing`, so a reader that checks a file pays nothing
for pydantic.
"""

from __future__ import annotations

import json
import types
import typing
from functools import cache
from typing import Any, Literal, Union

from typing_extensions import NotRequired, Required, is_typeddict

MAX_SHOWN = 40  # characters of a wrong value quoted in the message


class WrongType(ValueError):
    """A field whose value is not of its declared type; the message names the field and both."""


def check_fields(value: object, kind: object) -> None:
    """`value` against `kind` (a TypedDict, or a type made of them); `WrongType` at the first field
    whose value is of another type: 'items[3].score is "high", a number was expected'."""
    problem = _problem(value, kind, "")
    if problem is not None:
        raise WrongType(problem)


def _problem(value: object, kind: Any, where: str) -> str | None:
    """What is wrong at `where`, or None when `value` is a `kind`."""
    origin = typing.get_origin(kind)
    if kind is Any or kind is object:
        return None
    if origin in (NotRequired, Required):
        return _problem(value, typing.get_args(kind)[0], where)
    if origin in (Union, types.UnionType):
        members = typing.get_args(kind)
        if any(_problem(value, member, where) is None for member in members):
            return None
        if value is not None:  # a value of none of them: the first member that is a container says where
            for member in members:
                if _container_of(member) is type(value):
                    return _problem(value, member, where)
        return _wrong(value, kind, where)
    if origin is Literal:
        return None if value in typing.get_args(kind) else _wrong(value, kind, where)
    if is_typeddict(kind):
        if not isinstance(value, dict):
            return _wrong(value, kind, where)
        fields = _fields(kind)
        for key, item in value.items():
            if key in fields:
                problem = _problem(item, fields[key], f"{where}.{key}" if where else str(key))
                if problem is not None:
                    return problem
        return None
    if origin is list:
        if not isinstance(value, list):
            return _wrong(value, kind, where)
        (member,) = typing.get_args(kind) or (Any,)
        return next(
            (p for i, item in enumerate(value) if (p := _problem(item, member, f"{where}[{i}]")) is not None),
            None,
        )
    if origin is dict:
        if not isinstance(value, dict):
            return _wrong(value, kind, where)
        _, member = typing.get_args(kind) or (str, Any)
        return next(
            (p for key, item in value.items() if (p := _problem(item, member, f"{where}.{key}")) is not None),
            None,
        )
    return None if _is_scalar(value, kind) else _wrong(value, kind, where)


def _is_scalar(value: object, kind: Any) -> bool:
    if kind is None or kind is type(None):
        return value is None
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:  # JSON writes 3.0 as 3 in some writers: an int is a number
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is str:
        return isinstance(value, str)
    raise TypeError(f"no JSON check for {kind!r}")  # a type the records use and this walk does not know


def _container_of(kind: Any) -> type | None:
    origin = typing.get_origin(kind)
    if is_typeddict(kind) or origin is dict:
        return dict
    return list if origin is list else None


@cache
def _fields(record: Any) -> dict[str, Any]:
    return typing.get_type_hints(record, include_extras=True)


def _wrong(value: object, kind: Any, where: str) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    if len(shown) > MAX_SHOWN:
        shown = shown[: MAX_SHOWN - 1] + "…"
    return f"{where or 'the file'} is {shown}, {_expected(kind)} was expected"


def _expected(kind: Any) -> str:
    """A type in words: "a number", "a list", "a number or null"."""
    origin = typing.get_origin(kind)
    if origin in (Union, types.UnionType):
        members = [member for member in typing.get_args(kind) if member is not type(None)]
        words = " or ".join(dict.fromkeys(_expected(member) for member in members))
        return words + (" or null" if len(members) < len(typing.get_args(kind)) else "")
    if origin is Literal:
        return " or ".join(json.dumps(choice) for choice in typing.get_args(kind))
    if is_typeddict(kind) or origin is dict:
        return "an object"
    if origin is list:
        return "a list"
    named: dict[object, str] = {
        bool: "true or false",
        int: "a whole number",
        float: "a number",
        str: "a string",
    }
    return named.get(kind, "null" if kind in (None, type(None)) else str(kind))
