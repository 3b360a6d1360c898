"""Checking a judge's reply: `validate(kind, data, payload)` against the task's output schema.

It returns the reply normalised (booleans as bool, scores as 0 / 0.5 / 1, names spelled as in the
payload's lists) and raises ValueError with a short reason when the reply cannot be used as is.
The offline judge's verdicts go through it too, so both kinds of judge give the same shapes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from typing_extensions import TypedDict

from pytest_memorybench.core.json_values import JsonMapping, JsonObject
from pytest_memorybench.core.text import fold
from pytest_memorybench.judges.base import TASK_KINDS

DIRECTIONS = ("north", "south", "east", "west")
SCORES = (0, 0.5, 1)


# The replies `validate` returns, for the kinds whose scorers read more than one flag.  A verdict's
# `data` is a JSON object (it is cached and logged as one); a scorer reads it as its kind's reply
# (`cast`): validate made it so, and an empty object (no verdict) has none of the keys.
class Hop(TypedDict):
    """One leg of a route (`directions`)."""

    origin: str
    kilometers: int
    direction: str  # north, south, east or west
    destination: str


class DirectionsReply(TypedDict, total=False):
    """A `directions` reply: the route the answer describes, leg by leg."""

    hops: list[Hop]
    reason: str  # why, in a few words (any kind's reply may have one)


class RestaurantReply(TypedDict, total=False):
    """A `restaurant` reply: what the answer orders."""

    reason: str
    dishes: list[str]  # spelled as on the payload's menu where they match it
    drinks: list[str]
    other: str | None  # what was ordered that is on neither list


class ItemsReply(TypedDict, total=False):
    """An `items` reply: the items the answer names and how each ground-truth item is matched."""

    reason: str
    identified: list[str]
    matching: list[float]  # one score (0, 0.5, 1) per ground-truth item


class OrderReply(TypedDict, total=False):
    """An `order` reply: where each predicted item sits in the ground truth."""

    reason: str
    predicted_indexes: list[int]  # per predicted item, its ground-truth index, or -1


def validate(kind: str, data: object, payload: Mapping[str, Any] | None = None) -> JsonObject:
    """`data` checked against the kind's schema and normalised; ValueError(reason) if unusable.

    With the task's `payload`, the checks that depend on it are made too: `matching` has one score
    per ground-truth item, `predicted_indexes` one index per predicted item and none past the
    ground truth; names that differ from the payload's lists only in case are respelled.
    """
    if kind not in TASK_KINDS:
        raise ValueError(f"unknown judge task {kind!r}; known: {', '.join(TASK_KINDS)}")
    if kind == "directions" and isinstance(data, list):
        data = {"hops": data}  # a bare list of legs is unambiguous
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {_type_name(data)}")
    result = _VALIDATORS[kind](data, payload or {})
    reason = data.get("reason", data.get("explanation"))
    if isinstance(reason, str) and reason.strip():
        result["reason"] = " ".join(reason.split())
    return result


def _reference(data: JsonMapping, payload: Mapping[str, Any]) -> JsonObject:
    refers = _bool(data, "refers")
    is_number = _bool(data, "expected_is_number")
    numbers_match = _bool(data, "numbers_match", nullable=True)
    if not is_number:
        numbers_match = None  # meaningless then; the schema says null
    return {"refers": refers, "expected_is_number": is_number, "numbers_match": numbers_match}


def _sentence(data: JsonMapping, payload: Mapping[str, Any]) -> JsonObject:
    present = _bool(data, "present")
    extracted = _text(data, "extracted", nullable=True, missing_ok=True)
    return {"present": present, "extracted": (extracted or None) if present else None}


def _directions(data: JsonMapping, payload: Mapping[str, Any]) -> JsonObject:
    hops = _field(data, "hops")
    if not isinstance(hops, list):
        raise ValueError(f"'hops' must be a list, got {_type_name(hops)}")
    places = _payload_strings(payload, "places")
    result = []
    for number, hop in enumerate(hops):
        if not isinstance(hop, dict):
            raise ValueError(f"hop {number} must be an object, got {_type_name(hop)}")
        direction = _text(hop, "direction").strip().lower()
        direction = {"n": "north", "s": "south", "e": "east", "w": "west"}.get(direction, direction)
        if direction not in DIRECTIONS:
            raise ValueError(f"hop {number}: direction {direction!r} is not north, south, east or west")
        result.append(
            {
                "origin": _respell(_text(hop, "origin").strip(), places),
                "kilometers": _whole_number(hop, "kilometers", f"hop {number}"),
                "direction": direction,
                "destination": _respell(_text(hop, "destination").strip(), places),
            }
        )
    return {"hops": result}


def _restaurant(data: JsonMapping, payload: Mapping[str, Any]) -> JsonObject:
    menu, drinks = _payload_strings(payload, "menu"), _payload_strings(payload, "drinks")
    other = _text(data, "other", nullable=True, missing_ok=True)
    return {
        "dishes": _unique(_respell(name, menu) for name in _string_list(data, "dishes")),
        "drinks": _unique(_respell(name, drinks) for name in _string_list(data, "drinks")),
        "other": other.strip() or None if other else None,
    }


def _items(data: JsonMapping, payload: Mapping[str, Any]) -> JsonObject:
    identified = _string_list(data, "identified")
    raw = _field(data, "matching")
    if not isinstance(raw, list):
        raise ValueError(f"'matching' must be a list, got {_type_name(raw)}")
    # The episodic paper's own format, [{"item": score}, ...], is accepted too.
    values = [next(iter(v.values())) if isinstance(v, dict) and len(v) == 1 else v for v in raw]
    matching = [_score(value, f"matching[{index}]") for index, value in enumerate(values)]
    if "ground_truth" in payload:
        expected = len(payload["ground_truth"])
        if len(matching) != expected:
            raise ValueError(f"'matching' has {len(matching)} scores for {expected} ground-truth items")
    return {"identified": identified, "matching": matching}


def _order(data: JsonMapping, payload: Mapping[str, Any]) -> JsonObject:
    raw = _field(data, "predicted_indexes")
    if not isinstance(raw, list):
        raise ValueError(f"'predicted_indexes' must be a list, got {_type_name(raw)}")
    indexes = [_index(value, number) for number, value in enumerate(raw)]
    if "predicted" in payload and len(indexes) != len(payload["predicted"]):
        raise ValueError(
            f"'predicted_indexes' has {len(indexes)} entries for {len(payload['predicted'])} predicted items"
        )
    if "ground_truth" in payload:
        size = len(payload["ground_truth"])
        beyond = [index for index in indexes if index >= size]
        if beyond:
            raise ValueError(f"index {beyond[0]} is past the {size}-item ground truth")
    return {"predicted_indexes": indexes}


def _nugget(data: JsonMapping, payload: Mapping[str, Any]) -> JsonObject:
    return {"score": _score(_field(data, "score"), "score")}


def _equivalence(data: JsonMapping, payload: Mapping[str, Any]) -> JsonObject:
    return {"equivalent": _bool(data, "equivalent")}


def _interpretation(data: JsonMapping, payload: Mapping[str, Any]) -> JsonObject:
    return {"valid": _bool(data, "valid")}


def _answer(data: JsonMapping, payload: Mapping[str, Any]) -> JsonObject:
    if "correct" not in data and isinstance(
        given := data.get("label"), str
    ):  # the pipelines' {"label": "CORRECT"}
        label = given.strip().upper()
        if label in ("CORRECT", "WRONG"):
            return {"correct": label == "CORRECT"}
    return {"correct": _bool(data, "correct")}


_VALIDATORS = {
    "reference": _reference,
    "sentence": _sentence,
    "directions": _directions,
    "restaurant": _restaurant,
    "items": _items,
    "order": _order,
    "nugget": _nugget,
    "equivalence": _equivalence,
    "interpretation": _interpretation,
    "answer": _answer,
}

_TRUE = {"true", "yes", "y"}
_FALSE = {"false", "no", "n"}
_MISSING = object()


def _field(data: JsonMapping, name: str) -> Any:
    if name not in data:
        raise ValueError(f"missing field {name!r}")
    return data[name]


def _present(data: JsonMapping, name: str, *, absent_ok: bool, nullable: bool) -> tuple[bool, Any]:
    """(False, None) when the field may be left out or null and is; else (True, its value)."""
    value = data.get(name, _MISSING)
    if value is _MISSING:
        if absent_ok:
            return False, None
        raise ValueError(f"missing field {name!r}")
    if value is None and nullable:
        return False, None
    return True, value


def _bool(data: JsonMapping, name: str, *, nullable: bool = False) -> bool | None:
    given, value = _present(data, name, absent_ok=nullable, nullable=nullable)
    if not given:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{name!r} must be true or false, got {_short(value)}")


def _text(data: JsonMapping, name: str, *, nullable: bool = False, missing_ok: bool = False) -> Any:
    given, value = _present(data, name, absent_ok=missing_ok, nullable=nullable)
    if not given:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"{name!r} must be a string, got {_type_name(value)}")


def _string_list(data: JsonMapping, name: str) -> list[str]:
    value = _field(data, name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{name!r} must be a list, got {_type_name(value)}")
    result = []
    for item in value:
        if isinstance(item, str):
            if item.strip():
                result.append(item.strip())
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            result.append(str(item))
        else:
            raise ValueError(f"{name!r} must hold strings, got {_type_name(item)}")
    return result


def _score(value: Any, name: str) -> float | int:
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ValueError(f"{name} must be 0, 0.5 or 1, got {_short(value)}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be 0, 0.5 or 1, got {_short(value)}")
    for allowed in SCORES:
        if value == allowed:
            return allowed
    raise ValueError(f"{name} must be 0, 0.5 or 1, got {_short(value)}")


def _whole_number(data: JsonMapping, name: str, where: str) -> int:
    value = _field(data, name)
    if isinstance(value, str):
        digits = value.strip().lower().removesuffix("km").removesuffix("kilometers").strip()
        try:
            value = float(digits)
        except ValueError:
            raise ValueError(f"{where}: {name!r} must be a whole number, got {_short(value)}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < 0:
        raise ValueError(f"{where}: {name!r} must be a whole number, got {_short(value)}")
    return int(value)


def _index(value: Any, number: int) -> int:
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value == int(value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < -1:
        raise ValueError(f"predicted_indexes[{number}] must be an integer >= -1, got {_short(value)}")
    return value


def _payload_strings(payload: Mapping[str, Any], name: str) -> list[str]:
    value = payload.get(name) or []
    return [str(item) for item in value] if not isinstance(value, str) else []


def _respell(name: str, known: Sequence[str]) -> str:
    """`name` as spelled in `known` when they differ only in case or surrounding space."""
    folded = fold(name)
    for candidate in known:
        if fold(candidate) == folded:
            return candidate
    return name


def _unique(names: Any) -> list[str]:
    seen: dict[str, None] = {}
    for name in names:
        seen.setdefault(name, None)
    return list(seen)


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__
    )


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


assert set(_VALIDATORS) == set(TASK_KINDS)
