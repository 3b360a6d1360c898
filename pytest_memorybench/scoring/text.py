"""Text matching shared by the deterministic scorers."""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from functools import lru_cache
from typing import TypeVar

T = TypeVar("T")


@lru_cache(maxsize=1024)
def _word_pattern(term: str) -> re.Pattern[str]:
    # A hyphen joins words: "blue-green" is a colour of its own, not a mention of "blue".
    return re.compile(rf"(?<![\w-]){re.escape(term)}(?![\w-])", re.IGNORECASE)


def mentions_word(term: str, text: str) -> bool:
    """True when `term` occurs in `text` as a whole word, ignoring case.

    Word characters and hyphens on either side disqualify a match ("bored" does not mention
    "red", "blue-green" does not mention "blue"); punctuation, quotes and spaces do not.
    """
    return _word_pattern(term).search(text) is not None


def contains_substring(term: str, text: str) -> bool:
    """True when `term` occurs anywhere in `text`, ignoring case (the lenient legacy rule)."""
    return term.lower() in text.lower()


def normalise_space(text: str) -> str:
    """`text` without leading or trailing whitespace and with every whitespace run made one space.

    Replies differ from expected strings by line breaks and indentation far more often than by
    content, and no scorer here means to reward or punish layout.
    """
    return " ".join(text.split())


_PUNCTUATION_TABLE = str.maketrans("", "", string.punctuation)


def standardise(text: str) -> str:
    """Lower-case `text` and drop ASCII punctuation, as GoodAI's `standardise` helper does."""
    return text.lower().translate(_PUNCTUATION_TABLE)


@lru_cache(maxsize=1024)
def _boundary_pattern(term: str, case_sensitive: bool) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(term)}\b", 0 if case_sensitive else re.IGNORECASE)


def matches_at_word_boundaries(term: str, text: str, *, case_sensitive: bool = False) -> bool:
    r"""True when `term` occurs in `text` between regex word boundaries (`\bterm\b`).

    This is the GoodAI reference's keyword test (Spy Meeting).  Unlike `mentions_word` a hyphen
    is a boundary here, so "lock-pick" does mention "pick"; keep the two apart for parity.
    """
    return _boundary_pattern(term, case_sensitive).search(text) is not None


def unique_in_order(items: Iterable[T]) -> list[T]:
    """`items` with repeats removed, first occurrences kept in their original order."""
    return list(dict.fromkeys(items))
