"""The `equivalence` task: do two snippets state the same event or fact?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rapidfuzz import fuzz

from pytest_memorybench.judges.local.text import (
    analyse,
    coverage,
    dates_agree,
    has_value,
)


def judge_equivalence(payload: Mapping[str, Any]) -> dict[str, Any]:
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
    if not short.content:
        return {"equivalent": False, "reason": "nothing to compare"}
    there, back = coverage(short.content, long.content_set), coverage(long.content, short.content_set)
    # A short label every word of which the longer text uses ("Core functionality" in "Setting up
    # the core functionality, with tests") names the same event, however much the other adds.
    contained = there == 1.0 and len(set(short.content)) >= 2
    same = fuzz.token_sort_ratio(first.norm, second.norm) >= 90 or (there >= 0.7 and back >= 0.35) or contained
    return {"equivalent": same, "reason": f"word overlap {there:.0%} / {back:.0%}"}

