"""Dates an answer states or implies, as the spans of days they cover, for the `answer` task.

Pipelines answer LoCoMo's temporal questions as they read the transcript: "last week, on 9 May
2023", "around 3 years before 21 January 2022", "the weekend before 10 July 2023", "a month
before 27 March 2022", and the gold answers are written the same way ("The week before 16 May
2023").  So a date is read as the days it covers (`Span`) with the grain it is stated at, anchored
where it names its anchor:

  absolute     "14 March 2023" (any format the text analysis reads), "March 2023", "2019"
  arithmetic   "N days / weeks / months / years before / after ANCHOR": the day N days or weeks
               off, the month or year N months or years off ("around" changes nothing: the answer
               commits to the unit it counts in)
  calendar     "the day / week / weekend / month / year before / after ANCHOR", "the Friday
               before ANCHOR"
  parts        "early / mid / late MONTH YEAR" (thirds of the month), "the first / last week of
               MONTH YEAR", "the end / beginning of MONTH YEAR"

An answer's date is right when one of its spans lies inside one of the gold's: as fine as the
gold or finer ("19 March 2023" for "March 2023"), never coarser ("March 2023" for "14 March").
Dates relative to when something was said ("yesterday", "last Tuesday") name no anchor and are not
read; an answer that only gives such a date is left to the other rules, which refuse it.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import partial
from typing import TypeAlias

from pytest_memorybench.judges.local.text import analyse
from pytest_memorybench.judges.local.values import SMALL_NUMBERS

# How many units a relative date counts: the text analysis's number words, and the article ones.
_NUMBER_WORDS = {**SMALL_NUMBERS, "a": 1, "an": 1, "a couple of": 2, "a few": 3}
_WEEKDAYS = {name.lower(): index for index, name in enumerate(calendar.day_name)}
_MONTH_NAMES = "|".join(name.lower() for name in calendar.month_name[1:])
_MONTH_ABBREVIATIONS = "|".join(name.lower() for name in calendar.month_abbr[1:])
_MONTH = rf"(?:{_MONTH_NAMES}|{_MONTH_ABBREVIATIONS})\.?"
# An anchor: a day, a month or a year, in the forms the text analysis reads (checked there).
_ANCHOR = (
    rf"(?:(?:\d{{1,2}}(?:st|nd|rd|th)?(?:\s+of)?\s+{_MONTH},?\s+\d{{4}})"
    rf"|(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}})"
    rf"|(?:\d{{4}}-\d{{2}}-\d{{2}})"
    rf"|(?:{_MONTH},?\s+\d{{4}})"
    rf"|(?:\d{{4}}))"
)
_COUNT = rf"(?P<count>\d+|{'|'.join(sorted(_NUMBER_WORDS, key=len, reverse=True))})"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_WAY = r"(?P<way>before|after|prior to|earlier than|later than)"
_ARITHMETIC = re.compile(rf"\b{_COUNT}\s+{_UNIT}\s+{_WAY}\s+(?P<anchor>{_ANCHOR})")
_CALENDAR = re.compile(
    rf"\bthe\s+(?P<unit>day|week|weekend|month|year|{'|'.join(_WEEKDAYS)})\s+{_WAY}\s+(?P<anchor>{_ANCHOR})"
)
_PART = re.compile(
    rf"\b(?:(?P<third>early|mid|late|the\s+end\s+of|the\s+beginning\s+of|the\s+start\s+of|end\s+of)"
    rf"|(?:the\s+)?(?P<week>first|last)\s+week\s+of)[\s-]+(?P<anchor>{_MONTH},?\s+\d{{4}})"
)
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")
_MONTH_COMMA = re.compile(rf"\b({_MONTH}),\s+(\d{{4}})\b")
# What an expected answer that is only a date says around it ("The week before …", "around 2019").
_DATE_WORDS = frozenset(
    "around about roughly approximately last early mid late week weekend day month year on in of the"
    " sometime".split()
) | frozenset(_WEEKDAYS)


@dataclass(frozen=True)
class Span:
    """The days a date covers, first and last included; `grain` is what it was stated in."""

    first: date
    last: date
    grain: str

    def inside(self, other: Span) -> bool:
        return other.first <= self.first and self.last <= other.last


Reader: TypeAlias = Callable[[re.Match[str], Span], Span | None]  # a relative date's span from its anchor


def _lowered(text: str) -> str:
    """Lower case, single spaces, "March, 2023" as "March 2023" (the text analysis reads the latter)."""
    return _MONTH_COMMA.sub(r"\1 \2", " ".join(text.lower().split()))


def spans(text: str) -> list[Span]:
    """Every date `text` states or implies with a named anchor, relative ones first."""
    lowered = _lowered(text)
    found: list[Span] = []
    readers: tuple[tuple[re.Pattern[str], Reader], ...] = (
        (_ARITHMETIC, _arithmetic),
        (_CALENDAR, _calendar),
        (_PART, _part),
    )
    for pattern, read in readers:
        lowered = pattern.sub(partial(_read, read=read, found=found), lowered)
    found.extend(_absolute(lowered))
    return found


def _read(match: re.Match[str], *, read: Reader, found: list[Span]) -> str:
    """The span a relative date's match gives, kept in `found`; the text it leaves (its anchor is
    no date the answer states, so the match is taken out when it was read)."""
    anchor = _anchor(match.group("anchor"))
    span = read(match, anchor) if anchor is not None else None
    if span is None:
        return match.group(0)
    found.append(span)
    return " "


def is_date_answer(text: str) -> bool:
    """Whether `text` says a date and nothing else worth comparing (an expected answer such as "The
    week before 9 June 2023" or "2019"), so it is compared by its days."""
    if not spans(text):
        return False
    rest = _PART.sub(" ", _CALENDAR.sub(" ", _ARITHMETIC.sub(" ", _lowered(text))))
    return not [word for word in analyse(rest).content if word not in _DATE_WORDS]


def _anchor(text: str) -> Span | None:
    found = _absolute(text)
    return found[0] if len(found) == 1 else None


def _absolute(text: str) -> list[Span]:
    analysis = analyse(text)
    found: list[Span] = []
    years_in_dates = set()
    for year, month, day in analysis.dates:
        if year is None:
            continue  # a day without its year is not a date to compare
        years_in_dates.add(year)
        last_day = calendar.monthrange(year, month)[1]
        if day is None:
            found.append(Span(date(year, month, 1), date(year, month, last_day), "month"))
        elif day <= last_day:
            found.append(Span(date(year, month, day), date(year, month, day), "day"))
    for match in _YEAR.finditer(text):
        year = int(match.group(1))
        if year not in years_in_dates:
            found.append(Span(date(year, 1, 1), date(year, 12, 31), "year"))
    return found


def _count(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBER_WORDS[text]


def _arithmetic(match: re.Match[str], anchor: Span) -> Span | None:
    count = _count(match.group("count"))
    sign = -1 if match.group("way") in ("before", "prior to", "earlier than") else 1
    unit = match.group("unit")
    if unit in ("day", "week"):
        if anchor.grain != "day":
            return None
        day = anchor.first + timedelta(days=sign * count * (7 if unit == "week" else 1))
        return Span(day, day, "day")
    months = sign * count * (12 if unit == "year" else 1)
    index = anchor.first.year * 12 + anchor.first.month - 1 + months
    year, month = divmod(index, 12)
    if unit == "year" or anchor.grain == "year":
        return Span(date(year, 1, 1), date(year, 12, 31), "year")
    return _month(year, month + 1)


def _calendar(match: re.Match[str], anchor: Span) -> Span | None:
    unit, before = match.group("unit"), match.group("way") in ("before", "prior to", "earlier than")
    if unit in ("month", "year"):
        return _arithmetic_span(anchor, unit, -1 if before else 1)
    if anchor.grain != "day":
        return None
    start = anchor.first
    if unit == "day":
        day = start + timedelta(days=-1 if before else 1)
        return Span(day, day, "day")
    if unit == "week":
        return (
            Span(start - timedelta(days=7), start - timedelta(days=1), "week")
            if before
            else Span(start + timedelta(days=1), start + timedelta(days=7), "week")
        )
    if unit == "weekend":
        if before:
            sunday = _weekday_from(start, 6, before=True)
            return Span(sunday - timedelta(days=1), sunday, "weekend")
        saturday = _weekday_from(start, 5, before=False)
        return Span(saturday, saturday + timedelta(days=1), "weekend")
    day = _weekday_from(start, _WEEKDAYS[unit], before)
    return Span(day, day, "day")


def _arithmetic_span(anchor: Span, unit: str, sign: int) -> Span:
    if unit == "year":
        year = anchor.first.year + sign
        return Span(date(year, 1, 1), date(year, 12, 31), "year")
    year, month = divmod(anchor.first.year * 12 + anchor.first.month - 1 + sign, 12)
    return _month(year, month + 1)


def _weekday_from(start: date, weekday: int, before: bool) -> date:
    """The nearest `weekday` strictly before (or after) `start`."""
    step = -1 if before else 1
    day = start + timedelta(days=step)
    while day.weekday() != weekday:
        day += timedelta(days=step)
    return day


def _part(match: re.Match[str], anchor: Span) -> Span | None:
    if anchor.grain != "month":
        return None
    first, last = anchor.first, anchor.last
    week, third = match.group("week"), " ".join((match.group("third") or "").split())
    if week == "first" or third in ("the beginning of", "the start of"):
        return Span(first, first + timedelta(days=6 if week else 9), "part")
    if week == "last" or third in ("the end of", "end of"):
        return Span(last - timedelta(days=6 if week else 9), last, "part")
    if third == "early":
        return Span(first, first + timedelta(days=9), "part")
    if third == "mid":
        return Span(first + timedelta(days=10), first + timedelta(days=19), "part")
    return Span(first + timedelta(days=20), last, "part")


def _month(year: int, month: int) -> Span:
    return Span(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]), "month")


def same_date(answer: str, expected: str) -> bool | None:
    """Whether one of the dates `answer` gives lies inside one of `expected`'s; None when the answer
    gives no date it names an anchor for (the other rules judge it)."""
    given = spans(answer)
    if not given:
        return None
    wanted = spans(expected)
    return any(span.inside(gold) for span in given for gold in wanted)
