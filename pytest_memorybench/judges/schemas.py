"""The JSON schema of each judge task's verdict, for servers that can constrain their output.

OpenAI-compatible servers take a schema in `response_format` (in one of two forms, see
`backends.py`), Anthropic as a tool's `input_schema`; a constrained small model then answers in
valid JSON.  Free-text fields carry a `maxLength`: without one a small model can write a reason
until it runs out of tokens and the reply is cut mid-string.  The schemas describe what
`replies.validate` accepts; validation still runs on every reply, constrained or not.
"""

from __future__ import annotations

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.base import TASK_KINDS
from pytest_memorybench.judges.replies import DIRECTIONS

REASON_LENGTH = 200  # characters of a free-text reason
NAME_LENGTH = 120  # characters of a name in a list (a dish, a place, an item)


def _text(limit: int) -> JsonObject:
    return {"type": "string", "maxLength": limit}


def _names() -> JsonObject:
    return {"type": "array", "items": _text(NAME_LENGTH)}


def _object(properties: JsonObject) -> JsonObject:
    return {
        "type": "object",
        "properties": {**properties, "reason": _text(REASON_LENGTH)},
        "required": list(properties),
        "additionalProperties": False,
    }


_BOOLEAN: JsonObject = {"type": "boolean"}
_SCORE: JsonObject = {"type": "number", "enum": [0, 0.5, 1]}

SCHEMAS: dict[str, JsonObject] = {
    "reference": _object(
        {
            "refers": _BOOLEAN,
            "expected_is_number": _BOOLEAN,
            "numbers_match": {"type": ["boolean", "null"]},
        }
    ),
    "sentence": _object({"present": _BOOLEAN, "extracted": {"type": ["string", "null"], "maxLength": 400}}),
    "directions": _object(
        {
            "hops": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "origin": _text(NAME_LENGTH),
                        "kilometers": {"type": "integer", "minimum": 1},
                        "direction": {"type": "string", "enum": list(DIRECTIONS)},
                        "destination": _text(NAME_LENGTH),
                    },
                    "required": ["origin", "kilometers", "direction", "destination"],
                    "additionalProperties": False,
                },
            },
        }
    ),
    "restaurant": _object(
        {
            "dishes": _names(),
            "drinks": _names(),
            "other": {"type": ["string", "null"], "maxLength": NAME_LENGTH},
        }
    ),
    "items": _object({"identified": _names(), "matching": {"type": "array", "items": _SCORE}}),
    "order": _object({"predicted_indexes": {"type": "array", "items": {"type": "integer", "minimum": -1}}}),
    "nugget": _object({"score": _SCORE}),
    "equivalence": _object({"equivalent": _BOOLEAN}),
    "interpretation": _object({"valid": _BOOLEAN}),
    "answer": _object({"correct": _BOOLEAN}),
}

assert set(SCHEMAS) == set(TASK_KINDS)


def schema_for(kind: str) -> JsonObject:
    """The JSON schema of a task kind's reply, for judges that ask for structured output."""
    return SCHEMAS[kind]
