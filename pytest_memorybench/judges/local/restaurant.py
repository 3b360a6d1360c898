"""The `restaurant` task: what a diner's reply orders, as menu dishes and drinks.

A menu item is named in many ways: in full ("Grilled Salmon with Lemon Herb Butter, served with
Roasted Vegetables and Rice Pilaf"), by its head ("the Grilled Salmon", "Chicken Parmesan"), by a
variant its name lists ("Diet Coke" for "Soft Drinks (Coke, Diet Coke, Sprite, etc.)"), by a word
only its head has ("the calamari"), or by most of its words in another order.  The reply is read
clause by clause; a mention counts as an order unless a cue before it in its clause rules it out
("no soup", "not the fish", "instead of", "thank you for the X", "allergic to"), or it sits in a
question that orders nothing ("Is the soup vegetarian?"; "How about the soup?" does order).  Where
two items claim the same words, the one whose name they cover best wins, and what lies inside a
name the reply spells out is that item's ("Mussels in White Wine …" orders no wine).

What GoodAI's judge does not take for an order, neither do we: a sentence in the waiter's voice
("Can I help you with our selection?", "Our tart is very popular"), a lone menu word outside any
ordering sentence, and a pointer back at the order already given ("…, as originally planned");
"I'd still like the X" does order X again.  Whatever the reply asks for that is on neither list goes
to `other`, and so does what a change asked of an ordered dish adds to it ("the duck, but with
mashed potatoes"): the changed dish is not the menu's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from pytest_memorybench.judges.local.restaurant_words import (
    DESCRIPTIVE,
    DRINK_WORDS,
    FOOD_WORDS,
    GENERIC,
    NOT_FOOD,
)
from pytest_memorybench.judges.local.text import STOPWORDS, clean, stem
from pytest_memorybench.judges.replies import RestaurantReply

_CLAUSE = re.compile(r"[^.!?;,\n]+(?:[.!?;,\n]+|$)")
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?\n]+|$)")
_NEGATION_WORDS = frozenset(
    {"no", "not", "never", "without", "except", "nothing", "none", "skip", "neither", "nor"}
)
_NEGATED_CONTRACTIONS = frozenset(
    {
        "dont",
        "wont",
        "cant",
        "isnt",
        "arent",
        "wasnt",
        "didnt",
        "doesnt",
        "wouldnt",
        "shouldnt",
        "couldnt",
        "havent",
    }
)
_NEGATION_PHRASES = (
    ("instead", "of"),
    ("rather", "than"),
    ("hold", "the"),
    ("allergic", "to"),
    ("thank", "you", "for"),
    ("thanks", "for"),
    ("thank", "you", "so", "much", "for"),
    ("other", "than"),
    ("unavailability", "of"),
    ("out", "of"),
    ("tell", "me", "more"),
    ("more", "about"),
    ("recommend",),
    ("recommendation",),
    ("shame", "about"),
    ("bad", "about"),
    ("unfortunate", "about"),
    ("sorry", "about"),
    ("heart", "set", "on"),
    ("looking", "forward", "to"),
    ("was", "hoping", "for"),
)
# A sentence in the waiter's voice orders nothing, whatever it names: it offers, asks the diner's
# wish or praises the house's food ("What would you like to drink?", "Can I help you with our selection?").
_OFFER = re.compile(
    r"\b(?:(?:would|do|will)\s+you\s+(?:like|want|care|prefer)|what\s+(?:can|may|shall)\s+i\s+(?:get|bring|offer)"
    r"|(?:can|may|could|shall)\s+i\s+(?:get|bring|offer|interest|tempt|recommend|suggest|help)\s+you"
    r"|(?:help|assist)\s+you|are\s+you\s+ready|let\s+me\s+know\s+(?:if|what|when)\s+you"
    r"|our\s+(?:selection|specials?|menu|chef|kitchen|house|wine\s+list|drinks?\s+list)"
    r"|(?:is|are)\s+(?:very\s+|really\s+)?(?:popular|a\s+(?:house|customer|local)\s+favou?rite|highly\s+recommended)"
    r"|here\s+(?:is|are)\s+your)"
)
# A clause about meals had before orders nothing ("I've had mussels in Brussels once", "I was having the
# wine").
_HAD_BEFORE = re.compile(
    r"\b(?:i\s+was\s+having|i\s+had|i'?ve\s+had|i\s+have\s+had|i\s+once|i\s+used\s+to|earlier|last\s+(?:time|week|night|year))\b"
)
# A change asked of a dish ("… but with fries", "can I substitute the rice for a salad"): what it adds
# that the dish's name does not list is not on the menu.  "with" is such a cue only after a dish in
# its own sentence; the verbs of change wherever a dish is ordered.
_WITH = re.compile(r"\bwith\b(?P<what>[^.!?;\n]+)")
_CHANGE = re.compile(r"\b(?:substitute|swap|switch|replace|change|add|extra|side\s+of)\b(?P<what>[^.!?;\n]+)")
# A clause saying a dish cannot be had, or a sentence pointing back at the order already given ("…, as
# originally planned"), rules out every mention in it, before the cue or after.
_UNAVAILABLE = re.compile(
    r"\b(?:unavailable|not\s+(?:being\s+)?available|(?:isn'?t|wasn'?t)\s+available|sold\s+out|out\s+of\s+stock)\b"
)
_AS_ORDERED = re.compile(
    r"\bas\s+(?:originally\s+|previously\s+|already\s+|first\s+)?(?:planned|ordered|requested|discussed|mentioned)\b"
    r"|\bi\s+(?:already\s+|originally\s+|previously\s+)?ordered\s+(?:before|earlier|already)\b|\b(?:my|the)\s+original\s+order\b"
)
_ORDER_WORDS = frozenset(
    {
        "have",
        "get",
        "take",
        "order",
        "like",
        "want",
        "bring",
        "try",
        "please",
        "ill",
        "id",
        "substitute",
        "swap",
        "switch",
        "change",
    }
)
ABBREVIATION_CHARS = 4  # "parm" for "parmesan"; shorter beginnings are too often other words
SHORT_REPLY_WORDS = 6  # a reply this short that names an item orders it ("The calamari, please.")
# Phrases that order ("How about the soup?", "the salad will do", "in that case, the soup").
_ORDER_PHRASES = (
    ("how", "about"),
    ("what", "about"),
    ("will", "do"),
    ("go", "for"),
    ("for", "me"),
    ("in", "that", "case"),
)
_PAST_ORDER = (("ordered",), ("asked", "for"))  # "I asked for the salmon": names an order, asks nothing
_ORDER_PHRASE = re.compile(
    r"\b(?:(?:i'?ll|i\s+will|i'?d|i\s+would|can\s+i|could\s+i|may\s+i|let\s+me)\s+"
    r"(?:(?:like|love)\s+(?:to\s+(?:order|have|get|try|start\s+with|begin\s+with|go\s+with)\s+)?"
    r"|(?:have|get|take|order|try|go\s+with|start\s+with)\s+)"
    r"|i\s+want\s+(?:to\s+(?:order|have|get|try)\s+)?)"
    r"(?P<what>[^.!?;\n]+)"
)
# Words after which an ordering phrase goes on to something else.
_THEN = re.compile(r"\b(?:while|because|since|so\s+that|until|if|when|but|although|though)\b")
_MODIFIER = re.compile(
    r"\s+(?:with|served|in|on|over|drizzled|topped|and\s+served)\s+|\s*\(|,\s+(?=served|with)", re.IGNORECASE
)
_VARIANTS = re.compile(r"\(([^)]*)\)")


@dataclass(frozen=True)
class _Token:
    stem: str
    position: int  # character offset in the reply
    negated: bool
    word: str = ""
    ordering: bool = True  # its sentence orders something, or the reply is a few words


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
    hits: tuple[int, ...] = ()  # the tokens that name the item (first..last may hold others)


def _content(text: str) -> tuple[str, ...]:
    words = re.findall(r"[a-z0-9]+", clean(text).replace("'", ""))
    return tuple(stem(word) for word in words if word not in STOPWORDS)


@lru_cache(maxsize=512)
def _item(name: str) -> _Item:
    head = _MODIFIER.split(name, maxsplit=1)[0]
    variants = [
        part
        for group in _VARIANTS.findall(name)
        for part in re.split(r",|\bor\b|\band\b", group)
        if part.strip() and not re.search(r"\betc\b|\bby the\b", part)
    ]
    names = tuple(dict.fromkeys(content for text in (head, *variants) if (content := _content(text))))
    return _Item(name, names, tuple(dict.fromkeys(_content(_VARIANTS.sub(" ", name)))))


def _tokens(reply: str) -> list[_Token]:
    """The reply's content words, each marked negated when a cue before it in its clause part rules it out.

    A question that orders nothing ("Is the soup vegetarian?", "…, the salmon is still available,
    right?") and a sentence in the waiter's voice (`_OFFER`) rule out every mention in them,
    whatever their commas; a pointer back at the order already given rules out its clause, or
    the clause before it when it stands alone ("I'll keep the soup, as originally planned").  A
    word is `ordering` when its sentence has an ordering word, or the whole reply is a few words
    ("Calamari, please." / "The calamari.").
    """
    tokens: list[_Token] = []
    text = clean(reply)
    sentences = [(m.start(), m.end(), m.group(0)) for m in _SENTENCE.finditer(text)]
    short = len(re.findall(r"[a-z0-9']+", text)) <= SHORT_REPLY_WORDS
    clauses = list(_CLAUSE.finditer(text))
    pointing_back = {number for number, clause in enumerate(clauses) if _AS_ORDERED.search(clause.group(0))}
    pointing_back |= {
        number - 1
        for number in pointing_back
        if number and _AS_ORDERED.match(re.sub(r"^[\s,]*(?:and\s+|just\s+)?", "", clauses[number].group(0)))
    }
    for number, clause in enumerate(clauses):
        body = clause.group(0)
        raw = [
            (m.group(0).replace("'", ""), clause.start() + m.start())
            for m in re.finditer(r"[a-z0-9']+", body)
        ]
        plain = [token for token, _ in raw]
        sentence = next((words for start, end, words in sentences if start <= clause.start() < end), body)
        ordering = _orders(sentence)
        silenced = (
            (sentence.rstrip().endswith("?") and not ordering)
            or _OFFER.search(sentence)
            or (number in pointing_back or _UNAVAILABLE.search(body) or _HAD_BEFORE.search(body))
        )
        ordering = ordering or _has_phrase(_words(sentence), _PAST_ORDER)
        negated_from = 0 if silenced else len(raw)
        for index, token in enumerate(plain):
            if _starts(plain, index, ("wouldnt", "say", "no")) or _starts(
                plain, index, ("would", "not", "say", "no")
            ):
                break  # "I wouldn't say no to the soup" is a yes
            if (
                token in _NEGATION_WORDS
                or token in _NEGATED_CONTRACTIONS
                or any(_starts(plain, index, phrase) for phrase in _NEGATION_PHRASES)
            ):
                negated_from = min(negated_from, index)
                break
        for index, (token, position) in enumerate(raw):
            if token not in STOPWORDS:
                tokens.append(_Token(stem(token), position, index >= negated_from, token, ordering or short))
    return tokens


def _orders(sentence: str) -> bool:
    """A sentence that orders: "Could I have the soup?", "How about the soup?", "The soup will do."."""
    words = _words(sentence)
    return bool(_ORDER_WORDS & set(words)) or _has_phrase(words, _ORDER_PHRASES)


def _words(text: str) -> list[str]:
    return [word.replace("'", "") for word in re.findall(r"[a-z0-9']+", text)]


def _has_phrase(words: Sequence[str], phrases: Sequence[tuple[str, ...]]) -> bool:
    return any(_starts(words, index, phrase) for index in range(len(words)) for phrase in phrases)


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
        if len(names) == 1
        and len(word) >= 4
        and not word.endswith("ed")
        and word not in DESCRIPTIVE | GENERIC
        and any(word in name for name in by_name[next(iter(names))].names)
    }


def _find(items: Sequence[_Item], tokens: Sequence[_Token]) -> list[_Mention]:
    stems = [token.stem for token in tokens]
    found: list[_Mention] = []
    for item in items:
        for name in item.names:  # all words of the head or a variant, close together
            for hits, in_order in _windows(name, stems, slack=2):
                strength = (
                    1.0
                    + len(name) / 10
                    + (0.05 if in_order else 0)
                    - 0.01 * (hits[-1] - hits[0] + 1 - len(hits))
                )
                found.append(_mention(item, tokens, hits, strength))
        if len(item.words) >= 3:  # most of the full name, in any order
            for start in range(len(stems)):
                window = range(start, min(len(stems), start + len(item.words) + 4))
                hits = [index for index in window if stems[index] in item.words]
                if hits and hits[0] == start and len({stems[i] for i in hits}) / len(item.words) >= 0.6:
                    found.append(
                        _mention(item, tokens, hits, len({stems[i] for i in hits}) / len(item.words))
                    )
                    break
    distinctive = _distinctive(items)
    for index, token in enumerate(tokens):
        owner = distinctive.get(token.stem)
        if owner is not None and token.ordering:  # a lone word orders only where something is ordered
            found.append(_mention(owner, tokens, [index], 0.5))
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
            result.append(
                (
                    hits,
                    [stems[index] for index in hits]
                    == [word for word in name if word in set(name)][: len(hits)],
                )
            )
    return result


def _mention(item: _Item, tokens: Sequence[_Token], hits: list[int], strength: float) -> _Mention:
    return _Mention(
        item, hits[0], hits[-1], strength, not any(tokens[index].negated for index in hits), tuple(hits)
    )


def _resolve(mentions: list[_Mention]) -> list[_Mention]:
    """Where mentions of different items share words, the one that covers its name best keeps them."""
    kept: list[_Mention] = []
    for mention in sorted(mentions, key=lambda m: (-m.strength, -(m.last - m.first), m.first)):
        overlaps = [
            other
            for other in kept
            if other.item.name != mention.item.name
            and not (mention.last < other.first or mention.first > other.last)
        ]
        if not overlaps:
            kept.append(mention)
    return sorted(kept, key=lambda m: m.first)


def _extent(mention: _Mention, tokens: Sequence[_Token]) -> int:
    """The last token of a mention with the words of its full name that follow it ("the Filet Mignon
    with Red Wine Demi-Glace …": the red wine is the dish's sauce, not a drink)."""
    index = mention.last
    while index + 1 < len(tokens) and tokens[index + 1].stem in mention.item.words:
        index += 1
    return index


def _inside_names(mentions: Sequence[_Mention], tokens: Sequence[_Token]) -> list[_Mention]:
    """Mentions that lie inside another item's name as the reply spells it out are part of that name."""
    spans = [
        (mention.first, _extent(mention, tokens), mention.item.name)
        for mention in mentions
        if mention.strength >= 1
    ]
    return [
        mention
        for mention in mentions
        if not any(
            first <= mention.first and mention.last <= last and name != mention.item.name
            for first, last, name in spans
        )
    ]


def _ordered(mentions: Sequence[_Mention], names: Sequence[str]) -> list[str]:
    """Items with at least one positive mention, in the order the reply first orders them."""
    wanted = set(names)
    result: list[str] = []
    for mention in mentions:
        if mention.positive and mention.item.name in wanted and mention.item.name not in result:
            result.append(mention.item.name)
    return result


def judge_restaurant(payload: Mapping[str, Any]) -> RestaurantReply:
    """The dishes and drinks a diner's reply orders from the menu, and what else it asks for."""
    reply = str(payload["reply"] or "")
    menu = [str(item) for item in payload["menu"]]
    drinks = [str(item) for item in payload["drinks"]]
    items = [_item(name) for name in (*menu, *drinks)]
    tokens = _abbreviations_spelled_out(_tokens(reply), items)
    mentions = _corrected(_inside_names(_find(items, tokens), tokens), tokens, clean(reply), set(drinks))
    dishes, ordered_drinks = _ordered(mentions, menu), _ordered(mentions, drinks)
    other = _off_menu(reply, items, tokens, mentions, set(menu))
    reason = "mentions found by name" if dishes or ordered_drinks else "no menu item or drink ordered"
    return {"dishes": dishes, "drinks": ordered_drinks, "other": ", ".join(other) or None, "reason": reason}


def _abbreviations_spelled_out(tokens: list[_Token], items: Sequence[_Item]) -> list[_Token]:
    """A word that is no menu word but begins exactly one ("parm", "carbon") stands for that word."""
    vocabulary = {word for item in items for word in item.words}
    spelled = []
    for token in tokens:
        if token.stem not in vocabulary and len(token.stem) >= ABBREVIATION_CHARS:
            longer = [word for word in vocabulary if word.startswith(token.stem)]
            if len(longer) == 1:
                token = replace(token, stem=longer[0])
        spelled.append(token)
    return spelled


_CORRECTION = re.compile(
    r"\b(?:make\s+(?:that|it)|on\s+second\s+thoughts?|scratch\s+that|change\s+(?:that|it)\s+to|actually,?\s+no|no,?\s+wait|wait,?\s+no)\b"
)


def _corrected(
    mentions: list[_Mention], tokens: Sequence[_Token], text: str, drinks: set[str]
) -> list[_Mention]:
    """ "The burger? Actually, no, make that the fish": what a correction replaces is not ordered.

    A positive mention before a correction cue is dropped when something of its kind (a dish, a
    drink) is ordered after the cue.
    """
    for cue in _CORRECTION.finditer(text):
        after = [m for m in mentions if m.positive and tokens[m.first].position > cue.start()]
        kinds = {m.item.name in drinks for m in after}
        mentions = [
            m
            for m in mentions
            if not (m.positive and tokens[m.last].position < cue.start() and (m.item.name in drinks) in kinds)
        ]
    return mentions


def _off_menu(
    reply: str,
    items: Sequence[_Item],
    tokens: Sequence[_Token],
    mentions: Sequence[_Mention],
    dishes: set[str],
) -> list[str]:
    """What an ordering phrase asks for that names no menu item or drink ("the avocado toast").

    The words of a mentioned item, and the words of its full name that follow it ("… served with
    Spaghetti"), belong to that item; what is left of the phrase, less words that name no food
    (courses, "instead", the menu), is something ordered off the menu.  So is what a change asked
    of an ordered dish adds to it ("the salmon, but with a side of fries").
    """
    text = clean(reply)
    covered = {
        index
        for mention in mentions
        for index in (*mention.hits, *range(mention.last, _extent(mention, tokens) + 1))
    }
    not_food = {stem(word) for word in NOT_FOOD}
    food = {stem(word) for word in (*FOOD_WORDS, *DRINK_WORDS)} | {
        word for item in items for word in item.words
    }
    # (phrase, words it may repeat of the dish it changes)
    spans: list[tuple[re.Match[str], frozenset[str]]] = [
        (match, frozenset())
        for match in _ORDER_PHRASE.finditer(text)
        if not match.group("what").lstrip().startswith("to ")
    ]
    ordered = [m for m in mentions if m.positive and m.item.name in dishes]
    for match in _WITH.finditer(text):
        dish = _dish_before(match.start(), text, tokens, mentions, dishes)
        if dish is not None:
            spans.append((match, frozenset(dish.words)))
    if ordered:
        everything_ordered = frozenset(word for mention in ordered for word in mention.item.words)
        spans += [(match, everything_ordered) for match in _CHANGE.finditer(text)]
    other: list[tuple[list[tuple[str, str]], frozenset[str]]] = []
    for match, own in spans:
        start = match.start("what")
        stop = _THEN.search(match.group("what"))
        end = start + stop.start() if stop else match.end("what")
        group: list[tuple[str, str]] = []
        for index, token in enumerate(tokens):
            inside = start <= token.position < end and not token.negated
            if inside and index not in covered and token.stem not in not_food:
                group.append((token.word or token.stem, token.stem))
            elif group:
                other.append((group, own))
                group = []
        if group:
            other.append((group, own))
    named = [
        [word for word, _ in group]
        for group, own in other
        if any(stem_ in food for _, stem_ in group) and not all(stem_ in own for _, stem_ in group)
    ]
    kept = [words for words in named if not any(set(words) < set(longer) for longer in named)]
    return list(dict.fromkeys(" ".join(words) for words in kept))


def _dish_before(
    position: int, text: str, tokens: Sequence[_Token], mentions: Sequence[_Mention], dishes: set[str]
) -> _Item | None:
    """The dish a "with" at `position` changes: the last item ordered before it in its sentence, if a dish."""
    sentence_start = max(text.rfind(mark, 0, position) for mark in ".!?\n") + 1
    before = [m for m in mentions if m.positive and sentence_start <= tokens[m.first].position < position]
    return before[-1].item if before and before[-1].item.name in dishes else None
