"""The `directions` task: the route an answer describes, as legs between known places."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz

from pytest_memorybench.judges.local.text import (
    ARTICLES,
    SMALL_NUMBERS,
    clean,
    normalise,
)

# directions ---------------------------------------------------------------------------------------

_SMALL_WORDS = "|".join(sorted(SMALL_NUMBERS, key=len, reverse=True))
_DISTANCE = re.compile(
    rf"\b(?P<n>\d+(?:\.\d+)?|{_SMALL_WORDS}|a|an)\s*-?\s*(?:km|kms|kilometers?|kilometres?)\b"
)
_HEADING = re.compile(r"\b(?P<d>north|south|east|west)(?:wards?|bound)?\b")
_FROM_BEFORE = re.compile(r"\b(?:from|start(?:ing)?\s+(?:at|from|in)|begin(?:ning)?\s+(?:at|from|in)|leav(?:e|ing))\s*(?:the\s+)?$")
_TO_BEFORE = re.compile(r"\b(?:to|towards?|reach(?:ing)?|arriv(?:e|ing)\s+at|until|end(?:ing)?\s+(?:up\s+)?(?:at|in))\s*(?:the\s+)?$")


@dataclass
class _Leg:
    origin: str | None
    kilometers: int | None = None
    direction: str | None = None


def judge_directions(payload: Mapping[str, Any]) -> dict[str, Any]:
    answer = str(payload["answer"] or "")
    places = [str(place) for place in payload["places"]]
    text = clean(answer)
    events = _place_events(text, places)
    masked = list(text)
    for begin, end, _, _ in events:
        masked[begin:end] = " " * (end - begin)
    plain = "".join(masked)
    for match in _DISTANCE.finditer(plain):
        amount = match.group("n")
        number = float(amount) if amount[0].isdigit() else 1.0 if amount in ("a", "an") else float(SMALL_NUMBERS[amount])
        events.append((match.start(), match.end(), "km", int(round(number))))
    for match in _HEADING.finditer(plain):
        events.append((match.start(), match.end(), "dir", match.group("d")))
    events.sort()

    hops: list[dict[str, Any]] = []
    current: str | None = None
    leg: _Leg | None = None

    def finish(destination: str | None) -> None:
        nonlocal current, leg
        if leg is not None and leg.kilometers is not None and leg.direction is not None:
            hops.append({"origin": leg.origin or current or "", "kilometers": leg.kilometers,
                         "direction": leg.direction, "destination": destination or ""})
        current, leg = destination, None

    for begin, _, kind, value in events:
        if kind in ("km", "dir"):
            field = "kilometers" if kind == "km" else "direction"
            if leg is not None and getattr(leg, field) is not None:
                finish(None)  # a new leg starts before the last one named where it ends
            if leg is None:
                leg = _Leg(origin=current)
            setattr(leg, field, value)
            continue
        before = text[max(0, begin - 30) : begin]
        moving = leg is not None and (leg.kilometers is not None or leg.direction is not None)
        if _FROM_BEFORE.search(before):
            if moving:
                assert leg is not None
                leg.origin = value
            else:
                current = value
        elif moving:
            finish(value)
        elif not _TO_BEFORE.search(before):
            current = value  # "Start at the Library." (a bare "to X" without a movement is the goal)
    if leg is not None:
        finish(None)
    why = f"{len(hops)} leg(s) read" if hops else "no legs found"
    return {"hops": hops, "reason": why}


def _place_events(text: str, places: Sequence[str]) -> list[tuple[int, int, str, Any]]:
    """Mentions of the known places in `text`, longest first where they overlap."""
    found: list[tuple[int, int, str, Any]] = []
    for place in places:
        pattern = _name_pattern(place)
        if pattern is None:
            continue
        matches = [(m.start(), m.end()) for m in pattern.finditer(text)]
        if not matches and len(normalise(place)) >= 5:
            alignment = fuzz.partial_ratio_alignment(normalise(place), text, score_cutoff=90)
            if alignment is not None:
                matches = [_widen_to_words(text, alignment.dest_start, alignment.dest_end)]
        found.extend((begin, end, "place", place) for begin, end in matches)
    found.sort(key=lambda event: (-(event[1] - event[0]), event[0]))
    kept: list[tuple[int, int, str, Any]] = []
    for event in found:
        if all(event[1] <= other[0] or event[0] >= other[1] for other in kept):
            kept.append(event)
    return sorted(kept)


@lru_cache(maxsize=1024)
def _name_pattern(name: str) -> re.Pattern[str] | None:
    words = [word for word in re.findall(r"[a-z0-9]+", clean(name))]
    while words and words[0] in ARTICLES:
        words = words[1:]
    if not words:
        return None
    return re.compile(r"(?<![a-z0-9])" + r"[\W_]+".join(re.escape(word) for word in words) + r"(?:'?s)?(?![a-z0-9])")


def _widen_to_words(text: str, begin: int, end: int) -> tuple[int, int]:
    while begin > 0 and text[begin - 1].isalnum():
        begin -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return begin, end

