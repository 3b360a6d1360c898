"""Trivia: the endless, deterministic sequence of questions with answers that filler is made of.

The facts are our own tables (`trivia_tables.py`, written for this project in place of the
TriviaQA questions GoodAI's reference used), asked in phrasings of our own (`trivia_facts.py`);
arithmetic and Roman numerals are generated here.

Everything is deterministic in (seed, index): `TriviaSource(seed).item(index)` never depends on
which items were drawn before, so an interrupted run resumes by remembering one integer.
`filler.py` turns the items into messages.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache

from pytest_memorybench.conversation.trivia_facts import FACTS, TriviaItem, catalogue

# ------------------------------------------------------------------------------------------------
# Generated families: arithmetic and Roman numerals, drawn from the item's own Random.
# ------------------------------------------------------------------------------------------------

_ARITHMETIC_PHRASINGS: dict[str, tuple[str, ...]] = {
    "times": ("What is {a} times {b}?", "What is {a} multiplied by {b}?",
              "What do you get when you multiply {a} by {b}?"),
    "plus": ("What is {a} plus {b}?", "What is the sum of {a} and {b}?",
             "What do you get if you add {b} to {a}?"),
    "minus": ("What is {a} minus {b}?", "What is {b} subtracted from {a}?",
              "What is left when you take {b} away from {a}?"),
}  # fmt: skip
_OPERATIONS: dict[str, Callable[[int, int], int]] = {
    "times": lambda a, b: a * b,
    "plus": lambda a, b: a + b,
    "minus": lambda a, b: a - b,
}


def arithmetic(a: int, op: str, b: int, phrasing: int = 0) -> TriviaItem:
    """`arithmetic(17, "times", 6)` -> "What is 17 times 6?" / "102"."""
    templates = _ARITHMETIC_PHRASINGS[op]
    question = templates[phrasing % len(templates)].format(a=a, b=b)
    return TriviaItem(question, str(_OPERATIONS[op](a, b)), "arithmetic")


def arithmetic_item(rng: random.Random) -> TriviaItem:
    """A small sum whose answer is computed, never stored: unlimited fresh questions."""
    op = rng.choice(("times", "plus", "minus"))
    if op == "times":
        a, b = rng.randint(2, 19), rng.randint(2, 12)
    elif op == "plus":
        a, b = rng.randint(10, 499), rng.randint(10, 499)
    else:
        a = rng.randint(20, 999)
        b = rng.randint(1, a - 1)
    return arithmetic(a, op, b, rng.randrange(3))


_ROMAN = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
    (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)  # fmt: skip


def to_roman(n: int) -> str:
    """`n` in standard Roman numerals (1 to 3999)."""
    if not 0 < n < 4000:
        raise ValueError(f"no standard Roman numeral for {n}")
    out = []
    for value, letters in _ROMAN:
        count, n = divmod(n, value)
        out.append(letters * count)
    return "".join(out)


def roman_item(rng: random.Random) -> TriviaItem:
    """A generated question about a Roman numeral, either way round."""
    n = rng.randint(1, 100) if rng.random() < 0.7 else rng.randint(1000, 2100)
    numeral = to_roman(n)
    if rng.random() < 0.5:
        question = rng.choice(
            (
                f"What number does the Roman numeral {numeral} stand for?",
                f"Which number is written {numeral} in Roman numerals?",
            )
        )
        return TriviaItem(question, str(n), "roman numerals")
    question = rng.choice((f"How is {n} written in Roman numerals?", f"What is {n} in Roman numerals?"))
    return TriviaItem(question, numeral, "roman numerals")


_GENERATORS: dict[str, Callable[[random.Random], TriviaItem]] = {
    "arithmetic": arithmetic_item,
    "roman numerals": roman_item,
}
# How many generated slots each pass over the tables gets, besides one slot per fact.
_GENERATED_SLOTS: dict[str, int] = {
    "arithmetic": len(FACTS) // 6,
    "roman numerals": len(FACTS) // 25,
}


# ------------------------------------------------------------------------------------------------
# The endless deterministic sequence.
# ------------------------------------------------------------------------------------------------

_Slot = int | str  # index into FACTS, or the name of a generator
_POOL: tuple[_Slot, ...] = tuple(range(len(FACTS))) + tuple(
    name for name, count in _GENERATED_SLOTS.items() for _ in range(count)
)
PASS_ITEMS = len(_POOL)  # items in one pass over every fact: filler builds and keeps a pass at a time


@lru_cache(maxsize=16)
def _pass_order(seed: int, cycle: int) -> tuple[_Slot, ...]:
    """One shuffled pass over the pool: no fact repeats until every fact has been asked."""
    order = list(_POOL)
    random.Random(f"filler-order|{seed}|{cycle}").shuffle(order)
    return tuple(order)


class TriviaSource:
    """An endless sequence of trivia items; `item(i)` depends only on (seed, i).

    The sequence walks shuffled passes over all facts (plus slots for generated arithmetic and
    Roman numerals), so questions do not repeat until the tables are used up, and no state beyond
    the next index is needed to resume.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __repr__(self) -> str:
        return f"TriviaSource(seed={self.seed})"

    def item(self, index: int) -> TriviaItem:
        if index < 0:
            raise ValueError("trivia indices start at 0")
        cycle, position = divmod(index, len(_POOL))
        slot = _pass_order(self.seed, cycle)[position]
        rng = random.Random(self.seed * 1_000_003 + index)  # an int seeds much faster than a str
        if isinstance(slot, str):
            return _GENERATORS[slot](rng)
        fact = FACTS[slot]
        return fact.phrased(rng.randrange(len(fact.templates)))


__all__ = [  # the facts' names too: the items and their checks are asked of this module
    "FACTS",
    "PASS_ITEMS",
    "TriviaItem",
    "TriviaSource",
    "arithmetic",
    "arithmetic_item",
    "catalogue",
    "roman_item",
    "to_roman",
]
