"""Checking a file's records against their TypedDicts, and the JSON Schemas the docs publish.

results.json and events.jsonl are typed records (`results.schema`, `conversation.event_schema`);
pydantic checks them and writes their JSON Schemas, imported only when a file is checked (a run
that checks none never loads it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from pytest_memorybench.core.json_values import JsonObject, JsonValue


class RecordSchema:
    """The TypedDicts of one file's records, and `root`, the type one record (or the file) is."""

    def __init__(self, schema_id: str, what: str, records: tuple[type, ...], root: Callable[[], Any]) -> None:
        self.schema_id = schema_id
        self.what = what  # "results.json", "an event"
        self.records = records
        self.root = root  # made on first use: a discriminated union needs pydantic's `Field`
        self._adapters: dict[bool, Any] = {}

    def _adapter(self, exact: bool) -> Any:
        """pydantic's validator; `exact`: every field and no other, else fields added later pass."""
        if exact not in self._adapters:
            from pydantic import TypeAdapter

            for record in self.records:  # pydantic reads a TypedDict's config from this attribute
                cast(Any, record).__pydantic_config__ = {
                    "extra": "forbid" if exact else "allow",
                    "strict": exact,
                }
            self._adapters[exact] = TypeAdapter(self.root())
        return self._adapters[exact]

    def check(self, value: object) -> None:
        """`value` against the records, every field and no other; ValueError naming the first wrong
        field otherwise."""
        from pydantic import ValidationError

        try:
            self._adapter(exact=True).validate_python(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ValueError(
                f"{self.what} does not follow {self.schema_id}: {where}: {first['msg']}"
            ) from None

    def published(self) -> JsonObject:
        """The JSON Schema the docs publish (fields added later let through)."""
        return published_schema(self._adapter(exact=False).json_schema(), self.schema_id)


def published_schema(schema: JsonObject, schema_id: str) -> JsonObject:
    """`schema` as published: draft 2020-12, its `$id` the file's version, and without
    what some pydantic releases spell out and others not: `"additionalProperties": true` (JSON
    Schema's default), and a one-value `enum` beside the `const` that says the same."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        **{key: _without_defaults(value) for key, value in _kept(schema).items()},
    }


def _without_defaults(node: JsonValue) -> JsonValue:
    if isinstance(node, Mapping):
        return {key: _without_defaults(value) for key, value in _kept(node).items()}
    if isinstance(node, list):
        return [_without_defaults(value) for value in node]
    return node


def _kept(node: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    return {
        key: value
        for key, value in node.items()
        if not (key == "additionalProperties" and value is True)
        and not (key == "enum" and "const" in node and value == [node["const"]])
    }
