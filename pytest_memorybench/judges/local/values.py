"""Values written in text, as the local judge reads them: numbers, dates, times of day, ordinal days.

A number is read in digits or words ("12", "twelve", "a hundred and five", "two dozen", "$68k"), a
date in the forms people write ("June 14", "14th of June", "2023-06-14", "the fourteenth of June",
14/02/2023 when one part cannot be a month), a time of day with or without am/pm ("4:30 pm",
"half past four", "seven o'clock").  Each finder returns what it read and the text with it taken
out, so the words left are compared as words (`text.analyse`); `dates_agree`, `times_agree` and
`same_value` say when two readings are the same value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

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
NUMBER_WORDS = frozenset({*SMALL_NUMBERS, *_TENS, *_SCALES, "hundred", "dozen"})
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
ORDINALS = {
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
    rf"(?:(?:twenty|thirty)[\s-]?(?:{'|'.join(name for name, value in ORDINALS.items() if value < 10)})"
    rf"|{'|'.join(sorted(ORDINALS, key=len, reverse=True))})"
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
_NUMBER = re.compile(
    r"(?<![\w.])(?P<cur>[$£€¥])?\s?(?P<num>\d+(?:\.\d+)?)(?:\s?(?P<suf>k|bn|thousand|million|billion|m)\b)?"
)
_SUFFIX_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}


def ordinal_days(text: str) -> str:
    """A day written as an ordinal word ("the fourteenth of June") rewritten in digits ("14th june")."""

    def digits(match: re.Match[str]) -> str:
        words = re.split(r"[\s-]+", match.group("o"))
        day = sum(ORDINALS.get(word, {"twenty": 20, "thirty": 30}.get(word, 0)) for word in words)
        return f"{day}th {match.group('m')}" if 1 <= day <= 31 else match.group(0)

    for pattern in _ORDINAL_DATES:
        text = pattern.sub(digits, text)
    return text


def find_times(text: str) -> tuple[list[tuple[int, bool]], str]:
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


def find_dates(text: str) -> tuple[list[tuple[int | None, int, int | None]], str]:
    """The (year, month, day) of every date in `text` (lower case), and the text without them."""
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


def find_numbers(text: str) -> list[float]:
    """Every number in `text` (lower case): in digits, with a scale ("12k", "$3 million"), or in words."""
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
            elif word == "and" and seen and index + 1 < len(words) and words[index + 1] in NUMBER_WORDS:
                pass
            else:
                break
            seen = True
            index += 1
        values.append(total + current)
    return values


def same_value(first: float, second: float) -> bool:
    """Whether two numbers are the same value, allowing for floating-point noise."""
    return abs(first - second) <= 1e-9 * max(1.0, abs(first), abs(second))


def has_value(value: float, values: Iterable[float]) -> bool:
    """Whether `value` is among `values`, as `same_value` compares them."""
    return any(same_value(value, other) for other in values)


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
