"""The `restaurant` task: what a diner's reply orders, as menu dishes and drinks."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.judges.local.text import (
    STOPWORDS,
    analyse,
    clean,
    normalise,
    stem,
    word_found,
)

# restaurant -------------------------------------------------------------------------------------------

_CLAUSE = re.compile(r"[^.!?;,\n]+(?:[.!?;,\n]+|$)")
_NEGATION_WORDS = frozenset({"no", "not", "never", "without", "except", "nothing", "none", "skip", "neither", "nor"})
_NEGATION_PHRASES = (
    ("instead", "of"), ("rather", "than"), ("hold", "the"), ("allergic", "to"), ("thank", "you", "for"),
    ("thanks", "for"), ("thank", "you", "so", "much", "for"), ("other", "than"),
)
_ORDER_WORDS = frozenset({"have", "get", "take", "order", "like", "want", "bring", "try", "please", "ill", "id"})
_ORDER_PHRASE = re.compile(
    r"\b(?:(?:i'?ll|i\s+will|i'?d|i\s+would|can\s+i|could\s+i|may\s+i|let\s+me)\s+"
    r"(?:(?:like|love)\s+(?:to\s+(?:order|have|get|try)\s+)?|(?:have|get|take|order|try|go\s+with|start\s+with)\s+)"
    r"|i\s+want\s+(?:to\s+(?:order|have|get|try)\s+)?)"
    r"(?P<what>[^.!?;\n]+)"
)
_NOT_FOOD = frozenset({"minute", "moment", "second", "look", "bill", "check", "menu", "time", "table", "recommendation", "help"})


@dataclass(frozen=True)
class _Word:
    stem: str
    position: int
    negated: bool


def _reply_words(reply: str) -> list[_Word]:
    """The reply's words, each marked negated when a cue before it in its clause part rules it out."""
    words: list[_Word] = []
    text = clean(reply)
    for clause in _CLAUSE.finditer(text):
        body = clause.group(0)
        raw = [(m.group(0).replace("'", ""), clause.start() + m.start()) for m in re.finditer(r"[a-z0-9']+", body)]
        plain = [token for token, _ in raw]
        asking = body.rstrip().endswith("?") and not (_ORDER_WORDS & set(plain))
        negated_from = len(raw) if not asking else 0
        for index, token in enumerate(plain):
            if token in _NEGATION_WORDS or token.endswith("nt") and token in {"dont", "wont", "cant", "isnt", "arent", "wasnt", "didnt", "doesnt", "wouldnt", "shouldnt", "couldnt", "havent"}:
                negated_from = min(negated_from, index)
                break
            if any(tuple(plain[index : index + len(phrase)]) == phrase for phrase in _NEGATION_PHRASES):
                negated_from = min(negated_from, index)
                break
        for index, (token, position) in enumerate(raw):
            if token not in STOPWORDS:
                words.append(_Word(stem(token), position, index >= negated_from))
    return words


def _mentions(names: Sequence[str], words: Sequence[_Word], all_names: Sequence[str]) -> list[tuple[int, str]]:
    """(position, name) of the names mentioned positively: by most of their words or a word only they have."""
    counts: dict[str, int] = {}
    for name in all_names:
        for word in set(analyse(name).content):
            counts[word] = counts.get(word, 0) + 1
    positive = [word for word in words if not word.negated]
    pool = frozenset(word.stem for word in positive)
    result = []
    for name in names:
        content = list(dict.fromkeys(analyse(name).content))
        if not content:
            continue
        found = [word for word in content if word_found(word, pool)]
        distinctive = [word for word in found if counts.get(word, 0) == 1]
        if found and (len(found) / len(content) >= 0.6 or distinctive):
            anchors = {word for word in found}
            position = min(
                (w.position for w in positive if any(word_found(w.stem, frozenset({a})) for a in anchors)),
                default=0,
            )
            result.append((position, name))
    return sorted(result)


def judge_restaurant(payload: Mapping[str, Any]) -> dict[str, Any]:
    reply = str(payload["reply"] or "")
    menu = [str(item) for item in payload["menu"]]
    drinks = [str(item) for item in payload["drinks"]]
    everything = [*menu, *drinks]
    words = _reply_words(reply)
    dishes = [name for _, name in _mentions(menu, words, everything)]
    ordered_drinks = [name for _, name in _mentions(drinks, words, everything)]
    other = []
    for match in _ORDER_PHRASE.finditer(clean(reply)):
        for piece in re.split(r",|\band\b|\bplus\b", match.group("what")):
            if any(token.strip("'") in _NEGATION_WORDS or "n't" in token for token in piece.split()):
                continue
            content = [word for word in analyse(piece).content if word not in _NOT_FOOD]
            if not content or set(analyse(piece).content) & _NOT_FOOD:
                continue
            piece_words = [_Word(word, 0, False) for word in content]
            if not _mentions(everything, piece_words, everything):
                other.append(" ".join(normalise(piece).split()))
    reason = "mentions found by name" if dishes or ordered_drinks else "no menu item or drink ordered"
    return {"dishes": dishes, "drinks": ordered_drinks, "other": ", ".join(other) or None, "reason": reason}

