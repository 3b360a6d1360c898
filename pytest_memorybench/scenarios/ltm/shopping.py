"""Shopping (skills R, C, I): the user changes their shopping list several times, then asks for it.

GoodAI paper App. A.6, with the reference's generation rules (research/goodai.md §2): twelve
items; each change first decides between removing and adding — it removes only when the list is
not empty, and then with probability 1/6 (the reference's `randint(1, 6) < 2`): a random item on
the list and 1 up to its current count of it; otherwise it adds 1–3 of a random item, saying
"another" when some of that item is already on the list.  The standard configuration makes six
changes.  The expected answer is the final list, [item, quantity] pairs in the order the items
were first added, names in lower case; an item whose count drops to 0 leaves the list.  The item
list, the statement templates, the question's wording and the reset statement are our own; the
statements use the plural for quantities above one ("3 lemons"), the expected names are singular.

Scoring (one question): the reply must parse (leniently: code fences, leading prose, trailing
commas …, `scoring.jsonlist.parse_lenient_json`) to a list of objects with a string `item` and an
integer `quantity`, else it scores 0 with the reason.  Then, with n expected items, the score is
the mean of three thirds (App. A.6.1 "an averaged composite of three factors"):
items present (#expected items listed / n), right quantities (#listed with the expected quantity
/ n) and nothing hallucinated (1 if no entry is unexpected, else 0).
  paper     an entry names an expected item when it contains the item's name as whole words, the
            last one possibly in the plural ("Lemons", "light bulbs", "bags of rice" would match
            "rice"); "buttermilk" does not name milk.  Each expected item is credited once: a second
            entry for the same item was not consolidated, as the question asks, and counts as an
            unexpected entry (it costs the third factor, and the quantity of the first entry is
            the one checked).  An object with a single list-valued property (`{"shopping_list":
            [...]}`, the wrapper of App. B.3, which the authors credited by hand) is read as that
            list.  A quantity may also be written as an integral number (2.0) or a digit string
            ("2").  An empty expected list makes the first two thirds 1 (nothing to find).
  official  the reference's rule: an entry names the first expected item that is a *substring* of
            its lower-cased name ("buttermilk" names milk), and every such entry counts, so a list
            that repeats an item can count it twice and reach more than the maximum (the score is
            then capped at 1 and the reasons say so).  The reply must be the list itself (a wrapper
            object scores 0, as the reference's automatic verdict did) and quantities must be JSON
            integers (the reference's `isinstance(q, int)`, which lets `true` pass as 1).  The
            reference divides by zero on an empty expected list; here the first two thirds are 1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import (
    GoodAIDefinitionFile,
    goodai_definition,
    goodai_format,
)
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least
from pytest_memorybench.scenarios.waits import spread_script
from pytest_memorybench.scoring.jsonlist import parse_lenient_json
from pytest_memorybench.scoring.profiles import OFFICIAL, PROFILES

NAME = "ltm.shopping"
SKILLS = ("recall", "conflicting_information", "information_integration")
QUESTION = (
    "What is on my shopping list right now? Answer with a JSON list of objects that have just two "
    "properties, `item` and `quantity`, and merge entries for the same item into one."
)
RESET_MESSAGE = (
    "I have bought everything that was on my shopping list, so please clear it: the list is empty now."
)
REMOVE_ONE_IN = 6  # when the list is not empty, a change removes something with probability 1/6

# (singular, plural): no singular is a substring of another item's name, so the reference's
# substring match cannot confuse two items.
ITEMS = (
    ("Apple", "Apples"), ("Banana", "Bananas"), ("Onion", "Onions"), ("Tomato", "Tomatoes"),
    ("Lemon", "Lemons"), ("Cucumber", "Cucumbers"), ("Egg", "Eggs"), ("Baguette", "Baguettes"),
    ("Candle", "Candles"), ("Sponge", "Sponges"), ("Light Bulb", "Light Bulbs"), ("Yogurt", "Yogurts"),
)  # fmt: skip
PLURALS = dict(ITEMS)

ADD_TEMPLATES = (
    "Please put {another}{number} {item} on my shopping list.",
    "Add {another}{number} {item} to the shopping list, please.",
    "I need to buy {another}{number} {item}.",
)
REMOVE_TEMPLATES = (
    "Take {number} {item} off my shopping list.",
    "I already got {number} {item}, so please remove {them} from the list.",
)


@dataclass(frozen=True)
class ShoppingParams:
    """How many times items are added to or taken off the list."""

    item_changes: int = 6

    def __post_init__(self) -> None:
        at_least("item_changes", self.item_changes, 1)


def _noun(number: int, item: str) -> str:
    """The item's name as said after `number`: singular for one, plural otherwise."""
    return (item if number == 1 else PLURALS[item]).lower()


def ideal_answer(expected: Sequence[Sequence[Any]]) -> str:
    """The list as the JSON a perfect agent replies with."""
    return json.dumps(
        [{"item": name, "quantity": quantity} for name, quantity in expected], ensure_ascii=False
    )


class Shopping:
    """`ltm.shopping`: what the shopping list holds after every change."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(ShoppingParams, NAME, params, seed, repetition)
        cart: dict[str, int] = {}  # singular name -> count, in the order first added
        lines: list[str] = []
        for _ in range(settings.item_changes):
            if cart and rng.randint(1, REMOVE_ONE_IN) < 2:
                item = rng.choice(list(cart))
                number = rng.randint(1, cart[item])
                cart[item] -= number
                if cart[item] == 0:
                    del cart[item]
                template = rng.choice(REMOVE_TEMPLATES)
                lines.append(
                    template.format(
                        number=number, item=_noun(number, item), them="it" if number == 1 else "them"
                    )
                )
            else:
                item = rng.choice(ITEMS)[0]
                number = rng.randint(1, 3)
                another = "another " if item in cart else ""
                cart[item] = cart.get(item, 0) + number
                template = rng.choice(ADD_TEMPLATES)
                lines.append(template.format(another=another, number=number, item=_noun(number, item)))
        lines.append(QUESTION)
        script = spread_script(lines)
        expected = [[item.lower(), count] for item, count in cart.items()]
        ideal = (ideal_answer([[item, count] for item, count in cart.items()]),)
        params = asdict(settings)
        return definition(
            self, suite, repetition, seed, script, ideal, expected, params, reset_message=RESET_MESSAGE
        )

    def superseded(self, definition: TestDefinition) -> list[str]:
        """The items said and then taken off the list entirely, singular and plural: what the final
        list replaced (`contract/stale.py`).  Read from the script, for the items of `ITEMS` its
        lines name, so a GoodAI definition file's count too; an item whose quantity changed but stays
        on the list is not a value an answer can name wrongly by its words, and is left out."""
        said = "\n".join(line.text for line in definition.script if not line.is_question)
        kept = {str(name).lower() for name, _ in definition.expected}
        return [
            form
            for singular, plural in ITEMS
            if singular.lower() not in kept and re.search(rf"\b({singular}|{plural})\b", said, re.IGNORECASE)
            for form in (singular.lower(), plural.lower())
        ]

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI Shopping definition file: its script and waits as they are, its [item, quantity] pairs."""
        expected = [[str(name).lower(), int(quantity)] for name, quantity in raw["expected_responses"]]
        ideal = (ideal_answer([[str(name).title(), quantity] for name, quantity in expected]),)
        return goodai_definition(
            self, raw, example_id, suite, repetition, ideal, expected, reset_message=RESET_MESSAGE
        )

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
        reply = responses[-1] if responses else ""
        version = goodai_format(definition)
        if context.profile == OFFICIAL and version < 3:
            verdict = score_shopping_older(definition.expected, reply, penalise_unknown=version == 2)
            return Score(
                verdict.value, (*verdict.reasons, f"{context.profile} profile, Benchmark {version} rule")
            )
        return score_shopping(definition.expected, reply, context.profile)


# -- scoring -----------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def _paper_quantity(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _read_entries(reply: str, profile: str) -> tuple[list[tuple[str, Any]] | None, list[str]]:
    """The (item, quantity) entries of the reply, or None and the reason it is not in the right format."""
    try:
        data = parse_lenient_json(reply)
    except ValueError as error:
        return None, [f"not in the correct format: {error}"]
    notes: list[str] = []
    if isinstance(data, dict) and profile != OFFICIAL:
        lists = [(key, value) for key, value in data.items() if isinstance(value, list)]
        if len(lists) == 1:
            key, data = lists[0]
            notes.append(f"read the list under the property {key!r} of a JSON object")
    if not isinstance(data, list):
        return None, [f"not in the correct format: the reply parses to a JSON {_kind(data)}, not a list"]
    entries: list[tuple[str, Any]] = []
    for entry in data:
        if not isinstance(entry, dict) or "item" not in entry or "quantity" not in entry:
            return None, [f"not in the correct format: {entry!r} is not an object with `item` and `quantity`"]
        item, quantity = entry["item"], entry["quantity"]
        if not isinstance(item, str):
            return None, [f"not in the correct format: the item {item!r} is not a string"]
        if profile == OFFICIAL:
            if not isinstance(quantity, int):  # bool passes, as in the reference
                return None, [f"not in the correct format: the quantity {quantity!r} is not a JSON integer"]
        else:
            quantity = _paper_quantity(quantity)
            if quantity is None:
                given = entry["quantity"]
                return None, [f"not in the correct format: the quantity {given!r} is not a whole number"]
        entries.append((item, quantity))
    return entries, notes


def _names_item(answer: str, expected: str) -> bool:
    """Whether `answer` names `expected` as whole words, its last word possibly plural (paper rule)."""
    words = expected.lower().split()
    last = words[-1]
    if last.endswith("y") and len(last) > 1 and last[-2] not in "aeiou":
        last_pattern = re.escape(last[:-1]) + "(?:y|ies)"
    else:
        last_pattern = re.escape(last) + "(?:s|es)?"
    pattern = r"\s+".join([*(re.escape(word) for word in words[:-1]), last_pattern])
    return re.search(rf"(?<![\w-]){pattern}(?![\w-])", answer.lower()) is not None


def score_shopping_older(expected: Sequence[Sequence[Any]], reply: str, *, penalise_unknown: bool) -> Score:
    """Benchmarks 1 and 2's rule: a point per listed item with the right quantity (its name singular
    or plural), over the expected count; Benchmark 2 also takes a point off per entry naming no
    expected item (the total at least 0).  A reply that is not a list of `item`/`quantity` objects
    scores 0."""
    entries, reasons = _read_entries(reply, OFFICIAL)
    if entries is None:
        return Score(0.0, tuple(reasons))
    wanted = {str(name).lower(): quantity for name, quantity in expected}
    right = penalties = 0
    for item, quantity in entries:
        name = item.lower()
        key = next((w for w in wanted if name in (w, f"{w}s", f"{w}es") or w == f"{name}s"), None)
        if key is None:
            penalties += 1
            reasons.append(f"unknown item {name!r}")
        elif quantity == wanted[key]:
            right += 1
        else:
            reasons.append(f"wrong quantity for {name!r}: {quantity!r} instead of {wanted[key]}")
    points = max(right - penalties, 0) if penalise_unknown else right
    reasons.append(
        f"{right} right"
        + (f" − {penalties} unknown" if penalise_unknown else "")
        + f" = {points} of {len(wanted)}"
    )
    return Score(points / len(wanted) if wanted else 1.0, tuple(reasons))


def score_shopping(expected: Sequence[Sequence[Any]], reply: str, profile: str) -> Score:
    """The three-part composite of App. A.6.1 under `profile` (see the module docstring)."""
    if profile not in PROFILES:
        raise ValueError(f"unknown scoring profile {profile!r}")
    entries, reasons = _read_entries(reply, profile)
    if entries is None:
        return Score(0.0, (*reasons, f"{profile} profile"))
    wanted = {str(name).lower(): quantity for name, quantity in expected}
    total = len(wanted)
    present = right = 0
    extras: list[str] = []
    credited: set[str] = set()
    for item, quantity in entries:
        name = item.lower()
        if profile == OFFICIAL:
            key = next((w for w in wanted if w in name), None)
        else:
            key = next((w for w in wanted if _names_item(name, w)), None)
            if key is not None and key in credited:
                extras.append(name)
                reasons.append(f"{item!r} is listed again: entries for the same item were not consolidated")
                continue
        if key is None:
            extras.append(name)
            continue
        credited.add(key)
        present += 1
        if quantity == wanted[key]:
            right += 1
        else:
            reasons.append(f"wrong quantity for {name!r}: {quantity!r} instead of {wanted[key]}")
    missing = [name for name in wanted if name not in credited]
    if missing:
        reasons.append(f"missing from the reply: {', '.join(repr(name) for name in missing)}")
    if extras:
        reasons.append(f"unexpected entries: {', '.join(repr(name) for name in extras)}")
    thirds = (
        present / total if total else 1.0,
        right / total if total else 1.0,
        0.0 if extras else 1.0,
    )
    raw = sum(thirds) / 3
    reasons.append(
        f"items present {present}/{total}, right quantities {right}/{total}, "
        f"nothing unexpected {'yes' if not extras else 'no'}: score {raw:.3f}"
        + ("" if total else " (nothing was expected: the first two thirds are 1)")
    )
    if raw > 1.0:
        reasons.append("repeated entries counted more than once, as the reference does: capped at 1")
        raw = 1.0
    return Score(raw, (*reasons, f"{profile} profile"))


SCENARIO = Shopping()
