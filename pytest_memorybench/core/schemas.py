"""The JSON Schemas the docs publish (results.json, events.jsonl), the same whatever pydantic made them."""

from __future__ import annotations

from typing import Any


def published_schema(schema: dict[str, Any], schema_id: str) -> dict[str, Any]:
    """`schema` as published: draft 2020-12, its `$id` the file's version, and without
    what some pydantic releases spell out and others not: `"additionalProperties": true` (JSON
    Schema's default), and a one-value `enum` beside the `const` that says the same."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        **_without_defaults(schema),
    }


def _without_defaults(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: _without_defaults(value)
            for key, value in node.items()
            if not (key == "additionalProperties" and value is True)
            and not (key == "enum" and "const" in node and value == [node["const"]])
        }
    if isinstance(node, list):
        return [_without_defaults(value) for value in node]
    return node
