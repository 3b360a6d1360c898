"""The `equivalence` task: do two snippets state the same event or fact?"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rapidfuzz import fuzz

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.local.text import WORD_MATCH, analyse, clean, coverage, word_found
from pytest_memorybench.judges.local.values import dates_agree, has_value

_NEGATION = re.compile(r"\b(?:not|never|no|nor|neither|cannot|no\s+longer|stopped|quit|gave\s+up)\b|n't")
# A text that only supposes what the other states ("might move", "is thinking about adopting").
_SUPPOSED = re.compile(
    r"\b(?:may|might|could|would|considering|thinking\s+(?:about|of)|plans?\s+to|planning|wants?\s+to|hopes?\s+to|if)\b"
)
_FROM_TO = re.compile(r"\bfrom\s+([\w' ]+?)\s+to\s+([\w' ]+?)(?=[.,;!?]|$)")
_NAME = re.compile(r"(?<=[a-z,;]\s)([A-Z][a-z]+)")
# Words of opposite meaning (our own short list): the same sentence with one or the other differs.
_OPPOSITES = (
    (
        {"love", "loves", "loved", "like", "likes", "liked", "enjoy", "enjoys", "enjoyed", "adore", "adores"},
        {
            "hate",
            "hates",
            "hated",
            "dislike",
            "dislikes",
            "disliked",
            "detest",
            "detests",
            "loathe",
            "loathes",
        },
    ),
    (
        {"pass", "passed", "passes", "win", "won", "wins", "succeed", "succeeded"},
        {"fail", "failed", "fails", "lose", "lost", "loses"},
    ),
    (
        {"accept", "accepted", "accepts", "agree", "agreed"},
        {"reject", "rejected", "rejects", "decline", "declined", "refuse", "refused"},
    ),
    (
        {"start", "started", "begin", "began", "join", "joined"},
        {"stop", "stopped", "quit", "quitting", "finish", "finished", "leave", "left"},
    ),
    ({"buy", "bought", "buys"}, {"sell", "sold", "sells"}),
    (
        {"increase", "increased", "rise", "rose", "raised", "up"},
        {"decrease", "decreased", "fall", "fell", "cut", "lowered", "down"},
    ),
)


SUBSTITUTION_CONTEXT = (
    2  # shared words around a single swapped word ("daughter" / "son") that make it a detail
)


def _synonyms(first: str, second: str) -> bool:
    """Two stems that say the same: spelling variants, forms of one word ("applying" / "application"),
    or one side of an `_OPPOSITES` pair ("start" / "began")."""
    if fuzz.ratio(first, second) >= WORD_MATCH or word_found(first, frozenset({second})):
        return True
    return any(
        any(word.startswith(first) for word in side) and any(word.startswith(second) for word in side)
        for pair in _OPPOSITES
        for side in pair
    )


_STATEMENT = re.compile(
    r"^\W*(?:the\s+)?(?:user|users|i|he|she|they|we|you|my|his|her|their)\b", re.IGNORECASE
)


def _says_otherwise(first: str, second: str) -> str | None:
    """Why two texts sharing most words still differ: one negated, opposite verbs, other names."""
    if bool(_NEGATION.search(clean(first))) != bool(_NEGATION.search(clean(second))):
        return "one text negates what the other states"
    if bool(_SUPPOSED.search(clean(first))) != bool(_SUPPOSED.search(clean(second))):
        return "one text only supposes what the other states"
    ends = (_FROM_TO.search(clean(first)), _FROM_TO.search(clean(second)))
    if ends[0] and ends[1] and (ends[0].group(1), ends[0].group(2)) == (ends[1].group(2), ends[1].group(1)):
        return "the texts go in opposite directions"
    one, other = analyse(first), analyse(second)
    # Words one text has and the other lacks ("setting" of "setting up" is there in "setup").
    only = (
        {w for w in one.content if w not in other.content_set},
        {w for w in other.content if w not in one.content_set},
    )
    if (
        len(only[0]) == 1
        and len(only[1]) == 1
        and len(set(one.content) & other.content_set) >= SUBSTITUTION_CONTEXT
    ):
        mine, theirs = next(iter(only[0])), next(iter(only[1]))
        if not _synonyms(mine, theirs):
            return f"one detail differs ({mine} / {theirs})"
    words = (set(re.findall(r"[a-z]+", clean(first))), set(re.findall(r"[a-z]+", clean(second))))
    for positive, negative in _OPPOSITES:
        if (words[0] & positive and words[1] & negative and not words[0] & negative) or (
            words[0] & negative and words[1] & positive and not words[0] & positive
        ):
            return "the texts say opposite things"
    names = ({n.casefold() for n in _NAME.findall(first)}, {n.casefold() for n in _NAME.findall(second)})
    if (
        names[0]
        and names[1]
        and not (names[0] & names[1])
        and not (names[0] <= words[1] or names[1] <= words[0])
    ):
        return "different names"
    return None


def judge_equivalence(payload: Mapping[str, Any]) -> JsonObject:
    """Whether two texts say the same thing, by their words, numbers and dates."""
    first, second = analyse(str(payload["first"])), analyse(str(payload["second"]))
    if first.norm == second.norm:
        return {"equivalent": True, "reason": "the same text"}
    short, long = (first, second) if len(set(first.content)) <= len(set(second.content)) else (second, first)
    # Values must agree where both texts give them; the longer text may add details of its own.
    fewer, more = sorted((first.numbers, second.numbers), key=len)
    if fewer and not all(has_value(number, more) for number in fewer):
        return {"equivalent": False, "reason": "different numbers"}
    fewer_dates, more_dates = sorted((first.dates, second.dates), key=len)
    if fewer_dates and not dates_agree(fewer_dates, more_dates):
        return {"equivalent": False, "reason": "different dates"}
    fewer_names, more_names = sorted((first.identifiers, second.identifiers), key=len)
    if fewer_names and not fewer_names <= more_names:
        return {"equivalent": False, "reason": "different identifiers"}
    if not short.content:
        return {"equivalent": False, "reason": "nothing to compare"}
    different = _says_otherwise(str(payload["first"]), str(payload["second"]))
    if different:
        return {"equivalent": False, "reason": different}
    there = coverage(short.words_against(long), long.content_set)
    back = coverage(long.words_against(short), short.content_set)
    # A short label every word of which the longer text uses ("Core functionality" in "Setting up
    # the core functionality, with tests") names the same event, however much the other adds; a
    # statement about someone ("The user was in Paris") is no label and may leave out the event.
    contained = there == 1.0 and len(set(short.content)) >= 2 and not _STATEMENT.match(short.text)
    same = (
        fuzz.token_sort_ratio(first.norm, second.norm) >= 90 or (there >= 0.7 and back >= 0.35) or contained
    )
    return {"equivalent": same, "reason": f"word overlap {there:.0%} / {back:.0%}"}
