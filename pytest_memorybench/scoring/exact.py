"""Exact, regex and containment scorers: all-or-nothing checks on a single reply.

These are the building blocks of the simplest memory probes (a name, a number, a letter): the
answer is either in the reply or it is not, so each returns 1 or 0 and says which text decided it.
"""

from __future__ import annotations

import re

from pytest_memorybench.core.records import Score
from pytest_memorybench.scoring.text import contains_substring, mentions_word, normalise_space


def score_exact(expected: str, reply: str, *, case_sensitive: bool = False) -> Score:
    """1 when the reply is exactly `expected`, apart from surrounding and repeated whitespace.

    Whitespace is normalised (trimmed, runs collapsed) because layout is not content; case is
    ignored unless `case_sensitive`, because "paris" and "Paris" answer the same question.
    Nothing else is forgiven: "Paris." is not "Paris".  MemBench's accuracy is this rule with
    `case_sensitive=True` on a one-letter answer.
    """
    want, got = normalise_space(expected), normalise_space(reply)
    same = want == got if case_sensitive else want.casefold() == got.casefold()
    rule = "after trimming whitespace" + ("" if case_sensitive else ", ignoring case")
    verdict = "equals" if same else "does not equal"
    return Score(1.0 if same else 0.0, (f"the reply {got!r} {verdict} {want!r} ({rule})",))


def score_regex(pattern: str | re.Pattern[str], reply: str, *, flags: int = 0) -> Score:
    """1 when `pattern` matches anywhere in the reply (`re.search`), else 0.

    Anchor the pattern yourself (`^…$`) to demand a whole-reply match.  `flags` apply only to a
    pattern given as a string, as with `re.compile`; a compiled pattern carries its own.
    """
    compiled = pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, flags)
    match = compiled.search(reply)
    if match is None:
        return Score(0.0, (f"no match for /{compiled.pattern}/ in the reply",))
    return Score(1.0, (f"/{compiled.pattern}/ matched {match.group(0)!r} at position {match.start()}",))


def score_contains(expected: str, reply: str, whole_word: bool = True) -> Score:
    """1 when the reply mentions `expected`, ignoring case.

    With `whole_word` (the default) the match must stand as a word or phrase of its own: "red"
    is not found in "bored", nor "blue" in "blue-green" (see `text.mentions_word`).  Without it
    any substring counts, GoodAI's lenient legacy rule with its false positives.
    """
    if whole_word:
        found = mentions_word(expected, reply)
        rule = "whole-word match, ignoring case"
    else:
        found = contains_substring(expected, reply)
        rule = "substring match, ignoring case"
    verdict = "mentions" if found else "does not mention"
    return Score(1.0 if found else 0.0, (f"the reply {verdict} {expected!r} ({rule})",))
