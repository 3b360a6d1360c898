"""The `items` task: which ground-truth items an answer mentions, and what it lists."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rapidfuzz import fuzz

from pytest_memorybench.judges.local.stance import asserted
from pytest_memorybench.judges.local.text import (
    Analysis,
    abstains,
    analyse,
    clean,
    coverage,
    ordinals,
    phrase_in,
    stem,
    word_found,
)
from pytest_memorybench.judges.local.values import dates_agree, has_value
from pytest_memorybench.judges.replies import ItemsReply

# items and order --------------------------------------------------------------------------------------


def item_score(item: str, answer: str, *, ignore: frozenset[str] = frozenset()) -> tuple[float, int]:
    """(1 | 0.5 | 0, character position of the evidence) for one ground-truth item in an answer.

    An item the answer names only to deny it, among alternatives, in a question or inside an
    abstention (`stance`) earns nothing.
    """
    score, position = _word_score(item, answer, ignore)
    if score and not asserted(clean(answer), _mentions(clean(answer), analyse(item))):
        return 0, -1
    return score, position


# Words that name a kind of event or place, not which one: "the film night" is not "Quiz Night".
GENERIC_ITEM_WORDS = frozenset(
    stem(word)
    for word in """night day evening morning class workshop party show event session meeting trip visit
    festival fair market club centre center hall park street road house district place lake river hill
    mountain cafe restaurant shop store appointment lesson course""".split()
)


def _mentions(lowered: str, wanted: Analysis) -> list[tuple[int, int]]:
    """Where the item's words occur in the answer (each occurrence of each content word, or its text)."""
    spans = [
        (match.start(), match.end())
        for word in wanted.content
        for match in re.finditer(rf"\b{re.escape(word[: max(4, len(word) - 1)])}\w*", lowered)
    ]
    text = clean(wanted.text)
    spans += [(match.start(), match.end()) for match in re.finditer(re.escape(text), lowered)] if text else []
    return spans or [(0, 0)]


def _word_score(item: str, answer: str, ignore: frozenset[str]) -> tuple[float, int]:
    wanted, given = analyse(item), analyse(answer)
    lowered = clean(answer)
    if phrase_in(item, answer) and not (wanted.content_set and wanted.content_set <= ignore):
        return 1, _position(lowered, wanted)
    if wanted.dates:
        if dates_agree(wanted.dates, given.dates):
            return (
                1 if not wanted.content or coverage(wanted.content, given.content_set) >= 0.5 else 0.5
            ), _position(lowered, wanted)
        if any(m == month for _, m, _ in given.dates for _, month, _ in wanted.dates):
            return 0.5, _position(lowered, wanted)
        return 0, -1
    pool = given.content_set - ignore
    words = list(dict.fromkeys(wanted.content))
    numbers_ok = all(has_value(number, given.numbers) for number in wanted.numbers)
    if not words:
        return (1 if wanted.numbers and numbers_ok else 0), _position(lowered, wanted)
    share = coverage(words, pool)
    full, half = (0.5, 0.25) if len(words) > 12 else (0.75, 0.5)
    if share >= full and numbers_ok:
        score: float = 1
    elif (share >= half or (share >= full and not numbers_ok)) and any(
        word_found(word, pool) for word in words if word not in GENERIC_ITEM_WORDS
    ):
        score = 0.5
    else:
        return 0, -1
    return score, _position(lowered, wanted)


def _position(lowered: str, wanted: Analysis) -> int:
    """Where in the answer the first of the item's words occurs (for ordering identified items).

    An item without content words (a date) is placed where its text occurs, so that a list of
    dates keeps the answer's order."""
    positions = []
    for word in wanted.content:
        match = re.search(rf"\b{re.escape(word[: max(4, len(word) - 1)])}", lowered)
        if match:
            positions.append(match.start())
    if not positions and lowered.find(clean(wanted.text)) >= 0:
        positions.append(lowered.find(clean(wanted.text)))
    return min(positions) if positions else len(lowered)


_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)]|\(\d+\)|[a-z][.)])\s+(?P<item>.+)$", re.MULTILINE)


def list_fragments(answer: str) -> list[tuple[int, str]]:
    """(position, text) of the items of a bulleted list or a one-line comma-separated list."""
    found = [(m.start("item"), _item_name(m.group("item"))) for m in _BULLET.finditer(answer)]
    if found:
        return [(position, name) for position, name in found if name]
    lines = [line for line in answer.strip().splitlines() if line.strip()]
    if len(lines) == 1 and (answer.count(",") >= 2 or (answer.count(",") >= 1 and " and " in answer)):
        head, colon, tail = answer.partition(":")
        body = tail if colon else head
        start = len(head) + 1 if colon else 0
        result = []
        for match in re.finditer(r"[^,;]+", body):
            for part in re.split(r"\s+and\s+", match.group(0)):
                name = _item_name(part)
                if name and len(name.split()) <= 6:
                    result.append(
                        (start + match.start() + body[match.start() :].find(part.strip()[:1]), name)
                    )
        return result
    return []


def _item_name(text: str) -> str:
    name = re.split(r":|\s[-–—]\s|\s\(", text, maxsplit=1)[0]
    return name.strip().strip(".;,!?\"'*").strip()


_ABSTENTION_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+|,?\s+but\s+|,?\s+although\s+|,?\s+though\s+")


def judge_items(payload: Mapping[str, Any]) -> ItemsReply:
    """The items an episodic answer identifies, and a credit for each ground-truth item."""
    answer = str(payload["answer"] or "")
    ground_truth = [str(item) for item in payload["ground_truth"]]
    abstaining = abstains(answer)
    evidence, ignore = answer, frozenset[str]()
    if abstaining:
        # A declining answer often repeats the question's words or names what it cannot tell
        # about ("no information about the Hackathon"): only the parts that do not decline count.
        evidence = " ".join(part for part in _ABSTENTION_SPLIT.split(answer) if part and not abstains(part))
        ignore = analyse(str(payload.get("question") or "")).content_set
    scored = [item_score(item, evidence, ignore=ignore) for item in ground_truth]
    matching = [score for score, _ in scored]
    if abstaining and any(score > 0 for score in matching):
        abstaining = False  # "I'm not sure about everyone, but Aiko was there" names an item
    if abstaining:
        identified: list[str] = []
    else:
        located = [
            (position, item)
            for item, (score, position) in zip(ground_truth, scored, strict=True)
            if score > 0
        ]
        for position, fragment in list_fragments(answer):
            if all(item_score(item, fragment)[0] == 0 for item in ground_truth) and not abstains(fragment):
                located.append((position, fragment))
        # Names of the kind asked for that the scorer knows of (every place of a book) count where
        # the answer states them in full, in prose too, unless they are ground-truth items.
        for candidate in (str(c) for c in payload.get("candidates") or ()):
            if any(same_item(candidate, item) for item in ground_truth):
                continue
            score, position = item_score(candidate, answer)
            if score == 1 and not any(same_item(candidate, item) for _, item in located):
                located.append((position, candidate))
        if (
            not ground_truth and not located and not payload.get("candidates")
        ):  # nothing to find, yet it names things
            located = _named(answer)
        identified = list(dict.fromkeys(item for _, item in sorted(located, key=lambda pair: pair[0])))
    found = sum(1 for score in matching if score == 1)
    reason = "the answer abstains" if abstaining else f"{found} of {len(ground_truth)} items found"
    return {"identified": identified, "matching": matching, "reason": reason}


_NAME = re.compile(r"(?<![.!?:\n]\s)(?<!^)\b([A-Z][\w'-]+(?:\s+(?:of\s+|the\s+)?[A-Z][\w'-]+)*)")


def _named(answer: str) -> list[tuple[int, str]]:
    """(position, name) of the proper names an answer states in prose ("the Science Museum")."""
    return [
        (match.start(1), match.group(1))
        for match in _NAME.finditer(answer)
        if match.group(1) not in ("I", "I'm", "I've", "I'd", "I'll")
    ]


def same_item(first: str, second: str) -> bool:
    """Two names of list items denote the same thing (up to spelling, plurals and extra words)."""
    a, b = analyse(first), analyse(second)
    if a.norm == b.norm:
        return True
    if ordinals(first) != ordinals(second):
        return False  # "First driving test" is not the second one
    if a.dates or b.dates:
        return (
            bool(a.dates)
            and bool(b.dates)
            and dates_agree(a.dates, b.dates)
            and dates_agree(b.dates, a.dates)
        )
    if sorted(a.numbers) != sorted(b.numbers):
        return False
    short, long = (a, b) if len(set(a.content)) <= len(set(b.content)) else (b, a)
    if not short.content:
        return False
    if _denied(first) != _denied(second) or _other_deed(first, second):
        return False  # "no dentist" is not "Dentist visit"; "Booked a flight" is not "Flight to Oslo"
    if fuzz.token_sort_ratio(a.norm, b.norm) >= 88:
        return True
    return (
        coverage(short.content, long.content_set) >= 0.66
        and coverage(long.content, short.content_set) >= 0.34
    )


_DENIED = re.compile(r"\b(?:no|not|never|didn'?t|did\s+not|skipped|missed|cancell?ed)\b")
# Deeds around an event that are not the event: planning it, booking it, buying for it, calling it off.
_AROUND = frozenset(
    stem(word)
    for word in (
        "planned booked bought looked considered scheduled postponed cancelled canceled thought".split()
    )
)


def _denied(name: str) -> bool:
    return bool(_DENIED.search(clean(name)))


def _other_deed(first: str, second: str) -> bool:
    """Two names that start with different deeds ("Planned a raised bed" / "Built a raised bed"),
    or one with a deed around the event the other names ("Booked a flight to Oslo" / "Flight to Oslo")."""
    deeds = [_deed(first), _deed(second)]
    if all(deeds):
        return deeds[0] != deeds[1]
    return any(deed in _AROUND for deed in deeds if deed)


def _deed(name: str) -> str | None:
    """The stem of a name's leading past-tense verb ("Planted tomatoes" → "plant"), if it has one."""
    words = re.findall(r"[a-z]+", clean(name))
    if not words:
        return None
    first = words[0]
    return stem(first) if first.endswith("ed") or first in _IRREGULAR_PAST else None


_IRREGULAR_PAST = frozenset(
    "built bought began went took made met ran saw won lost left got gave told sold".split()
)
