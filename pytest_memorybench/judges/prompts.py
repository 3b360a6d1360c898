"""The LLM judge's prompts, one per task kind, and the check of what comes back.

Each task kind (see `base.py`) has a system prompt and a user template; `render(kind, payload)`
fills the template.  The wording is ours; the meaning follows the papers' judge prompts:
GoodAI LTM (reference checker, sentence extraction, route conversion, restaurant order parsing),
the episodic-memory benchmark (item matching and list alignment), BEAM (rubric nuggets and fact
equivalence), the LoCoMo evaluation pipelines' generous "J" grader and LongMemEval's per-type answer
checks (`ANSWER_RULES`).  Every prompt asks for one JSON object and nothing else.

`prompt_hash(kind)` fingerprints a template, so results can say which wording produced them;
changing a prompt changes its hash and, through the rendered text, every cache key.
`validate(kind, data, payload)` checks a parsed reply against the task's output schema and returns
it normalised (booleans as bool, scores as 0 / 0.5 / 1, names spelled as in the payload's lists);
it raises ValueError with a short reason when the reply cannot be used as is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from string import Template
from typing import Any

from pytest_memorybench.judges.base import TASK_KINDS

DIRECTIONS = ("north", "south", "east", "west")
SCORES = (0, 0.5, 1)

_JSON_ONLY = (
    "Reply with a single JSON object and nothing else: no code fences, no text before or after it."
)


@dataclass(frozen=True)
class Prompt:
    system: str
    template: str  # string.Template: $field is replaced by the rendered payload field
    fields: tuple[str, ...]
    # Wording chosen by the payload's `rule` field and put in for $guidance (part of the hash).
    guidance: Mapping[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        rules = "".join(f"\n\x00{rule}\n{text}" for rule, text in sorted(self.guidance.items()))
        return f"{self.system}\n\x00\n{self.template}{rules}"


# How the `answer` task decides, per rule: LoCoMo's J as the common pipelines grade it, and the
# checks of LongMemEval's evaluation by question type.  The wording is ours.
ANSWER_RULES: dict[str, str] = {
    "generous": (
        "The question is about something said earlier in a long conversation between two people. The expected "
        "answer is usually short. Be generous: the answer is correct when it is about the same thing as the "
        "expected answer, even if it is longer, worded differently or adds detail. For a question about time, "
        "it is correct when it points to the same date or period, in any format (\"7 May\" and \"May 7th\"), "
        "or relative to the conversation (\"last week\") when that lands on the same period. It is wrong when "
        "it names something else, declines, or says it does not know."
    ),
    "contains": (
        "The answer is correct when it contains the expected answer, says something equivalent to it, or gives "
        "every step that leads to it. It is wrong when it gives only part of what the expected answer requires, "
        "something else, or no answer."
    ),
    "days": (
        "The answer is correct when it contains the expected answer, says something equivalent to it, or gives "
        "every step that leads to it; it is wrong when it gives only part of it. A count of days, weeks or "
        "months that is off by one (19 days where 18 are expected) still counts as correct."
    ),
    "update": (
        "The expected answer is the most recent value of something that changed over time. The answer is correct "
        "when it gives that value as the current one, even if it also mentions what was true before. It is "
        "wrong when it gives only an earlier value, or gives no answer."
    ),
    "preference": (
        "The expected answer is a rubric: what a response personalised to this user should do. The answer is "
        "correct when it recalls and uses the user's own preferences or circumstances as the rubric describes; "
        "it need not cover every point. It is wrong when it is generic, ignores the user's preferences, or "
        "contradicts them."
    ),
    "abstention": (
        "The question cannot be answered from the conversation; the expected answer explains why. The answer is "
        "correct when it says so: that the information was never given, is incomplete, or that something else "
        "was said but not what is asked. It is wrong when it answers the question as if it knew."
    ),
}


PROMPTS: dict[str, Prompt] = {
    "reference": Prompt(
        system=(
            "You grade the answers of an assistant in a memory test. You are given the question it was asked, "
            "the answer that was expected, and the answer it actually gave, and you decide whether its answer "
            f"points to the expected one. {_JSON_ONLY}"
        ),
        template="""Question the assistant was asked:
<question>
$question
</question>

Expected answer:
<expected>
$expected
</expected>

The assistant's answer:
<answer>
$answer
</answer>

Fill in these fields:
- "refers": true if the assistant's answer names or unmistakably describes the expected answer, in any wording (synonyms, paraphrases and partial quotations that leave no doubt all count); false if it gives something else, declines, or says it does not know or remember.
- "expected_is_number": true if the expected answer is a number or an amount.
- "numbers_match": if "expected_is_number" is true, whether the assistant's answer states the same value (in digits or in words, however formatted); null if the expected answer is not a number.
- "reason": one short sentence.

Format: {"refers": true or false, "expected_is_number": true or false, "numbers_match": true, false or null, "reason": "..."}""",
        fields=("question", "expected", "answer"),
    ),
    "sentence": Prompt(
        system=(
            "You look for one given sentence inside a piece of text written by an assistant, and copy out the "
            f"part of the text where it occurs. {_JSON_ONLY}"
        ),
        template="""Text written by the assistant:
<text>
$answer
</text>

Sentence to look for:
<sentence>
$sentence
</sentence>

Does the text contain this sentence, either word for word or reworded so that it says the same thing?
- "present": true or false.
- "extracted": if present, the part of the text that corresponds to the sentence, copied exactly as it appears in the text; null if not present.
- "reason": one short sentence.

Format: {"present": true or false, "extracted": "..." or null, "reason": "..."}""",
        fields=("answer", "sentence"),
    ),
    "directions": Prompt(
        system=(
            "You turn a description of a route, written by an assistant, into a list of legs that a program "
            f"can follow. {_JSON_ONLY}"
        ),
        template="""Known places:
$places

Route description:
<route>
$answer
</route>

Write each leg of the route, in the order travelled, as an object with:
- "origin": the place where the leg starts;
- "kilometers": the distance of the leg as a whole number;
- "direction": "north", "south", "east" or "west" (lower case);
- "destination": the place where the leg ends.
Spell origin and destination exactly as in the list of known places; copy the name from the description only for a place that is not in the list. If the description contains no route (for example, the assistant says it does not know), give an empty list.

Format: {"hops": [{"origin": "...", "kilometers": 1, "direction": "north", "destination": "..."}], "reason": "..."}""",
        fields=("answer", "places"),
    ),
    "restaurant": Prompt(
        system=(
            "You read what a customer said to a waiter in a restaurant and write down what the customer is "
            f"ordering. {_JSON_ONLY}"
        ),
        template="""Dishes on the menu:
$menu

Drinks on offer:
$drinks

What the customer said:
<reply>
$reply
</reply>

Fill in:
- "dishes": the dishes from the menu that the customer orders or asks to be brought, spelled as on the menu;
- "drinks": the drinks on offer that the customer orders or asks to be brought, spelled as in the list;
- "other": a short description of anything else the customer orders that is in neither list, or null if nothing.
Leave out what the customer only mentions without ordering it: items declined or ruled out, items only asked about, and items the customer thanks the waiter for having brought.
- "reason": one short sentence.

Format: {"dishes": ["..."], "drinks": ["..."], "other": "..." or null, "reason": "..."}""",
        fields=("reply", "menu", "drinks"),
    ),
    "items": Prompt(
        system=(
            "You are an expert grader of memory tests. You compare an AI's free-text answer with a list of "
            f"ground-truth items and score how many of them it recalls. {_JSON_ONLY}"
        ),
        template="""Question:
<question>
$question
</question>

Kind of information asked for: $retrieval_type

Ground-truth items, in order ($count in all; an item may repeat, and each occurrence is scored on its own):
$ground_truth

The AI's answer:
<answer>
$answer
</answer>

Your tasks:
1. "identified": list each distinct item in the answer that is relevant to the kind of information asked for, in the order they appear in the answer, in the answer's own words. If the answer says, even in part, that it has no such information, cannot answer, or that there is none, give an empty list.
2. "matching": give exactly $count scores, one per ground-truth item in the order above: 1 if the answer contains the item (synonyms, paraphrases and close meanings count), 0.5 if the answer contains something related to it without stating it explicitly, 0 if the item is missing.
3. "reason": one or two short sentences.

Format: {"identified": ["..."], "matching": [1, 0.5, 0], "reason": "..."}""",
        fields=("question", "retrieval_type", "ground_truth", "answer"),
    ),
    "order": Prompt(
        system=(
            "You align a predicted list with a ground-truth list, item by item, keeping track of which "
            f"ground-truth items are already taken. {_JSON_ONLY}"
        ),
        template="""Ground-truth list:
$ground_truth

Predicted list ($count items):
$predicted

Go through the predicted items in order. For each one, give the index of the first ground-truth item that it matches (the same thing, possibly named differently) and that no earlier predicted item has taken. Give -1 if it matches nothing, or if every ground-truth item it matches is already taken. Always take the earliest available matching index, even when a later ground-truth item matches more exactly. Give exactly $count indexes.

Example: ground truth [0] Morning Yoga Class, [1] Book Fair, [2] Jazz Concert; predicted [0] Jazz Night, [1] Poetry Reading, [2] Yoga Session -> {"predicted_indexes": [2, -1, 0]}

Format: {"predicted_indexes": [0, -1, 1], "reason": "..."}""",
        fields=("predicted", "ground_truth"),
    ),
    "nugget": Prompt(
        system=(
            "You are a careful examiner. You check whether a response to a question satisfies one criterion of "
            f"a grading rubric, and score it. {_JSON_ONLY}"
        ),
        template="""Question:
<question>
$question
</question>

Criterion:
<criterion>
$nugget
</criterion>

Response:
<response>
$answer
</response>

How to decide:
- A criterion is either a requirement (something the response must contain) or a prohibition (something the response must not do or say; usually worded with "no", "not", "never", "without" or "avoid").
- A response that does not address the question scores 0, whatever the criterion, prohibitions included.
- Judge meaning, not wording: paraphrases and synonyms count; case and punctuation do not matter; numbers, amounts and dates are compared by value (for example "68k" and "$$68,000" are the same amount).
- Ignore style, tone and length unless the criterion is about them.
- A criterion with several parts: 1 if all parts are met, 0.5 if only some are, 0 if none is.

Scores:
- 1: the requirement is fully met, or the prohibition is fully respected by a response that addresses the question;
- 0.5: the requirement is partly met, or the prohibition is respected only in part;
- 0: the requirement is not met or is contradicted, or the prohibition is broken.

Format: {"score": 0, 0.5 or 1, "reason": "..."}""",
        fields=("question", "nugget", "answer"),
    ),
    "equivalence": Prompt(
        system=(
            "You decide whether two short texts state the same event or the same fact. The wording may "
            f"differ; the meaning must be the same. {_JSON_ONLY}"
        ),
        template="""First text:
<first>
$first
</first>

Second text:
<second>
$second
</second>

Format: {"equivalent": true or false}""",
        fields=("first", "second"),
    ),
    "interpretation": Prompt(
        system=(
            "You check how someone decoded a coded message. You are given the message, a few words that a "
            f"correct decoding would mean, and the decoding. {_JSON_ONLY}"
        ),
        template="""Coded message:
<message>
$statement
</message>

A correct decoding means one of these (the same thing or a close synonym counts):
<meanings>
$keywords
</meanings>

Decoding given:
<decoding>
$answer
</decoding>

Repeating the coded message in its own words is not a decoding. Format: {"valid": true or false}""",
        fields=("statement", "keywords", "answer"),
    ),
    "answer": Prompt(
        system=(
            "You grade an assistant's answer to a question about an earlier conversation against the expected "
            f"answer, by the rule you are given. {_JSON_ONLY}"
        ),
        template="""Question:
<question>
$question
</question>

Expected answer:
<expected>
$expected
</expected>

The assistant's answer:
<answer>
$answer
</answer>

Rule ($rule): $guidance

Format: {"correct": true or false, "reason": "one short sentence"}""",
        fields=("question", "expected", "answer", "rule"),
        guidance=ANSWER_RULES,
    ),
}

assert set(PROMPTS) == set(TASK_KINDS)


def prompt_hash(kind: str) -> str:
    """The first 12 hex digits of the sha256 of the kind's system prompt and template."""
    return hashlib.sha256(_prompt(kind).text.encode("utf-8")).hexdigest()[:12]


def render(kind: str, payload: Mapping[str, Any]) -> tuple[str, str]:
    """(system prompt, user message) for a task; ValueError if the payload lacks a field."""
    prompt = check_payload(kind, payload)
    values = {name: _render_value(name, payload[name]) for name in prompt.fields}
    if kind == "items":
        values["count"] = str(len(_strings(payload["ground_truth"], "ground_truth")))
    elif kind == "order":
        values["count"] = str(len(_strings(payload["predicted"], "predicted")))
    if prompt.guidance:
        values["guidance"] = prompt.guidance[str(payload["rule"])]
    return prompt.system, Template(prompt.template).substitute(values)


def check_payload(kind: str, payload: Mapping[str, Any]) -> Prompt:
    """The kind's prompt; ValueError if the payload lacks one of its fields (a bug in the scorer)."""
    prompt = _prompt(kind)
    if not isinstance(payload, Mapping):
        raise ValueError(f"judge task {kind!r}: the payload must be a mapping")
    missing = [name for name in prompt.fields if name not in payload]
    if missing:
        raise ValueError(f"judge task {kind!r} needs payload field(s) {', '.join(missing)}")
    if prompt.guidance and payload["rule"] not in prompt.guidance:
        raise ValueError(f"judge task {kind!r}: rule {payload['rule']!r} is not one of {', '.join(prompt.guidance)}")
    return prompt


def _prompt(kind: str) -> Prompt:
    try:
        return PROMPTS[kind]
    except KeyError:
        raise ValueError(f"unknown judge task {kind!r}; known: {', '.join(TASK_KINDS)}") from None


_NUMBERED = ("ground_truth", "predicted")
_LISTED = ("places", "menu", "drinks", "keywords")


def _render_value(name: str, value: Any) -> str:
    if name in _NUMBERED:
        items = _strings(value, name)
        return "\n".join(f"[{index}] {item}" for index, item in enumerate(items)) or "(empty)"
    if name in _LISTED:
        return json.dumps(_strings(value, name), ensure_ascii=False)
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _strings(value: Any, name: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ValueError(f"payload field {name!r} must be a list of strings")
    return [str(item) for item in value]


# -- checking replies ---------------------------------------------------------------------------


def validate(kind: str, data: Any, payload: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`data` checked against the kind's schema and normalised; ValueError(reason) if unusable.

    With the task's `payload`, the checks that depend on it are made too: `matching` has one score
    per ground-truth item, `predicted_indexes` one index per predicted item and none past the
    ground truth; names that differ from the payload's lists only in case are respelled.
    """
    _prompt(kind)
    if kind == "directions" and isinstance(data, list):
        data = {"hops": data}  # a bare list of legs is unambiguous
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {_type_name(data)}")
    result = _VALIDATORS[kind](data, payload or {})
    reason = data.get("reason", data.get("explanation"))
    if isinstance(reason, str) and reason.strip():
        result["reason"] = " ".join(reason.split())
    return result


def _reference(data: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    refers = _bool(data, "refers")
    is_number = _bool(data, "expected_is_number")
    numbers_match = _bool(data, "numbers_match", nullable=True)
    if not is_number:
        numbers_match = None  # meaningless then; the schema says null
    return {"refers": refers, "expected_is_number": is_number, "numbers_match": numbers_match}


def _sentence(data: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    present = _bool(data, "present")
    extracted = _text(data, "extracted", nullable=True, missing_ok=True)
    return {"present": present, "extracted": (extracted or None) if present else None}


def _directions(data: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
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


def _restaurant(data: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    menu, drinks = _payload_strings(payload, "menu"), _payload_strings(payload, "drinks")
    other = _text(data, "other", nullable=True, missing_ok=True)
    return {
        "dishes": _unique(_respell(name, menu) for name in _string_list(data, "dishes")),
        "drinks": _unique(_respell(name, drinks) for name in _string_list(data, "drinks")),
        "other": other.strip() or None if other else None,
    }


def _items(data: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
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


def _order(data: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    raw = _field(data, "predicted_indexes")
    if not isinstance(raw, list):
        raise ValueError(f"'predicted_indexes' must be a list, got {_type_name(raw)}")
    indexes = [_index(value, number) for number, value in enumerate(raw)]
    if "predicted" in payload and len(indexes) != len(payload["predicted"]):
        raise ValueError(f"'predicted_indexes' has {len(indexes)} entries for {len(payload['predicted'])} predicted items")
    if "ground_truth" in payload:
        size = len(payload["ground_truth"])
        beyond = [index for index in indexes if index >= size]
        if beyond:
            raise ValueError(f"index {beyond[0]} is past the {size}-item ground truth")
    return {"predicted_indexes": indexes}


def _nugget(data: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    return {"score": _score(_field(data, "score"), "score")}


def _equivalence(data: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    return {"equivalent": _bool(data, "equivalent")}


def _interpretation(data: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    return {"valid": _bool(data, "valid")}


def _answer(data: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    if "correct" not in data and isinstance(data.get("label"), str):  # the pipelines' {"label": "CORRECT"}
        label = data["label"].strip().upper()
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


def _field(data: dict[str, Any], name: str) -> Any:
    if name not in data:
        raise ValueError(f"missing field {name!r}")
    return data[name]


def _bool(data: dict[str, Any], name: str, *, nullable: bool = False) -> bool | None:
    value = data.get(name, _MISSING)
    if value is _MISSING:
        if nullable:
            return None
        raise ValueError(f"missing field {name!r}")
    if value is None and nullable:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{name!r} must be true or false, got {_short(value)}")


def _text(data: dict[str, Any], name: str, *, nullable: bool = False, missing_ok: bool = False) -> Any:
    value = data.get(name, _MISSING)
    if value is _MISSING:
        if missing_ok:
            return None
        raise ValueError(f"missing field {name!r}")
    if value is None and nullable:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"{name!r} must be a string, got {_type_name(value)}")


def _string_list(data: dict[str, Any], name: str) -> list[str]:
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


def _whole_number(data: dict[str, Any], name: str, where: str) -> int:
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
    folded = " ".join(name.split()).casefold()
    for candidate in known:
        if " ".join(candidate.split()).casefold() == folded:
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
