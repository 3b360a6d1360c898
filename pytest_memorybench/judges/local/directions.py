"""The `directions` task: the route an answer describes, as legs between known places.

An answer gives a route as steps: the items of a numbered or bulleted list, else its sentences; a
step that holds several distances ("4 km east to the Library, then 3 km west to the Park") is cut
at its separators (", then", "→", ";" …).  A step with a distance and a heading is one leg; its
origin is the place after "from" / "start at" or the reference of "3 km north of the Park", else
where the previous leg ended; its destination is the place after "to" / "reach" / "arrive at",
else the other place the step names.  A step without a distance ("Start at the Hospital.") only
says where the walk is.  Place names are known ones, read with or without articles inside them
("Statue of the Founder"); a known name that the answer extends with a capitalised word of its own
("Central Park" for "Park") is a place the list does not have, as a reader copying the answer
would write it.  Only the first route counts: the answer's restatement of it (a summary line, an
arrow chain) and alternatives after "alternatively" are not legs of their own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz

from pytest_memorybench.judges.local.text import ARTICLES, clean, normalise
from pytest_memorybench.judges.local.values import SMALL_NUMBERS
from pytest_memorybench.judges.replies import DirectionsReply, Hop

_SMALL_WORDS = "|".join(sorted(SMALL_NUMBERS, key=len, reverse=True))
_DISTANCE = re.compile(
    rf"\b(?P<n>\d+(?:\.\d+)?|{_SMALL_WORDS}|a|an)\s*-?\s*(?:km|kms|kilometers?|kilometres?)\b"
)
_HEADING = re.compile(r"\b(?P<d>north|south|east|west)(?:wards?|bound|ern)?\b")
_FROM_BEFORE = re.compile(
    r"\b(?:from|start(?:ing)?\s+(?:at|from|in)|begin(?:ning)?\s+(?:at|from|in)|leav(?:e|ing)|depart(?:ing)?(?:\s+from)?"
    r"|(?:north|south|east|west)\s+of|back\s+from)\s*(?:the\s+)?$"
)
_TO_BEFORE = re.compile(
    r"\b(?:to|towards?|reach(?:ing)?|arriv(?:e|ing)\s+at|get\s+to|until|end(?:ing)?\s+(?:up\s+)?(?:at|in)|find|visit"
    r")\s*(?:the\s+)?$"
)
_STOP_ROUTE = re.compile(
    r"\b(?:alternatively|another\s+(?:route|option|way)|or\s+you\s+could|a\s+shorter\s+route)\b"
)
_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*•·]|\(\d+\))\s+", re.MULTILINE)
_SEPARATOR = re.compile(
    r",?\s+(?:and\s+)?then\s+|[;:]\s*|\s*(?:→|->|=>)\s*|,\s+(?:another|and\s+finally|finally)\s+|\.\s+"
)


@dataclass(frozen=True)
class _Event:
    start: int
    end: int
    kind: str  # place, km, dir
    value: Any
    role: str = ""  # for places: from, to or ""


def judge_directions(payload: Mapping[str, Any]) -> DirectionsReply:
    """The hops of a route the reply describes, read as the reference's judge extracts them."""
    answer = str(payload["answer"] or "")
    places = [str(place) for place in payload["places"]]
    stop = _STOP_ROUTE.search(clean(answer))
    answer = answer[: stop.start()] if stop else answer
    hops: list[Hop] = []
    gaps: list[int] = []  # where a step heads for a place without saying how far
    where: str | None = None  # where the walk is
    for step in _steps(answer):
        heading = hops[-1]["direction"] if hops else None
        hop, gap, where = _read_step(
            clean(answer[step[0] : step[1]]), _events(answer, step, places), where, heading
        )
        if gap:
            gaps.append(len(hops))
        if hop is not None:
            hops.append(hop)
    hops = _without_restatement(hops, gaps)
    for index, leg in enumerate(hops):  # a leg that names no destination ends where the next begins
        if not leg["destination"] and index + 1 < len(hops):
            leg["destination"] = hops[index + 1]["origin"]
        if not leg["origin"] and index > 0:
            leg["origin"] = hops[index - 1]["destination"]
    why = f"{len(hops)} leg(s) read" if hops else "no legs found"
    return {"hops": hops, "reason": why}


def _read_step(
    text: str, events: list[_Event], where: str | None, previous: str | None
) -> tuple[Hop | None, bool, str | None]:
    """(the step's leg or None, whether it skips a distance, where the walk is after it).

    `previous` is the heading of the last leg, for turns ("turn right") and going back."""
    kms = [event for event in events if event.kind == "km"]
    headings = [event for event in events if event.kind == "dir"]
    spots = [event for event in events if event.kind == "place"]
    if kms and not headings and previous is not None:
        turn = _TURN.search(text)
        if turn is not None:
            headings = [_Event(turn.start(), turn.end(), "dir", _turned(previous, turn.group(0)))]
    if any(
        a.value != b.value and re.search(r"\bor\b", text[a.end : b.start])
        for a, b in zip(headings, headings[1:], strict=False)
    ):
        return None, False, where  # "5 km north or maybe south": no leg anyone could walk
    if not kms or not headings:
        if spots and previous is None:  # "Start at the Library."
            where = next((e.value for e in spots if e.role == "from"), spots[0].value)
        return None, bool(headings) and any(e.role == "to" for e in spots), where
    origin = next((e.value for e in spots if e.role == "from"), None)
    heading = min(headings, key=lambda e: (abs(e.start - kms[0].start), e.start < kms[0].start))
    moved = min(kms[0].start, heading.start)
    joint = next((m for m in _SEPARATOR.finditer(text[:moved]) if m.start() > 0), None)
    gap = (
        joint is not None
        and any(e.start < joint.start() for e in headings)
        and any(e.role == "to" and e.start < joint.start() for e in spots)
    )
    if gap:  # "go south to the Park, and then continue 1 km south to …": the leg is what follows
        spots = [e for e in spots if e.start > joint.start() or e.role == "from"]  # type: ignore[union-attr]
    targets = [e for e in spots if e.role == "to" and e.value != origin]
    after = [e for e in targets if e.start > moved]
    destination = (after or targets)[0].value if targets else None
    if destination is None:
        others = [e.value for e in spots if e.value != origin]
        destination = others[-1] if others else None
    if origin is None:
        before = [e.value for e in spots if e.start < moved and not e.role and e.value != destination]
        origin = before[0] if before else where if where is not None and where != destination else None
    hop = Hop(
        origin=origin or "",
        kilometers=int(round(kms[0].value)),
        direction=heading.value,
        destination=destination or "",
    )
    return hop, gap, destination or where


_TURN = re.compile(
    r"\b(?:turn(?:ing)?\s+)?(?:left|right)\b|\bback\b|\bretrac\w*|\breturn\w*|\bturn\s+around\b"
)
_CLOCKWISE = ("north", "east", "south", "west")


def _turned(heading: str, cue: str) -> str:
    """The heading after a turn to the right or left, or going back the way one came."""
    shift = 1 if "right" in cue else 3 if "left" in cue else 2
    return _CLOCKWISE[(_CLOCKWISE.index(heading) + shift) % 4]


def _steps(answer: str) -> list[tuple[int, int]]:
    """(start, end) of the answer's steps: list items, else the whole text; each cut between its distances."""
    items = [m.end() for m in _ITEM.finditer(answer)]
    if len(items) >= 2:
        bounds = [(start, next((s for s in items if s > start), len(answer))) for start in items]
        blocks = [(0, items[0])] + [(start, _line_end(answer, start, end)) for start, end in bounds]
    else:
        blocks = [(0, len(answer))]
    return [
        piece
        for start, end in blocks
        for piece in _between_distances(answer, start, end)
        if answer[piece[0] : piece[1]].strip()
    ]


def _between_distances(answer: str, start: int, end: int) -> list[tuple[int, int]]:
    """A block cut between each two distances it holds, at the last separator between them (", then",
    "→", a sentence end …), else at the last comma or "and": one piece per leg, whatever its wording."""
    text = clean(answer[start:end])
    distances = list(_DISTANCE.finditer(text))
    pieces, cut = [], 0
    for previous, following in zip(distances, distances[1:], strict=False):
        between = text[previous.end() : following.start()]
        joints = list(_SEPARATOR.finditer(between)) or list(re.finditer(r",\s*|\s+and\s+", between))
        if joints:
            pieces.append((start + cut, start + previous.end() + joints[-1].start()))
            cut = previous.end() + joints[-1].end()
    pieces.append((start + cut, end))
    return pieces


def _line_end(answer: str, start: int, end: int) -> int:
    """An item runs to the next item, but not into a paragraph after the list."""
    blank = answer.find("\n\n", start)
    return end if blank < 0 or blank > end else blank


def _events(answer: str, step: tuple[int, int], places: Sequence[str]) -> list[_Event]:
    begin, end = step
    original = answer[begin:end]
    text = clean(original)
    events = _place_events(original, text, places)
    masked = list(text)
    for event in events:
        masked[event.start : event.end] = " " * (event.end - event.start)
    plain = "".join(masked)
    for match in _DISTANCE.finditer(plain):
        amount = match.group("n")
        number = (
            float(amount)
            if amount[0].isdigit()
            else 1.0
            if amount in ("a", "an")
            else float(SMALL_NUMBERS[amount])
        )
        events.append(_Event(match.start(), match.end(), "km", number))
    for match in _HEADING.finditer(plain):
        events.append(_Event(match.start(), match.end(), "dir", match.group("d")))
    return sorted(events, key=lambda event: event.start)


def _place_events(original: str, text: str, places: Sequence[str]) -> list[_Event]:
    """Mentions of the known places, longest first where they overlap, each with its role cue."""
    found: list[tuple[int, int, str]] = []
    for place in places:
        pattern = _name_pattern(place)
        if pattern is None:
            continue
        matches = [(m.start(), m.end()) for m in pattern.finditer(text)]
        if not matches and len(normalise(place)) >= 5:
            alignment = fuzz.partial_ratio_alignment(normalise(place), text, score_cutoff=90)
            if alignment is not None:
                matches = [_widen_to_words(text, alignment.dest_start, alignment.dest_end)]
        found.extend((start, stop, place) for start, stop in matches)
    found.sort(key=lambda event: (-(event[1] - event[0]), event[0]))
    kept: list[tuple[int, int, str]] = []
    for start, stop, place in found:
        if all(stop <= other[0] or start >= other[1] for other in kept):
            kept.append((start, stop, place))
    events = []
    for start, stop, place in sorted(kept):
        name = _extended_name(original, start, place, places)
        before = text[max(0, start - 30) : start]
        role = "from" if _FROM_BEFORE.search(before) else "to" if _TO_BEFORE.search(before) else ""
        events.append(_Event(start, stop, "place", name, role))
    return events


def _extended_name(original: str, start: int, place: str, places: Sequence[str]) -> str:
    """ "Central Park" where the list says "Park": the answer names a place of its own.

    The word before the mention counts when it is capitalised in mid-sentence (not an article, a
    heading, a word of a known name, or a word capitalised because a sentence or line starts).
    """
    match = re.search(r"([A-Za-z]+)([^A-Za-z]*)$", original[:start])
    if match is None or match.group(2) != " ":
        return place
    previous = match.group(1)
    lead = original[: match.start()].rstrip(" *_\t")
    sentence_start = (
        not lead or lead[-1] in ".!?:\n(" or bool(re.search(r"(?:^|\n)\s*(?:\d+[.)]|[-*•])$", lead))
    )
    known_words = {word.casefold() for name in places for word in re.findall(r"[A-Za-z]+", name)}
    if (
        previous[0].isupper()
        and not sentence_start
        and previous.casefold() not in ARTICLES | {"i"} | known_words
        and not _HEADING.match(previous.lower())
    ):
        return f"{previous} {place}"
    return place


@lru_cache(maxsize=1024)
def _name_pattern(name: str) -> re.Pattern[str] | None:
    words = [word for word in re.findall(r"[a-z0-9]+", clean(name))]
    while words and words[0] in ARTICLES:
        words = words[1:]
    if not words:
        return None
    joiner = r"[\W_]+(?:(?:the|a|an|of)[\W_]+)*"
    return re.compile(
        r"(?<![a-z0-9])" + joiner.join(re.escape(word) for word in words) + r"(?:'?s)?(?![a-z0-9])"
    )


def _widen_to_words(text: str, begin: int, end: int) -> tuple[int, int]:
    while begin > 0 and text[begin - 1].isalnum():
        begin -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return begin, end


def _without_restatement(hops: list[Hop], gaps: Sequence[int] = ()) -> list[Hop]:
    """The route once: a later run of legs that starts over with the first leg's move is a summary.

    The first telling is kept, unless it skips a distance somewhere (a step that heads for a place
    without saying how far) and the restatement is whole: then the restatement is the route.
    """
    first = hops[0] if hops else None
    for index in range(2, len(hops)):
        leg = hops[index]
        assert first is not None
        same_move = (leg["kilometers"], leg["direction"]) == (first["kilometers"], first["direction"])
        if same_move and leg["destination"] in ("", first["destination"]):
            incomplete = any(gap < index for gap in gaps)
            return hops[index:] if incomplete else hops[:index]
    return hops
