"""Text matching shared by the deterministic scorers."""

from __future__ import annotations

import re
from functools import lru_cache


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
