"""The `restaurant` task: what a diner's reply orders, as menu dishes and drinks.

A menu item is named in many ways: in full ("Grilled Salmon with Lemon Herb Butter, served with
Roasted Vegetables and Rice Pilaf"), by its head ("the Grilled Salmon", "Chicken Parmesan"), by a
variant its name lists ("Diet Coke" for "Soft Drinks (Coke, Diet Coke, Sprite, etc.)"), by a word
only its head has ("the calamari"), or by most of its words in another order.  The reply is read
clause by clause; a mention counts as an order unless a cue before it in its clause rules it out
("no soup", "not the fish", "instead of", "thank you for the X", "allergic to"), or it sits in a
question that orders nothing ("Is the soup vegetarian?"; "How about the soup?" does order).  Where
two items claim the same words, the one whose name they cover best wins.  Whatever the reply asks
for that is on neither list goes to `other`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pytest_memorybench.judges.local.text import STOPWORDS, clean, stem

_CLAUSE = re.compile(r"[^.!?;,\n]+(?:[.!?;,\n]+|$)")
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?\n]+|$)")
_NEGATION_WORDS = frozenset({"no", "not", "never", "without", "except", "nothing", "none", "skip", "neither", "nor"})
_NEGATED_CONTRACTIONS = frozenset(
    {"dont", "wont", "cant", "isnt", "arent", "wasnt", "didnt", "doesnt", "wouldnt", "shouldnt", "couldnt", "havent"}
)
_NEGATION_PHRASES = (
    ("instead", "of"), ("rather", "than"), ("hold", "the"), ("allergic", "to"), ("thank", "you", "for"),
    ("thanks", "for"), ("thank", "you", "so", "much", "for"), ("other", "than"), ("unavailability", "of"),
    ("out", "of"), ("tell", "me", "more"), ("more", "about"), ("recommend",), ("recommendation",),
    ("shame", "about"), ("bad", "about"), ("unfortunate", "about"), ("sorry", "about"), ("heart", "set", "on"),
    ("looking", "forward", "to"), ("was", "hoping", "for"), ("still",), ("as", "planned"), ("as", "originally"),
)
# A clause saying a dish cannot be had rules out every mention in it, before the cue or after.
_UNAVAILABLE = re.compile(r"\b(?:unavailable|not\s+(?:being\s+)?available|(?:isn'?t|wasn'?t)\s+available|sold\s+out|out\s+of\s+stock)\b")
_ORDER_WORDS = frozenset({"have", "get", "take", "order", "like", "want", "bring", "try", "please", "ill", "id"})
_ORDER_QUESTIONS = (("how", "about"), ("what", "about"))
_ORDER_PHRASE = re.compile(
    r"\b(?:(?:i'?ll|i\s+will|i'?d|i\s+would|can\s+i|could\s+i|may\s+i|let\s+me)\s+"
    r"(?:(?:like|love)\s+(?:to\s+(?:order|have|get|try|start\s+with|begin\s+with|go\s+with)\s+)?"
    r"|(?:have|get|take|order|try|go\s+with|start\s+with)\s+)"
    r"|i\s+want\s+(?:to\s+(?:order|have|get|try)\s+)?)"
    r"(?P<what>[^.!?;\n]+)"
)
# Words of an ordering phrase that name no food: courses, time, the menu, the service.
_THEN = re.compile(r"\b(?:while|because|since|so\s+that|until|if|when|but|although|though)\b")
_NOT_FOOD = frozenset(
    """minute moment second look bill check menu time table recommendation help appetizer appetiser starter
    main course entree entrée dessert side meal dish order something anything option choice drink beverage
    food thing same one instead also too now first just sandwich salad soup pasta burger plate bowl wrap
    glass cup bottle portion serving piece dishes""".split()
)
# Words that name a drink (our own list), for drinks asked for that a menu does not list.
DRINK_WORDS = frozenset(
    """water still sparkling mineral soda tonic lemonade juice squash smoothie milkshake shake milk tea coffee
    espresso latte cappuccino americano macchiato mocha cocoa wine red white rose prosecco champagne cava
    cabernet merlot pinot noir grigio sauvignon chardonnay riesling malbec shiraz syrah rioja chianti
    zinfandel beer lager ale stout cider cocktail mojito margarita martini gin whisky whiskey vodka rum
    bourbon brandy sherry sake coke cola pepsi sprite fanta seltzer kombucha""".split()
)
# Words that name something to eat, beyond a menu's own words (our own list): a phrase left over
# after the menu items is an off-menu order only if it names food or drink.
FOOD_WORDS = frozenset(
    """toast bread roll bagel sandwich burger pizza pasta noodle rice fries chips potato salad soup stew curry
    steak beef pork lamb chicken turkey duck fish salmon tuna cod prawn shrimp lobster crab oyster mussel
    egg omelette bacon sausage ham cheese tofu bean lentil vegetable veg mushroom tomato avocado fruit berry
    apple banana cake pie tart pudding ice cream sorbet cookie brownie waffle pancake dessert taco burrito
    wrap kebab sushi ramen dumpling side water wine beer juice tea coffee soda lemonade cocktail milk
    smoothie cider""".split()
)
# Describing words a dish name may start with: never enough to name the dish alone.
_DESCRIPTIVE = frozenset(
    """classic crispy fresh warm hot cold chilled spicy sweet sour creamy rich light homemade house special
    vegan vegetarian halal kosher organic seasonal traditional spiced velvet hearty wild slow""".split()
)
# "A drink" names no item even where one item's name says "drinks"; "the salad" names the only salad.
_GENERIC = frozenset(stem(word) for word in "drink beverage dish meal food side option choice course order thing".split())
_MODIFIER = re.compile(r"\s+(?:with|served|in|on|over|drizzled|topped|and\s+served)\s+|\s*\(|,\s+(?=served|with)", re.IGNORECASE)
_VARIANTS = re.compile(r"\(([^)]*)\)")


@dataclass(frozen=True)
class _Token:
    stem: str
    position: int  # character offset in the reply
    negated: bool
    word: str = ""


@dataclass(frozen=True)
class _Item:
    name: str
    names: tuple[tuple[str, ...], ...]  # the head and each listed variant, as stems
    words: tuple[str, ...]  # every content stem of the full name


@dataclass(frozen=True)
class _Mention:
    item: _Item
    first: int  # token indexes, inclusive
    last: int
    strength: float  # how much of the item's name the mention covers
    positive: bool


def _content(text: str) -> tuple[str, ...]:
    words = re.findall(r"[a-z0-9]+", clean(text).replace("'", ""))
    return tuple(stem(word) for word in words if word not in STOPWORDS)


@lru_cache(maxsize=512)
def _item(name: str) -> _Item:
    head = _MODIFIER.split(name, maxsplit=1)[0]
    variants = [
        part for group in _VARIANTS.findall(name) for part in re.split(r",|\bor\b|\band\b", group)
        if part.strip() and not re.search(r"\betc\b|\bby the\b", part)
    ]
    names = tuple(dict.fromkeys(content for text in (head, *variants) if (content := _content(text))))
    return _Item(name, names, tuple(dict.fromkeys(_content(_VARIANTS.sub(" ", name)))))


def _tokens(reply: str) -> list[_Token]:
    """The reply's content words, each marked negated when a cue before it in its clause part rules it out.

    A question that orders nothing ("Is the soup vegetarian?", "…, the salmon is still available,
    right?") rules out every mention in it, whatever its commas.
    """
    tokens: list[_Token] = []
    text = clean(reply)
    questions = [(m.start(), m.end()) for m in _SENTENCE.finditer(text) if m.group(0).rstrip().endswith("?")]
    for clause in _CLAUSE.finditer(text):
        body = clause.group(0)
        raw = [(m.group(0).replace("'", ""), clause.start() + m.start()) for m in re.finditer(r"[a-z0-9']+", body)]
        plain = [token for token, _ in raw]
        sentence = next((text[a:b] for a, b in questions if a <= clause.start() < b), None)
        asking = sentence is not None and not _orders(sentence)
        negated_from = 0 if asking or _UNAVAILABLE.search(body) else len(raw)
        for index, token in enumerate(plain):
            still_water = token == "still" and index + 1 < len(plain) and plain[index + 1] in ("water", "mineral")
            if _starts(plain, index, ("wouldnt", "say", "no")) or _starts(plain, index, ("would", "not", "say", "no")):
                break  # "I wouldn't say no to the soup" is a yes
            if token in _NEGATION_WORDS or token in _NEGATED_CONTRACTIONS or (not still_water and any(
                _starts(plain, index, phrase) for phrase in _NEGATION_PHRASES
            )):
                negated_from = min(negated_from, index)
                break
        for index, (token, position) in enumerate(raw):
            if token not in STOPWORDS:
                tokens.append(_Token(stem(token), position, index >= negated_from, token))
    return tokens


def _orders(sentence: str) -> bool:
    """A question that orders: "Could I have the soup?", "How about the soup?"."""
    words = [word.replace("'", "") for word in re.findall(r"[a-z0-9']+", sentence)]
    return bool(_ORDER_WORDS & set(words)) or any(
        _starts(words, index, phrase) for index in range(len(words)) for phrase in _ORDER_QUESTIONS
    )


def _starts(words: Sequence[str], index: int, phrase: tuple[str, ...]) -> bool:
    return tuple(words[index : index + len(phrase)]) == phrase


def _distinctive(items: Sequence[_Item]) -> dict[str, _Item]:
    """Head words that belong to one item only, anywhere on the menu ("calamari", "risotto")."""
    owners: dict[str, set[str]] = {}
    for item in items:
        for word in {*item.words, *(word for name in item.names for word in name)}:
            owners.setdefault(word, set()).add(item.name)
    by_name = {item.name: item for item in items}
    return {
        word: by_name[next(iter(names))]
        for word, names in owners.items()
        if len(names) == 1 and len(word) >= 4 and not word.endswith("ed") and word not in _DESCRIPTIVE | _GENERIC
        and any(word in name for name in by_name[next(iter(names))].names)
    }


def _find(items: Sequence[_Item], tokens: Sequence[_Token]) -> list[_Mention]:
    stems = [token.stem for token in tokens]
    found: list[_Mention] = []
    for item in items:
        for name in item.names:  # all words of the head or a variant, close together
            for hits, in_order in _windows(name, stems, slack=2):
                strength = 1.0 + len(name) / 10 + (0.05 if in_order else 0) - 0.01 * (hits[-1] - hits[0] + 1 - len(hits))
                found.append(_mention(item, tokens, hits, strength))
        if len(item.words) >= 3:  # most of the full name, in any order
            for start in range(len(stems)):
                window = range(start, min(len(stems), start + len(item.words) + 4))
                hits = [index for index in window if stems[index] in item.words]
                if hits and hits[0] == start and len({stems[i] for i in hits}) / len(item.words) >= 0.6:
                    found.append(_mention(item, tokens, hits, len({stems[i] for i in hits}) / len(item.words)))
                    break
    distinctive = _distinctive(items)
    for index, token in enumerate(tokens):
        item = distinctive.get(token.stem)
        if item is not None:
            found.append(_mention(item, tokens, [index], 0.5))
    return _resolve(found)


def _windows(name: tuple[str, ...], stems: Sequence[str], slack: int) -> list[tuple[list[int], bool]]:
    """Each place where every word of `name` occurs within len(name) + slack words, and whether in order."""
    result = []
    for start, word in enumerate(stems):
        if word not in name:
            continue
        needed, hits = set(name), []
        for index in range(start, min(len(stems), start + len(name) + slack)):
            if stems[index] in needed:
                needed.discard(stems[index])
                hits.append(index)
            if not needed:
                break
        if not needed:
            result.append((hits, [stems[index] for index in hits] == [word for word in name if word in set(name)][: len(hits)]))
    return result


def _mention(item: _Item, tokens: Sequence[_Token], hits: list[int], strength: float) -> _Mention:
    return _Mention(item, hits[0], hits[-1], strength, not any(tokens[index].negated for index in hits))


def _resolve(mentions: list[_Mention]) -> list[_Mention]:
    """Where mentions of different items share words, the one that covers its name best keeps them."""
    kept: list[_Mention] = []
    for mention in sorted(mentions, key=lambda m: (-m.strength, -(m.last - m.first), m.first)):
        overlaps = [
            other for other in kept
            if other.item.name != mention.item.name and not (mention.last < other.first or mention.first > other.last)
        ]
        if not overlaps:
            kept.append(mention)
    return sorted(kept, key=lambda m: m.first)


def _ordered(mentions: Sequence[_Mention], names: Sequence[str]) -> list[str]:
    """Items with at least one positive mention, in the order the reply first orders them."""
    wanted = set(names)
    result: list[str] = []
    for mention in mentions:
        if mention.positive and mention.item.name in wanted and mention.item.name not in result:
            result.append(mention.item.name)
    return result


def judge_restaurant(payload: Mapping[str, Any]) -> dict[str, Any]:
    reply = str(payload["reply"] or "")
    menu = [str(item) for item in payload["menu"]]
    drinks = [str(item) for item in payload["drinks"]]
    items = [_item(name) for name in (*menu, *drinks)]
    tokens = _tokens(reply)
    mentions = _corrected(_find(items, tokens), tokens, clean(reply), set(drinks))
    dishes, ordered_drinks = _ordered(mentions, menu), _ordered(mentions, drinks)
    other = _off_menu(reply, items, tokens, mentions)
    reason = "mentions found by name" if dishes or ordered_drinks else "no menu item or drink ordered"
    return {"dishes": dishes, "drinks": ordered_drinks, "other": ", ".join(other) or None, "reason": reason}


_CORRECTION = re.compile(
    r"\b(?:make\s+(?:that|it)|on\s+second\s+thoughts?|scratch\s+that|change\s+(?:that|it)\s+to|actually,?\s+no|no,?\s+wait|wait,?\s+no)\b"
)


def _corrected(mentions: list[_Mention], tokens: Sequence[_Token], text: str, drinks: set[str]) -> list[_Mention]:
    """"The burger? Actually, no, make that the fish": what a correction replaces is not ordered.

    A positive mention before a correction cue is dropped when something of its kind (a dish, a
    drink) is ordered after the cue.
    """
    for cue in _CORRECTION.finditer(text):
        after = [m for m in mentions if m.positive and tokens[m.first].position > cue.start()]
        kinds = {m.item.name in drinks for m in after}
        mentions = [
            m for m in mentions
            if not (m.positive and tokens[m.last].position < cue.start() and (m.item.name in drinks) in kinds)
        ]
    return mentions


def _off_menu(reply: str, items: Sequence[_Item], tokens: Sequence[_Token], mentions: Sequence[_Mention]) -> list[str]:
    """What an ordering phrase asks for that names no menu item or drink ("the avocado toast").

    The words of a mentioned item, and the words of its full name that follow it ("… served with
    Spaghetti"), belong to that item; what is left of the phrase, less words that name no food
    (courses, "instead", the menu), is something ordered off the menu.
    """
    covered: set[int] = set()
    for mention in mentions:
        index = mention.first
        while index < len(tokens) and (index <= mention.last or tokens[index].stem in mention.item.words):
            covered.add(index)
            index += 1
    not_food = {stem(word) for word in _NOT_FOOD}
    food = {stem(word) for word in (*FOOD_WORDS, *DRINK_WORDS)} | {word for item in items for word in item.words}
    other: list[list[tuple[str, str]]] = []
    for match in _ORDER_PHRASE.finditer(clean(reply)):
        if match.group("what").lstrip().startswith("to "):
            continue
        start = match.start("what")
        stop = _THEN.search(match.group("what"))
        end = start + stop.start() if stop else match.end("what")
        group: list[tuple[str, str]] = []
        for index, token in enumerate(tokens):
            inside = start <= token.position < end and not token.negated
            if inside and index not in covered and token.stem not in not_food:
                group.append((token.word or token.stem, token.stem))
            elif group:
                other.append(group)
                group = []
        if group:
            other.append(group)
    named = [" ".join(word for word, _ in group) for group in other if any(stem_ in food for _, stem_ in group)]
    return list(dict.fromkeys(named))
