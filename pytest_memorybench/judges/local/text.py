"""Text analysis shared by the local judge's tasks: normalisation, values, coverage, ROUGE-L."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz, process

from pytest_memorybench.core.f1 import harmonic_f1
from pytest_memorybench.judges.local.identifiers import find_identifiers

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
SMALL_NUMBERS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_NUMBER_WORDS = frozenset({*SMALL_NUMBERS, *_TENS, *_SCALES, "hundred", "dozen"})
_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATES = (
    re.compile(rf"\b(?P<m>{_MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>\d{{4}})\b)?"),
    re.compile(
        rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m>{_MONTH})\b\.?(?:,?\s+(?P<y>\d{{4}})\b)?"
    ),
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
    re.compile(rf"\b(?P<m>{_MONTH})\s+(?:of\s+)?(?P<y>\d{{4}})\b"),
    # 14/02/2023 or 02/14/2023: read only when one part cannot be a month
    re.compile(r"\b(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4})\b"),
)
_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
    "thirtieth": 30,
}
_ORDINAL = (
    rf"(?:(?:twenty|thirty)[\s-]?(?:{'|'.join(name for name, value in _ORDINALS.items() if value < 10)})"
    rf"|{'|'.join(sorted(_ORDINALS, key=len, reverse=True))})"
)
# "the fourteenth of June", "June the fourteenth": the day as an ordinal word, read as "14th".
_ORDINAL_DATES = (
    re.compile(rf"\b(?:the\s+)?(?P<o>{_ORDINAL})\s+(?:of\s+)?(?P<m>{_MONTH})\b"),
    re.compile(rf"\b(?P<m>{_MONTH})\s+(?:the\s+)?(?P<o>{_ORDINAL})\b"),
)
_HOUR_WORDS = {
    **{name: value for name, value in SMALL_NUMBERS.items() if 1 <= value <= 12},
    "noon": 12,
    "midnight": 0,
}
_CLOCK_WORDS = sorted((w for w in _HOUR_WORDS if w not in ("noon", "midnight")), key=len, reverse=True)
_HOUR = rf"(?:\d{{1,2}}|{'|'.join(_CLOCK_WORDS)})"
_PERIOD = r"(?P<p>a\.?m\.?|p\.?m\.?|in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight)"
_TIMES = (
    re.compile(rf"\b(?P<h>\d{{1,2}}):(?P<mi>\d{{2}})\s*{_PERIOD}?(?![\d])"),
    re.compile(rf"(?<![$£€¥\d])\b(?P<h>\d{{1,2}})\.(?P<mi>\d{{2}})\s*{_PERIOD}"),
    re.compile(
        rf"\b(?P<q>half|(?:a\s+)?quarter)\s+(?P<dir>past|to)\s+(?P<h>{_HOUR})(?:\s+o'?clock)?(?:\s*{_PERIOD})?"
    ),
    re.compile(rf"\b(?P<h>{_HOUR})(?:\s+o'?clock)?\s*{_PERIOD}"),
    re.compile(rf"\b(?P<h>{_HOUR})\s+o'?clock\b"),
)
# "setting up", "rolled out": a verb and its particle, which a compound noun ("setup", "rollout") names.
_PHRASAL = re.compile(r"\b([a-z]{2,})\s+(up|out|down|off|in|over|back)\b")
_ACRONYM_PLURAL = re.compile(r"\b([A-Z][A-Z0-9]*[A-Z])s\b")
_NUMBER = re.compile(
    r"(?<![\w.])(?P<cur>[$£€¥])?\s?(?P<num>\d+(?:\.\d+)?)(?:\s?(?P<suf>k|bn|thousand|million|billion|m)\b)?"
)
_SUFFIX_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
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
    dates, rest = _find_dates(_ordinal_days(lowered))
    times, rest = _find_times(rest)
    identifiers, rest = find_identifiers(rest)
    numbers = tuple(_find_numbers(rest))
    norm = normalise(text)
    words = normalise(rest)
    content = tuple(
        stem(word)
        for word in words.split()
        if word not in STOPWORDS and word not in _NUMBER_WORDS and not any(char.isdigit() for char in word)
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


def _ordinal_days(text: str) -> str:
    def digits(match: re.Match[str]) -> str:
        words = re.split(r"[\s-]+", match.group("o"))
        day = sum(_ORDINALS.get(word, {"twenty": 20, "thirty": 30}.get(word, 0)) for word in words)
        return f"{day}th {match.group('m')}" if 1 <= day <= 31 else match.group(0)

    for pattern in _ORDINAL_DATES:
        text = pattern.sub(digits, text)
    return text


def _find_times(text: str) -> tuple[list[tuple[int, bool]], str]:
    """Times of day: "4:30 pm", "16:30", "half past four in the afternoon", "seven o'clock"."""
    found: list[tuple[int, bool]] = []
    for pattern in _TIMES:

        def keep(match: re.Match[str]) -> str:
            groups = match.groupdict()
            hour_text = groups["h"]
            hour = int(hour_text) if hour_text.isdigit() else _HOUR_WORDS[hour_text]
            minutes = int(groups.get("mi") or 0)
            if groups.get("q"):
                minutes = 30 if groups["q"] == "half" else 15
                if groups["dir"] == "to":
                    hour, minutes = hour - 1, 60 - minutes
            period = groups.get("p") or ""
            if hour > 23 or minutes > 59:
                return match.group(0)
            later = (
                period.startswith("p") or "afternoon" in period or "evening" in period or "night" in period
            )
            if later and hour < 12:
                hour += 12
            found.append(((hour % 24) * 60 + minutes, bool(period) or hour > 12))
            return " "

        text = pattern.sub(keep, text)
    return found, text


def ordinals(text: str) -> frozenset[int]:
    """The ordinal numbers a text uses as words or digits ("first", "2nd"), outside dates."""
    lowered = _ordinal_days(clean(text))
    found = {_ORDINALS[word] for word in re.findall(r"[a-z]+", lowered) if word in _ORDINALS}
    found |= {int(number) for number in re.findall(r"\b(\d{1,3})(?:st|nd|rd|th)\b", _find_dates(lowered)[1])}
    return frozenset(found)


def times_agree(expected: Iterable[tuple[int, bool]], found: Iterable[tuple[int, bool]]) -> bool:
    """Every expected time is in `found`; where either side left out am or pm, twelve hours apart agree."""
    found = list(found)
    return all(
        any(
            minute == other or (not (certain and sure) and minute % 720 == other % 720)
            for other, sure in found
        )
        for minute, certain in expected
    )


def _find_dates(text: str) -> tuple[list[tuple[int | None, int, int | None]], str]:
    found: list[tuple[int | None, int, int | None]] = []
    for pattern in _DATES:

        def keep(match: re.Match[str]) -> str:
            if match.groupdict().get("a"):
                return _numeric_date(match, found)
            month_text, day_text = match.group("m"), match.groupdict().get("d")
            month = int(month_text) if month_text.isdigit() else _MONTHS[month_text]
            day = int(day_text) if day_text else None
            year = int(match.group("y")) if match.group("y") else None
            if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
                return match.group(0)
            found.append((year, month, day))
            return " "

        text = pattern.sub(keep, text)
    return found, text


def _numeric_date(match: re.Match[str], found: list[tuple[int | None, int, int | None]]) -> str:
    """14/02/2023 or 02/14/2023 read as a date when one part cannot be a month; else left as it is."""
    first, second = int(match.group("a")), int(match.group("b"))
    if (first > 12) == (second > 12):
        return match.group(0)  # 03/04/2023: either could be the month
    day, month = (first, second) if first > 12 else (second, first)
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return match.group(0)
    found.append((int(match.group("y")), month, day))
    return " "


def _find_numbers(text: str) -> list[float]:
    values = []
    for match in _NUMBER.finditer(text):
        value = float(match.group("num"))
        suffix = match.group("suf")
        if suffix and (suffix != "m" or match.group("cur")):
            value *= _SUFFIX_SCALE[suffix]
        values.append(value)
    words = re.findall(r"[a-z]+", _NUMBER.sub(" ", text))
    values.extend(_word_numbers(words))
    return values


def _word_numbers(words: Sequence[str]) -> list[float]:
    """Numbers written in words: "twelve", "twenty-five", "a hundred and five", "two dozen"."""
    values = []
    index = 0
    while index < len(words):
        word = words[index]
        starts = word in SMALL_NUMBERS or word in _TENS or word == "dozen"
        if (
            word in ("a", "an")
            and index + 1 < len(words)
            and words[index + 1] in {"hundred", "dozen", *_SCALES}
        ):
            starts, index = True, index + 1
        if not starts:
            index += 1
            continue
        total, current, seen = 0.0, 0.0, False
        while index < len(words):
            word = words[index]
            if word in SMALL_NUMBERS:
                current += SMALL_NUMBERS[word]
            elif word in _TENS:
                current += _TENS[word]
            elif word == "hundred":
                current = max(current, 1) * 100
            elif word == "dozen":
                current = max(current, 1) * 12
            elif word in _SCALES:
                total += max(current, 1) * _SCALES[word]
                current = 0
            elif word == "and" and seen and index + 1 < len(words) and words[index + 1] in _NUMBER_WORDS:
                pass
            else:
                break
            seen = True
            index += 1
        values.append(total + current)
    return values


def parse_number(text: str) -> float | None:
    """The value when `text` is just a number or amount ("12", "twelve", "$68,000", "12k", "3 km")."""
    analysis = analyse(text)
    leftover = [word for word in analysis.content if word not in UNIT_WORDS and stem(word) not in UNIT_WORDS]
    if len(analysis.numbers) == 1 and not leftover and not analysis.dates:
        return analysis.numbers[0]
    return None


def same_value(first: float, second: float) -> bool:
    """Whether two numbers are the same value, allowing for floating-point noise."""
    return abs(first - second) <= 1e-9 * max(1.0, abs(first), abs(second))


def has_value(value: float, values: Iterable[float]) -> bool:
    """Whether `value` is among `values`, as `same_value` compares them."""
    return any(same_value(value, other) for other in values)


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


def dates_agree(
    expected: Iterable[tuple[int | None, int, int | None]],
    found: Iterable[tuple[int | None, int, int | None]],
) -> bool:
    """Every expected date is in `found`; a year left out in `found` is not held against it, a day is."""
    found = list(found)
    for year, month, day in expected:
        if not any(
            month == m and (year is None or y is None or year == y) and (day is None or day == d)
            for y, m, d in found
        ):
            return False
    return True


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
