"""The LLM judge's prompts, one per task kind, and the check of what comes back.

Each task kind (see `base.py`) has a system prompt and a user template; `render(kind, payload)`
fills the template.  The wording is ours; the meaning follows the papers' judge prompts:
GoodAI LTM (reference checker, sentence extraction, route conversion, restaurant order parsing),
the episodic-memory benchmark (item matching and list alignment), BEAM (rubric nuggets and fact
equivalence), the LoCoMo evaluation pipelines' generous "J" grader and LongMemEval's per-type answer
checks (`ANSWER_RULES`).  Every prompt asks for one JSON object and nothing else.

`prompt_hash(kind)` fingerprints a template, so results can say which wording produced them;
changing a prompt changes its hash and, through the rendered text, every cache key.  What comes
back is checked by `replies.validate`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from string import Template
from typing import Any

from pytest_memorybench.judges.base import TASK_KINDS

_JSON_ONLY = "Reply with a single JSON object and nothing else: no code fences, no text before or after it."
# What a grader is shown after the question, in the tasks that grade an answer against the expected one.
_EXPECTED_AND_ANSWER = """Expected answer:
<expected>
$expected
</expected>

The assistant's answer:
<answer>
$answer
</answer>

"""


@dataclass(frozen=True)
class Prompt:
    """A task's prompt: the system text, the template its payload fills, and the wording its rules put in."""

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
        "The question is about something said earlier in a long conversation between two people. The expected"
        " answer is usually short. Be generous: the answer is correct when it is about the same thing as the"
        " expected answer, even if it is longer, worded differently or adds detail. For a question about"
        ' time, it is correct when it points to the same date or period, in any format ("7 May" and "May'
        ' 7th"), or relative to the conversation ("last week") when that lands on the same period. It is'
        " wrong when it names something else, declines, or says it does not know."
    ),
    "contains": (
        "The answer is correct when it contains the expected answer, says something equivalent to it, or"
        " gives every step that leads to it. It is wrong when it gives only part of what the expected answer"
        " requires, something else, or no answer."
    ),
    "days": (
        "The answer is correct when it contains the expected answer, says something equivalent to it, or"
        " gives every step that leads to it; it is wrong when it gives only part of it. A count of days,"
        " weeks or months that is off by one (19 days where 18 are expected) still counts as correct."
    ),
    "update": (
        "The expected answer is the most recent value of something that changed over time. The answer is"
        " correct when it gives that value as the current one, even if it also mentions what was true before."
        " It is wrong when it gives only an earlier value, or gives no answer."
    ),
    "preference": (
        "The expected answer is a rubric: what a response personalised to this user should do. The answer is"
        " correct when it recalls and uses the user's own preferences or circumstances as the rubric"
        " describes; it need not cover every point. It is wrong when it is generic, ignores the user's"
        " preferences, or contradicts them."
    ),
    "abstention": (
        "The question cannot be answered from the conversation; the expected answer explains why. The answer"
        " is correct when it says so: that the information was never given, is incomplete, or that something"
        " else was said but not what is asked. It is wrong when it answers the question as if it knew."
    ),
}

# The `answer` task's rules that exist for the rubric band (`rubrics.py`) alone: a more generous
# and a stricter reading than the benchmark's own.  Kept apart so that the hash of the official
# prompt, and with it every comparison of runs judged before the band existed, stays the same.
BAND_RULES: dict[str, str] = {
    "topic": (
        "Be very generous: the answer is correct as long as it touches the same subject as the expected"
        " answer, even if it is vague, incomplete, longer or worded differently. For a question about time,"
        " any date or period that overlaps the expected one counts. It is wrong only when it is about"
        " something else, declines, or says it does not know."
    ),
    "complete": (
        "Be strict: the answer is correct only when it states every element of the expected answer (each"
        " name, item, place, date and number), commits to it without hedging or offering alternatives, and"
        " says nothing that contradicts it. A date must be the same date at the same precision. It is wrong"
        " when it leaves out any element, is vaguer than the expected answer, lists other candidates, or"
        " declines."
    ),
}


PROMPTS: dict[str, Prompt] = {
    "reference": Prompt(
        system=(
            "You grade the answers of an assistant in a memory test. You are given the question it was"
            " asked, the answer that was expected, and the answer it actually gave, and you decide whether"
            f" its answer points to the expected one. {_JSON_ONLY}"
        ),
        template="""Question the assistant was asked:
<question>
$question
</question>

"""
        + _EXPECTED_AND_ANSWER
        + """Fill in these fields:
- "refers": true if the assistant's answer names or unmistakably describes the expected answer, in any wording (synonyms, paraphrases and partial quotations that leave no doubt all count); false if it gives something else, declines, or says it does not know or remember.
- "expected_is_number": true if the expected answer is a number or an amount.
- "numbers_match": if "expected_is_number" is true, whether the assistant's answer states the same value (in digits or in words, however formatted); null if the expected answer is not a number.
- "reason": one short sentence.

Format: {"refers": true or false, "expected_is_number": true or false, "numbers_match": true, false or null, "reason": "..."}""",
        fields=("question", "expected", "answer"),
    ),
    "sentence": Prompt(
        system=(
            "You look for one given sentence inside a piece of text written by an assistant, and copy out"
            f" the part of the text where it occurs. {_JSON_ONLY}"
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
            "You are a careful examiner. You check whether a response to a question satisfies one criterion"
            f" of a grading rubric, and score it. {_JSON_ONLY}"
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
            "You grade an assistant's answer to a question about an earlier conversation against the"
            f" expected answer, by the rule you are given. {_JSON_ONLY}"
        ),
        template="""Question:
<question>
$question
</question>

"""
        + _EXPECTED_AND_ANSWER
        + """Rule ($rule): $guidance

Format: {"correct": true or false, "reason": "one short sentence"}""",
        fields=("question", "expected", "answer", "rule"),
        guidance=ANSWER_RULES,
    ),
}

assert set(PROMPTS) == set(TASK_KINDS)


def prompt_hash(kind: str, rule: str | None = None) -> str:
    """The first 12 hex digits of the sha256 of the kind's system prompt and template (with a band
    rule: and that rule's wording)."""
    text = _prompt(kind).text + (f"\n\x00{rule}\n{BAND_RULES[rule]}" if rule in BAND_RULES else "")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def prompt_key(kind: str, payload: Mapping[str, Any]) -> str:
    """Under what name a task's prompt version is recorded: its kind, or `answer/RULE` for a band rule."""
    rule = payload.get("rule") if kind == "answer" else None
    return f"{kind}/{rule}" if rule in BAND_RULES else kind


def task_prompt_hash(kind: str, payload: Mapping[str, Any]) -> str:
    """The version of the prompt a task is asked with."""
    rule = payload.get("rule") if kind == "answer" else None
    return prompt_hash(kind, str(rule) if rule in BAND_RULES else None)


def render(kind: str, payload: Mapping[str, Any]) -> tuple[str, str]:
    """(system prompt, user message) for a task; ValueError if the payload lacks a field."""
    prompt = check_payload(kind, payload)
    values = {name: _render_value(name, payload[name]) for name in prompt.fields}
    if kind == "items":
        values["count"] = str(len(_strings(payload["ground_truth"], "ground_truth")))
    elif kind == "order":
        values["count"] = str(len(_strings(payload["predicted"], "predicted")))
    if prompt.guidance:
        values["guidance"] = _rules(prompt)[str(payload["rule"])]
    return prompt.system, Template(prompt.template).substitute(values)


def check_payload(kind: str, payload: Mapping[str, Any]) -> Prompt:
    """The kind's prompt; ValueError if the payload lacks one of its fields (a bug in the scorer)."""
    prompt = _prompt(kind)
    if not isinstance(payload, Mapping):
        raise ValueError(f"judge task {kind!r}: the payload must be a mapping")
    missing = [name for name in prompt.fields if name not in payload]
    if missing:
        raise ValueError(f"judge task {kind!r} needs payload field(s) {', '.join(missing)}")
    if prompt.guidance and payload["rule"] not in _rules(prompt):
        raise ValueError(
            f"judge task {kind!r}: rule {payload['rule']!r} is not one of {', '.join(_rules(prompt))}"
        )
    return prompt


def _rules(prompt: Prompt) -> Mapping[str, str]:
    """The rules a prompt with guidance takes: its own, and the band's."""
    return {**prompt.guidance, **BAND_RULES}


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
