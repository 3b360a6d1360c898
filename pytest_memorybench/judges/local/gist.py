"""Whether an answer states the gist of the expected one, in other words: the `answer` task's
meaning rules, generous but never satisfied by an answer that commits to nothing.

Pipelines answer in their own words ("her own struggles and support received" for "her own
journey and the support she received"), shorten ("a painting of a castle" for "a painting of a
castle on a hill"), and list part of a list.  So an answer is read against what the expected
answer says *beyond the question* — its informative words, the stems the question does not
already give away ("painting" says nothing new when asked what someone painted):

  names      it states one of the names the expected answer adds (capitalised words the question
             does not hold: "Cornwall", "Supra"); naming another instead ("Devon") is wrong,
             however much else it shares (`other_name`, asked before any other rule);
  list       the expected answer is a list ("pottery, camping and swimming"): every item the answer
             names is one of its items (a part of the list is right under the generous rule, an
             item it lacks is wrong), and it names at least one;
  words      otherwise it covers more than half of the informative words, and the first of them
             when there are only one or two (the thing asked about: "castle", not "hill").

A vague answer ("a nature scene she painted", "personal reasons") holds none of that and stays
wrong; a specific wrong one names another thing and does too.  Synonyms are not read ("loves"
is not "likes"): such an answer passes only on its other words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_memorybench.judges.local.text import analyse, clean, word_found
from pytest_memorybench.judges.local.values import has_value

# Words that carry no content of their own in an answer: quantities and hedges of any topic.
_EMPTY = frozenset(
    "own really very also just thing things something kind sort type lot lots some various many several"
    " much way ways one ones after before during since until around near through across between among"
    " behind beside other others".split()
)
_ITEM_SPLIT = re.compile(r",|;|\band\b|\bor\b|\bas well as\b|\bplus\b|&|\bwith\b", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)[\W\d_]*([A-Za-z]+)")
MAX_ITEM_WORDS = 3  # informative words of a list item; a longer part is a remark, not an item


def informative(text: str, question: str) -> list[str]:
    """The content stems of `text` the question does not already hold, in order, without repeats."""
    asked = analyse(question).content_set
    return list(
        dict.fromkeys(
            word for word in analyse(text).content if word not in _EMPTY and not word_found(word, asked)
        )
    )


def states_gist(expected: str, answer: str, question: str, *, partial_lists: bool) -> tuple[bool, str] | None:
    """Whether `answer` states `expected`'s gist, and why; None when the expected answer adds
    nothing to the question (the other rules judge it)."""
    wanted = informative(expected, question)
    if not wanted:
        return None
    items = _items(expected, question)
    if len(items) >= 2:
        return _list(items, answer, question, partial_lists, share=_share(wanted, answer))
    named = _names(answer, question, initial=True) & _names(expected, question)
    if named:
        return True, f"the answer names {', '.join(sorted(named))}, as the expected answer does"
    if not all(has_value(number, analyse(answer).numbers) for number in analyse(expected).numbers):
        return False, "a number of the expected answer is missing"
    given = analyse(answer).content_set
    if len(wanted) <= 2 and not word_found(wanted[0], given):
        return False, f"the answer does not say {wanted[0]!r}, what the expected answer is about"
    share = _share(wanted, answer)
    if len(wanted) > 2 and share <= 0.5:
        return False, f"the answer states {share:.0%} of what the expected answer adds to the question"
    return True, f"the answer states {share:.0%} of what the expected answer adds to the question"


def other_name(expected: str, answer: str, question: str) -> str | None:
    """A name the answer gives where the expected answer gives another ("Devon" for "Cornwall"),
    or None: an answer about another place or person is wrong, whatever else it shares."""
    names = _names(expected, question)
    if not names or _names(answer, question, initial=True) & names:
        return None
    unexpected = _names(answer, question) - _names(expected, "", initial=True)
    return min(unexpected) if unexpected else None


def _share(wanted: list[str], answer: str) -> float:
    given = analyse(answer).content_set
    return sum(word_found(word, given) for word in wanted) / len(wanted)


def _names(text: str, question: str, *, initial: bool = False) -> set[str]:
    """Capitalised words of `text` the question does not hold, in lower case; a sentence's first
    word only with `initial` (it may be a name, "Supra.", or just capitalised, "Tomatoes.")."""
    asked = {word.lower() for word in re.findall(r"[A-Za-z]+", question)}
    starts = set() if initial else {match.start(1) for match in _SENTENCE_START.finditer(text)}
    return {
        match.group(0).lower()
        for match in re.finditer(r"\b[A-Z][a-z]+\b", text)
        if match.start() not in starts
    } - asked


def mentions(answer: str, expected: str, question: str) -> list[tuple[int, int]]:
    """Where the `clean`ed answer says one of the expected answer's informative words."""
    pool = frozenset(informative(expected, question))
    text = clean(answer)
    return [
        (match.start(), match.end())
        for match in re.finditer(r"[\w'-]+", text)
        if any(word_found(word, pool) for word in analyse(match.group(0)).content)
    ]


@dataclass(frozen=True)
class _Item:
    """A part of a list: its informative words and its numbers ("two cats")."""

    words: tuple[str, ...]
    numbers: tuple[float, ...]

    def same(self, other: _Item) -> bool:
        pool = frozenset(other.words)
        return any(word_found(word, pool) for word in self.words) and (
            not self.numbers or all(has_value(number, other.numbers) for number in self.numbers)
        )


def _items(text: str, question: str) -> list[_Item]:
    """The parts of a list; parts without an informative word are left out."""
    parts = [(informative(part, question), analyse(part).numbers) for part in _ITEM_SPLIT.split(text)]
    return [_Item(tuple(words), numbers) for words, numbers in parts if words]


def _list(expected: list[_Item], answer: str, question: str, partial: bool, share: float) -> tuple[bool, str]:
    """Every item the answer names is an expected one, or it states most of the list and adds a
    remark of its own ("her own struggles and the support she received"); under `partial`, a part
    of the list will do."""
    named = [part for part in _items(answer, question) if len(part.words) <= MAX_ITEM_WORDS]
    matched = [part for part in named if any(part.same(item) for item in expected)]
    unknown = [part for part in named if part not in matched]
    if not matched:
        return False, "the answer names none of the expected items"
    if unknown and share <= 0.5:
        return (
            False,
            f"the answer names {' '.join(unknown[0].words)!r}, which is not among the expected items",
        )
    found = sum(any(part.same(item) for part in matched) for item in expected)
    if not partial and found < len(expected):
        return False, f"the answer names {found} of the {len(expected)} expected items"
    return True, f"the answer names {found} of the {len(expected)} expected items and nothing else"
