"""Reading a diner's replies in the Restaurant scene: the menu, what was ordered, what was noticed.

Shared by the live scene and by the re-scoring of GoodAI's stored scenes (`restaurant.py`), whose
menu is GoodAI's own: a menu is data here, its items named as printed, drinks apart from dishes.

Before any reading, stage directions ("*smiles*", "[looks at the menu]") and a "Diner:" label are
removed, and a reply that goes on to write the waiter's lines is read only up to the first
"Waiter:" turn; "number 17" / "#17" is read as menu item 17.  Orders are read with the judge's
`restaurant` task (menu and drink names; things declined, asked about or thanked for are not
orders); off-menu things the judge reports that are drinks by our own word list ("a glass of
water", "a Pinot Noir") are drinks not on the list, which the reference accepts as a first order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from pytest_memorybench.judges.base import Judge, JudgeTask
from pytest_memorybench.judges.replies import RestaurantReply
from pytest_memorybench.scoring.judged import score_reference

NOTICE_SENTENCE = "This is not what I ordered."

# The word a drink's name ends in ("a glass of red wine", "sparkling water"); garnishes aside.
_DRINK_HEADS = frozenset(
    """water soda tonic lemonade juice smoothie milkshake milk tea coffee espresso latte cappuccino americano
    wine prosecco champagne cabernet merlot pinot sauvignon chardonnay riesling malbec shiraz beer lager ale
    stout cider cocktail mojito margarita martini gin whisky whiskey rum bourbon brandy sherry sake coke cola
    pepsi sprite fanta seltzer kombucha""".split()
)


@cache
def _solid() -> frozenset[str]:
    """Food words that are not drinks: the local judge's word lists, stemmed when first read."""
    from pytest_memorybench.judges.local.restaurant_words import DRINK_WORDS, FOOD_WORDS

    return frozenset((FOOD_WORDS - DRINK_WORDS) - {"lemon", "lime", "ice", "mint", "orange", "side"})


_MIXUP = re.compile(
    r"\b(?:not\s+what\s+i\s+(?:ordered|asked\s+for|wanted|requested)"
    r"|(?:didn'?t|did\s+not|never)\s+(?:order|ask\s+for|request)"
    r"|wrong\s+(?:dish|order|plate|meal|food|item|one)"
    r"|mix-?\s?up|mixed\s+up|(?:a|some)\s+mistake|mistaken|confusion|misunderstanding"
    r"|i\s+(?:actually\s+|originally\s+|had\s+)?(?:ordered|asked\s+for|requested)\s+(?:the|a|an)\b"
    r"|(?:that|this|it)(?:'s|\s+is|\s+was)?\s+(?:not|isn'?t|wasn'?t)\s+(?:the|my|mine|what)\b"
    r"|(?:isn'?t|is\s+not|wasn'?t|was\s+not)\s+(?:mine|my\s+order|what\s+i)"
    r"|(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:the\s+)?wrong"
    r"|where(?:'s|\s+is)\s+my\b)"
)
# A reply that steps out of the diner's role: the model says what it is instead of ordering.
_OUT_OF_ROLE = re.compile(
    r"\b(?:as\s+an?\s+(?:ai|artificial|language\s+model|virtual|digital|helpful)"
    r"|i(?:'m|\s+am)\s+(?:just\s+|only\s+)?(?:an?\s+)?(?:helpful\s+)?(?:ai|artificial|language\s+model|virtual\s+assistant|digital\s+assistant|chatbot|assistant)\b"
    r"|i\s+(?:don'?t|do\s+not|can'?t|cannot|am\s+unable\s+to)\s+(?:actually\s+)?(?:eat|drink|consume|taste|order\s+food))"
)
_STAGE_DIRECTION = re.compile(r"\*[^*\n]{1,300}\*|\[[^\]\n]{1,300}\]|\\\[[^\]\n]{1,300}\\\]")
_BOLD = re.compile(r"\*\*([^*\n]+)\*\*|__([^_\n]+)__")
_WAITER_TURN = re.compile(
    r"^\s*[*_<(]*(?:the\s+)?(?:waiter|server|waitress)(?:\s+response)?[*_>)]*\s*:",
    re.IGNORECASE | re.MULTILINE,
)
_DINER_LABEL = re.compile(
    r"^\s*[*_<(]*(?:the\s+)?(?:diner|customer|guest|me|you|assistant\s*\(as\s+customer\)|as\s+the\s+customer)[*_>)]*\s*:\s*",
    re.IGNORECASE | re.MULTILINE,
)
_ITEM_NUMBER = re.compile(r"(?:\bnumber|\bno\.|\bnr\.?|#)\s*(\d{1,2})\b", re.IGNORECASE)
_PARENTHESIS = re.compile(r"\s*\(([^)]*)\)\s*")


@dataclass(frozen=True)
class Menu:
    """The menu of a restaurant scene: its sections of dishes, and its drinks."""

    sections: tuple[tuple[str, tuple[str, ...]], ...]
    drinks: tuple[str, ...]

    @property
    def dishes(self) -> list[str]:
        return [dish for _, dishes in self.sections for dish in dishes]

    def numbered(self) -> list[str]:
        """Every item in menu order: dishes first, then drinks (item n is numbered[n - 1])."""
        return [*self.dishes, *self.drinks]

    def section_of(self, dish: str) -> tuple[str, ...]:
        return next((dishes for _, dishes in self.sections if dish in dishes), ())

    def text(self) -> str:
        number = 0
        blocks = []
        for section, dishes in (*self.sections, ("Drinks", self.drinks)):
            lines = [f"{section}:"]
            for item in dishes:
                number += 1
                lines.append(f"{number}. {item}")
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    @classmethod
    def from_expected(cls, expected: Mapping[str, Any]) -> Menu:
        sections = tuple((str(name), tuple(dishes)) for name, dishes in expected["menu"])
        return cls(sections, tuple(expected["drinks"]))

    @classmethod
    def from_text(cls, text: str) -> Menu:
        """A menu as a waiter's line prints it: "Section:" headings over "N. Item" lines.

        The section whose name says drinks ("Beverages", "Drinks") holds the drinks.
        """
        sections: list[tuple[str, list[str]]] = []
        for line in text.splitlines():
            heading = re.match(r"^\s*([A-Z][^:\n]{0,40}):\s*$", line)
            item = re.match(r"^\s*\d{1,3}[.)]\s+(.+?)\s*$", line)
            if heading:
                sections.append((heading.group(1).strip(), []))
            elif item and sections:
                sections[-1][1].append(item.group(1))
        drinks = [items for name, items in sections if re.search(r"beverage|drink", name, re.IGNORECASE)]
        dishes = tuple(
            (name, tuple(items))
            for name, items in sections
            if not re.search(r"beverage|drink", name, re.IGNORECASE)
        )
        return cls(dishes, tuple(drinks[0]) if drinks else ())


@dataclass(frozen=True)
class Order:
    """What a diner's reply orders, and what it asks for that the menu does not have."""

    dishes: list[str]
    drinks: list[str]
    off_menu: list[str]
    error: str | None = None
    other_drinks: tuple[str, ...] = ()  # drinks asked for that the menu does not list

    @property
    def all_drinks(self) -> list[str]:
        return [*self.drinks, *self.other_drinks]


def enumerate_items(items: Sequence[str]) -> str:
    """Items as prose: 'a, b and c'."""
    items = list(items)
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def diner_part(reply: str) -> tuple[str, bool]:
    """The diner's own words, and whether the reply goes on to speak for the waiter.

    Stage directions in asterisks or brackets are dropped (bold text is kept), a "Diner:" label is
    removed, and everything from a "Waiter:" turn on is cut.
    """
    text = _BOLD.sub(lambda match: match.group(1) or match.group(2), reply or "")
    text = _STAGE_DIRECTION.sub(" ", text)
    text = (
        _WAITER_TURN.sub("", text, count=1) if _WAITER_TURN.match(text) else text
    )  # the diner's own line, mislabelled
    waiter = _WAITER_TURN.search(text)
    if waiter:
        text = text[: waiter.start()]
    text = _DINER_LABEL.sub("", text)
    return " ".join(text.split()), waiter is not None


def breaks_role(text: str) -> bool:
    """The reply speaks as an AI assistant ("I don't eat or drink, but I can recommend…")."""
    from pytest_memorybench.judges.local.text import clean

    return bool(_OUT_OF_ROLE.search(clean(text)))


def resolve_numbers(text: str, menu: Menu) -> str:
    """ "number 17" / "#17" → "number 17 (<item 17>)", so a judge reading names sees the item."""
    items = menu.numbered()

    def name(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return f"{match.group(0)} ({items[index - 1]})" if 1 <= index <= len(items) else match.group(0)

    return _ITEM_NUMBER.sub(name, text)


def _on_list(name: str, known: Sequence[str]) -> str | None:
    from rapidfuzz import fuzz, process

    from pytest_memorybench.judges.local.text import clean

    if name in known:
        return name
    found = process.extractOne(
        name, list(known), scorer=fuzz.token_set_ratio, processor=clean, score_cutoff=85
    )
    return found[0] if found else None


async def read_order(judge: Judge, text: str, menu: Menu, *, scorer: str) -> Order:
    """What the diner's words order, as menu dishes, drinks and off-menu things (judge `restaurant`)."""
    verdict = await judge.judge(
        JudgeTask(
            "restaurant",
            {"reply": resolve_numbers(text, menu), "menu": menu.dishes, "drinks": list(menu.drinks)},
            scorer,
        )
    )
    if not verdict.ok:
        return Order([], [], [], verdict.error or "the judge gave no verdict")
    data = cast(RestaurantReply, verdict.data or {})
    dishes: list[str] = []
    drinks: list[str] = []
    off_menu: list[str] = [str(data["other"])] if data.get("other") else []
    for name in data.get("dishes", []):
        dish = _on_list(str(name), menu.dishes)
        if dish is None:
            off_menu.append(str(name))
        elif dish not in dishes:
            dishes.append(dish)
    for name in data.get("drinks", []):
        drink = _on_list(str(name), menu.drinks)
        if drink is not None and drink not in drinks:
            drinks.append(drink)
    pieces = _not_fragments(off_menu, [*dishes, *drinks])
    other_drinks = tuple(piece for piece in pieces if is_drink(piece))
    return Order(
        dishes, drinks, [piece for piece in pieces if piece not in other_drinks], other_drinks=other_drinks
    )


def is_drink(name: str) -> bool:
    """A thing ordered is a drink when a word of it names one and none names food ("water with lemon")."""
    from pytest_memorybench.judges.local.text import clean

    words = set(re.findall(r"[a-z]+", clean(_PARENTHESIS.sub(" ", name))))
    return bool(words & _DRINK_HEADS) and not words & _solid()


def _not_fragments(pieces: Sequence[str], found: Sequence[str]) -> list[str]:
    """Off-menu pieces that are not just part of an item already found ("the lemon" of "Lemon and
    Thyme Roast Chicken", which a judge splitting at "and" may report apart)."""
    from pytest_memorybench.judges.local.text import analyse

    words = [set(analyse(name).content) for name in found]
    kept = []
    for piece in (part.strip() for text in pieces for part in text.split(",")):
        content = set(analyse(piece).content)
        if piece and content and not any(content <= name for name in words):
            kept.append(piece)
    return kept


async def noticed_mixup(
    judge: Judge, text: str, ordered: str, served: str, *, scorer: str
) -> tuple[bool, str]:
    """Whether the diner points out that `served` came instead of `ordered`, and how we know."""
    from pytest_memorybench.judges.local.text import clean

    cue = _MIXUP.search(clean(text))
    if cue:
        return True, f"the diner notices the mix-up ({cue.group(0)!r})"
    verdict = await judge.judge(JudgeTask("sentence", {"answer": text, "sentence": NOTICE_SENTENCE}, scorer))
    if verdict.ok and (verdict.data or {}).get("present"):
        return True, f"the diner says the dish is not what they ordered (judge {judge.name})"
    reference = await score_reference(
        judge,
        question=(
            f"The waiter served the {served} instead of the {ordered}. Which dish does the diner say they"
            " ordered?"
        ),
        expected=ordered,
        answer=text,
        scorer=scorer,
    )
    if reference.value == 1.0:
        return True, f"the diner asks for the {ordered} they ordered (judge {judge.name})"
    return False, f"the diner does not notice that the {served} was served instead of the {ordered}"


async def recalls_drinks(judge: Judge, text: str, drinks: str, *, scorer: str) -> bool:
    """Whether the diner's answer names the drink(s) ordered at the start (judge `reference`)."""
    recall = await score_reference(
        judge,
        question="What was the diner drinking before the meal?",
        expected=drinks,
        answer=text,
        scorer=scorer,
    )
    return recall.value == 1.0
