"""Text analysis shared by the local judge's tasks: normalisation, words, coverage, ROUGE-L.

A text is analysed once (`analyse`): its values are read out first (`values.py`: numbers, dates,
times of day; `identifiers.py`), and the words left are normalised and stemmed for coverage.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz, process

from pytest_memorybench.core.f1 import harmonic_f1
from pytest_memorybench.judges.local.identifiers import find_identifiers
from pytest_memorybench.judges.local.values import (
    NUMBER_WORDS,
    ORDINALS,
    find_dates,
    find_numbers,
    find_times,
    ordinal_days,
)

WORD_MATCH = 85  # rapidfuzz ratio for two words to count as the same (spelling variants, typos)

# -- text analysis ------------------------------------------------------------------------------

ARTICLES = frozenset({"a", "an", "the"})
STOPWORDS = frozenset(
    """a an the and or but nor so yet if then than that this these those there here of to in on at by for
    with without from into onto over under about as per via up down out off again also too very just only
    i me my mine we us our ours you your yours he him his she her hers it its they them their theirs
    who whom whose which what when where why how is are was were be been being am do does did done doing
    have has had having will would shall should can could may might must ought not no yes
    some any all each every both either neither other another such own same more most much many few
    please like get got go went going let lets okay ok oh well really thing things one ones
    till until""".split()
)
# "setting up", "rolled out": a verb and its particle, which a compound noun ("setup", "rollout") names.
_PHRASAL = re.compile(r"\b([a-z]{2,})\s+(up|out|down|off|in|over|back)\b")
_ACRONYM_PLURAL = re.compile(r"\b([A-Z][A-Z0-9]*[A-Z])s\b")
UNIT_WORDS = frozenset(
    "km kms kilometer kilometers kilometre kilometres percent usd dollar dollars euro euros pound pounds "
    "year years yr yrs times item items".split()
)
_WORD_SUFFIXES = ("s", "es", "ed", "d", "ing", "er", "ers", "ly")
_CHARMAP = str.maketrans(
    {"’": "'", "‘": "'", "`": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " "}
)


def clean(text: str) -> str:
    """Unicode quotes and dashes made plain, accents dropped, case folded."""
    text = str(text).translate(_CHARMAP)
    if text.isascii():  # no accent to drop (ASCII is its own NFKD): a book's answer is cleaned often
        return text.casefold()
    text = unicodedata.normalize("NFKD", text)
    return "".join(char for char in text if not unicodedata.combining(char)).casefold()


def normalise(text: str) -> str:
    """Lower case, no accents, punctuation or articles, one space between words; 68,000 → 68000."""
    text = clean(text)
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = text.replace("&", " and ")
    text = re.sub(r"'s\b", "", text)
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", text)
    text = re.sub(r"[^\w\s.]|_", " ", text)
    return " ".join(word for word in text.split() if word not in ARTICLES)


def stem(word: str) -> str:
    """Plural endings off: enough for "eggs" to match "egg" and "berries" "berry"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "xes", "sses", "zes", "oes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Analysis:
    """A text as the local judge compares it: normalised, its content-word stems, numbers, dates and times."""

    text: str
    norm: str
    content: tuple[str, ...]  # stems of content words, in order (numbers and dates excluded)
    numbers: tuple[float, ...]
    dates: frozenset[tuple[int | None, int, int | None]]
    times: frozenset[tuple[int, bool]] = frozenset()  # (minutes after midnight, whether am/pm was said)
    identifiers: frozenset[str] = frozenset()  # "html5", "1.2.1", "apppy": keys (`identifiers.py`)
    # ("setting", "setup") for "setting up": a content word and the compound noun its phrase makes
    compounds: frozenset[tuple[str, str]] = frozenset()

    @property
    def content_set(self) -> frozenset[str]:
        """The words a criterion's words are looked up in: the content and the phrasal compounds."""
        return frozenset(self.content) | {compound for _, compound in self.compounds}

    def words_against(self, other: Analysis) -> tuple[str, ...]:
        """The content words, a phrasal verb written as the compound `other` uses ("setting" of
        "setting up" as "setup" against "Initial project setup")."""
        swap = {word: compound for word, compound in self.compounds if compound in other.content_set}
        return tuple(swap.get(word, word) for word in self.content)

    @property
    def empty(self) -> bool:
        """Whether the text says nothing at all: no word, no value."""
        return not (self.norm or self.numbers or self.dates or self.times or self.identifiers)


@lru_cache(maxsize=4096)
def analyse(text: str) -> Analysis:
    """`text` analysed once, for every comparison the local judge makes with it."""
    singular = _ACRONYM_PLURAL.sub(r"\1", str(text))  # "APIs" → API: the "s" is no part of the name
    lowered = re.sub(r"(?<=\d),(?=\d{3}\b)", "", clean(singular))
    dates, rest = find_dates(ordinal_days(lowered))
    times, rest = find_times(rest)
    identifiers, rest = find_identifiers(rest)
    numbers = tuple(find_numbers(rest))
    norm = normalise(text)
    words = normalise(rest)
    content = tuple(
        stem(word)
        for word in words.split()
        if word not in STOPWORDS and word not in NUMBER_WORDS and not any(char.isdigit() for char in word)
    )
    compounds = frozenset(
        (stem(verb), _base(stem(verb)) + particle) for verb, particle in _PHRASAL.findall(words)
    )
    return Analysis(
        str(text),
        norm,
        content,
        numbers,
        frozenset(dates),
        frozenset(times),
        frozenset(identifiers),
        compounds,
    )


def ordinals(text: str) -> frozenset[int]:
    """The ordinal numbers a text uses as words or digits ("first", "2nd"), outside dates."""
    lowered = ordinal_days(clean(text))
    found = {ORDINALS[word] for word in re.findall(r"[a-z]+", lowered) if word in ORDINALS}
    found |= {int(number) for number in re.findall(r"\b(\d{1,3})(?:st|nd|rd|th)\b", find_dates(lowered)[1])}
    return frozenset(found)


def parse_number(text: str) -> float | None:
    """The value when `text` is just a number or amount ("12", "twelve", "$68,000", "12k", "3 km")."""
    analysis = analyse(text)
    leftover = [word for word in analysis.content if word not in UNIT_WORDS and stem(word) not in UNIT_WORDS]
    if len(analysis.numbers) == 1 and not leftover and not analysis.dates:
        return analysis.numbers[0]
    return None


def word_found(word: str, pool: frozenset[str]) -> bool:
    """`word` (a stem) is in `pool`, up to spelling variants and common endings."""
    if word in pool:
        return True
    base = _base(word)
    for other in pool:
        short, long = (word, other) if len(word) <= len(other) else (other, word)
        if len(short) >= 4 and long.startswith(short) and long[len(short) :] in _WORD_SUFFIXES:
            return True
        if len(base) >= 4 and _base(other) == base:  # "delivering" ~ "delivered", "swimming" ~ "swim"
            return True
        if _roots(word) & _roots(other):  # "implementation" ~ "implementing", "improvement" ~ "improving"
            return True
    if len(word) >= 5 and pool:
        return process.extractOne(word, pool, scorer=fuzz.ratio, score_cutoff=WORD_MATCH) is not None
    return False


_DERIVATIONS = ("ation", "ition", "ion", "ment", "ing", "ed")
ROOT_LENGTH = 5  # a shorter shared root is chance ("station" / "stating")


@lru_cache(maxsize=8192)
def _roots(word: str) -> frozenset[str]:
    """The roots a derived word may come from, with and without a final "e" ("improvement" →
    improve, improv; "applying" → apply); none for a word with no derivational ending: "apart" is
    no root of "apartment".  Two words sharing a root are one word in two forms."""
    roots: set[str] = set()
    if word.endswith("ication"):  # "application" → apply, "verification" → verify
        roots.add(word[: -len("ication")] + "y")
    for suffix in _DERIVATIONS:
        root = word[: -len(suffix)] if word.endswith(suffix) else ""
        if len(root) > 2 and root[-1] == root[-2] and root[-1] not in "aeiouls":
            root = root[:-1]  # "planning" → plan
        if len(root) >= ROOT_LENGTH:
            roots |= {root, root[:-1] if root.endswith("e") else root + "e"}
    return frozenset(root for root in roots if len(root) >= ROOT_LENGTH)


def _base(word: str) -> str:
    """A word without one verb or adjective ending, its doubled consonant undone ("swimming" → "swim")."""
    for suffix in ("ing", "ed", "er", "ly", "y"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            base = word[: -len(suffix)]
            return base[:-1] if base[-1] == base[-2] and base[-1] not in "aeiouls" else base
    return word


def coverage(needle: Sequence[str], pool: frozenset[str]) -> float:
    """The share of `needle`'s words found in `pool` (1.0 for no words)."""
    words = list(dict.fromkeys(needle))
    if not words:
        return 1.0
    return sum(word_found(word, pool) for word in words) / len(words)


def phrase_in(phrase: str, text: str) -> bool:
    """Normalised `phrase` occurs in normalised `text` as whole words."""
    needle = normalise(phrase)
    return bool(needle) and f" {needle} " in f" {normalise(text)} "


_ABSTENTION = re.compile(
    r"\b(?:"
    r"(?:i|we)\s+(?:do\s+not|don'?t|did\s+not|didn'?t)\s+(?:know|remember|recall|have\s+(?:any\s+)?(?:information|info|record|details?|data|memory))"
    r"|(?:i\s+am|i'?m)\s+(?:not\s+sure|unsure|unable|not\s+able)"
    r"|i\s+have\s+no\s+(?:idea|information|info|record|memory|recollection|details?|data)"
    r"|no\s+(?:idea|information|info|record|records|mention|details?|data)\s+(?:about|on|of|regarding|available|was|is|in)"
    r"|(?:there\s+is|there\s+are|there'?s|there\s+were|there\s+was)\s+(?:none|nothing|no\s+(?:information|record|mention|such))"
    r"|(?:can'?t|cannot|can\s+not|couldn'?t|could\s+not|unable\s+to)\s+(?:recall|remember|find|answer|say|tell|determine|know|locate)"
    r"|(?:was|were|is|are|has\s+been|have\s+been)\s+(?:not|never)\s+(?:mentioned|specified|provided|stated|recorded|discussed|shared)"
    r"|(?:you|we)\s+(?:haven'?t|have\s+not|never|didn'?t|did\s+not)\s+(?:told|tell|mentioned|mention|said|say|shared|share|discussed|discuss)"
    r"|(?:i\s+)?(?:don'?t|do\s+not)\s+think\s+(?:you|we)\s+(?:ever\s+)?(?:told|mentioned|said|shared|discussed)"
    r")\b"
)
_BARE_ABSTENTION = re.compile(r"^\W*(?:none|nothing|n/?a|unknown|no idea|not sure|i don'?t know)\W*$")


def abstains(text: str) -> bool:
    """The answer says it has no such information or cannot answer (anywhere in it)."""
    lowered = clean(text)
    return bool(_ABSTENTION.search(lowered) or _BARE_ABSTENTION.match(lowered))


def lcs_length(first: Sequence[str], second: Sequence[str]) -> int:
    """The length of the longest common subsequence of two token sequences."""
    if not first or not second:
        return 0
    previous = [0] * (len(second) + 1)
    for token in first:
        current = [0]
        for index, other in enumerate(second):
            current.append(
                previous[index] + 1 if token == other else max(previous[index + 1], current[index])
            )
        previous = current
    return previous[-1]


def rouge_l(candidate: Sequence[str], reference: Sequence[str]) -> tuple[float, float, float]:
    """(precision, recall, F1) of the longest common subsequence, as ROUGE-L defines them."""
    common = lcs_length(candidate, reference)
    if common == 0:
        return 0.0, 0.0, 0.0
    precision, recall = common / len(candidate), common / len(reference)
    return precision, recall, harmonic_f1(precision, recall)
