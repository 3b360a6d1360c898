"""LoCoMo-Plus's sixth category, *cognitive*: a cue said in one session, and sessions later a trigger
that has no words in common with it and only makes sense if the cue is remembered.

LoCoMo-Plus (Li et al., 2026; github.com/xjtuleeyf/Locomo-Plus, no licence file: we read its data,
we never ship it) gives 401 items in `data/locomo_plus.json`, each a `cue_dialogue` and a
`trigger_query` (lines "A: …" / "B: …") and a `time_gap` ("two weeks later").  Its scripts stitch
each into a LoCoMo conversation (`data/build_conv.py`, `data/unified_input.py`), which we repeat:

- the item `i` goes into conversation `i mod 10` (`unified_input.py`; `build_conv.py`'s own main
  draws one at random, unseeded: `pairing: random` draws it with the run's seed instead);
- the trigger is asked a week after the conversation's last session; the cue is said `time_gap`
  before it (a number or "a"/"an" of days, weeks, months or years as 1, 7, 30 or 365 days), as a
  session of its own placed among the others by date (after a session of the same date);
- a gap in vague words ("several months later", "a couple of months", "a few weeks": 15 of the
  401) is read by `VAGUE`, a couple as 2, a few as 3, several as 5 (`build_conv.py` reads them
  as 0 days, which puts the cue on the trigger's day); a gap still unread is 0 days too, and
  both are counted in the loader's report the run's header prints;
- A and B become the conversation's two speakers.

Its judge scores whether the reply reflects the cue (correct 1, partial 0.5, wrong 0 in the
paper; its code's prompt for this category has only correct and wrong, so `official` counts a
partial link as wrong).  Here the run's judge decides it as a rubric criterion: "The response
should acknowledge: <the cue>" (our generator's pairs: the cue's point in a phrase).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.readers import Malformed, require
from pytest_memorybench.scenarios.locomo.data import Sample, Session, Turn

COGNITIVE = "cognitive"
QUERY_AFTER = timedelta(days=7)  # the trigger: a week after the conversation's last session
LAYOUT = "expected LoCoMo-Plus's items (cue_dialogue, trigger_query, time_gap), as data/locomo_plus.json"
PLUS_DOWNLOAD = (
    "LoCoMo-Plus's data is not shipped: download data/locomo_plus.json from github.com/xjtuleeyf/Locomo-Plus"
    " and pass --mb-data locomo_plus=PATH"
)
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "a": 1, "an": 1,
}  # fmt: skip
_GAP = re.compile(
    r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a|an)\b\s*(day|week|month|year)s?\b"
)
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
# How many a vague word means, as a reader takes it (docs/suites/locomo.md lists the table).
VAGUE = {"a couple of": 2, "a few": 3, "several": 5}
_VAGUE_GAP = re.compile(
    r"\b(a\s+couple(?:\s+of)?|couple\s+of|a\s+few|few|several)\s+(day|week|month|year)s?\b"
)


@dataclass(frozen=True)
class PlusItem:
    """One cue and its trigger, and how long before the trigger the cue was said."""

    cue_dialogue: str
    trigger_query: str
    time_gap: str
    criterion: str | None = None  # our generator's: the cue's point in a phrase (else the cue itself)


@dataclass(frozen=True)
class Stitched:
    """A LoCoMo conversation with a cue session placed in it, and the trigger asked after it."""

    sample: Sample  # the conversation, the cue session among its sessions
    item: PlusItem
    number: int  # the item's position in the LoCoMo-Plus file
    trigger: str  # the trigger's turns, with the speakers' names
    cue: str  # the cue's turns, with the speakers' names (what the judge compares with)
    cue_ids: tuple[int, ...]
    query_time: datetime

    @property
    def id(self) -> str:
        return f"plus-{self.number}"


def load_plus(path: str | Path, tally: LoadTally | None = None) -> list[PlusItem]:
    """LoCoMo-Plus's items; a file of another layout fails with one line (inside `reading`).
    `tally` counts them, and the gaps read by the vague-words table or not read at all."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    require(isinstance(data, list) and bool(data), f"not a list of items; {LAYOUT}")
    items = []
    for number, raw in enumerate(data):
        require(
            isinstance(raw, dict)
            and all(isinstance(raw.get(key), str) for key in ("cue_dialogue", "trigger_query")),
            f"item {number} has no cue_dialogue and trigger_query; {LAYOUT}",
        )
        items.append(PlusItem(raw["cue_dialogue"], raw["trigger_query"], str(raw.get("time_gap") or "")))
    if tally is not None:
        tally.held("LoCoMo-Plus items", len(items))
        for item in items:
            gap = read_gap(item.time_gap)
            if gap.how == "vague":
                tally.note(
                    "LoCoMo-Plus time gaps in vague words, read by the table in docs/suites/locomo.md",
                    f"{item.time_gap!r} as {gap.days} days",
                )
            elif gap.how == "unread":
                tally.note(
                    "LoCoMo-Plus time gaps we cannot read, the cue placed on the trigger's day",
                    repr(item.time_gap),
                )
    return items


@dataclass(frozen=True)
class Gap:
    """A `time_gap` read: its days, and how (`exact`, `vague`: by the VAGUE table, or `unread`: 0)."""

    days: int
    how: str


def read_gap(time_gap: str) -> Gap:
    """ "two weeks later" → 14, "about a month" → 30, "3 years" → 1095, exactly; "several months
    later" → 150 by the VAGUE table; what it cannot read → 0, unread."""
    text = time_gap.lower()
    found = _GAP.search(text)
    if found is not None:
        number, unit = found.groups()
        count = int(number) if number.isdigit() else _NUMBER_WORDS.get(number, 0)
        return Gap(count * _UNIT_DAYS[unit], "exact")
    vague = _VAGUE_GAP.search(text)
    if vague is not None:
        words, unit = vague.groups()
        words = " ".join(words.split())
        key = "a couple of" if "couple" in words else "a few" if "few" in words else "several"
        return Gap(VAGUE[key] * _UNIT_DAYS[unit], "vague")
    return Gap(0, "unread")


def gap_days(time_gap: str) -> int:
    """The days before the trigger `time_gap` says (`read_gap`)."""
    return read_gap(time_gap).days


def ab_turns(dialogue: str) -> list[tuple[str, str]]:
    """The "A: …" and "B: …" lines of a dialogue as (A or B, text); other lines are dropped."""
    turns = []
    for line in dialogue.split("\n"):
        line = line.strip()
        if line[:2] in ("A:", "B:"):
            turns.append((line[0], line[2:].strip()))
    return turns


def conversation_for(number: int, samples: Sequence[Sample], pairing: str, seed: int) -> Sample:
    """The conversation an item is stitched into: `cycle` (unified_input.py) or `random` (seeded)."""
    if pairing == "random":
        return random.Random(f"locomo-plus|{seed}|{number}").choice(list(samples))
    return samples[number % len(samples)]


def stitch(item: PlusItem, number: int, sample: Sample) -> Stitched:
    """The conversation with the cue as a session at its date, and the trigger a week after it."""
    require(bool(sample.sessions), f"conversation {sample.sample_id} has no sessions")
    speakers = {"A": sample.speakers[0], "B": sample.speakers[1]}
    query_time = sample.sessions[-1].when + QUERY_AFTER
    cue_time = query_time - timedelta(days=gap_days(item.time_gap))
    cue_turns = [(speakers[who], text) for who, text in ab_turns(item.cue_dialogue)]
    if not cue_turns:
        raise Malformed(f"item {number}: its cue_dialogue has no 'A:' or 'B:' line")
    trigger_turns = [(speakers[who], text) for who, text in ab_turns(item.trigger_query)]
    if not trigger_turns:
        raise Malformed(f"item {number}: its trigger_query has no 'A:' or 'B:' line")
    cue_session = Session(
        0,
        cue_time.strftime("%I:%M %p on %d %B, %Y").lstrip("0").lower(),
        cue_time,
        tuple(Turn(speaker, f"D0:{index}", text) for index, (speaker, text) in enumerate(cue_turns, start=1)),
    )
    before = [s for s in sample.sessions if s.when <= cue_time]
    after = [s for s in sample.sessions if s.when > cue_time]
    stitched = Sample(sample.index, sample.sample_id, sample.speakers, (*before, cue_session, *after), ())
    return Stitched(
        stitched,
        item,
        number,
        "\n".join(f"{speaker}: {text}" for speaker, text in trigger_turns),
        "\n".join(f"{speaker}: {text}" for speaker, text in cue_turns),
        tuple(turn.id for turn in cue_session.turns),  # D0:n, n: no LoCoMo turn has session 0
        query_time,
    )


def criterion(stitched: Stitched) -> str:
    """What the judge checks the reply against: the reply reflects the cue said earlier."""
    point = stitched.item.criterion or stitched.cue
    return f"The response should acknowledge: {point}"


# Cue / trigger pairs of our own: what is said, what is asked weeks later, and the cue's point.
# No content word of a cue is in its trigger (`shared_words`, checked by the tests).
_PAIRS = (
    (
        "A: My doctor told me I must keep clear of peanuts now, even tiny traces.",
        "A: Could you suggest a few treats to pack for Saturday's long drive?",
        "avoiding peanuts",
        "two weeks later",
    ),
    (
        "A: I tore a ligament in my knee at football; the physio banned jogging until spring.",
        "A: Fancy signing up with me for the charity 10k next month?",
        "the knee injury, no jogging",
        "a month later",
    ),
    (
        "B: Since losing the bakery job I am putting aside every penny I can.",
        "B: There's a concert in Vienna I'd love to fly out for. Should I book it?",
        "saving money after losing the job",
        "three weeks later",
    ),
    (
        "A: Ever since that fall from the ladder, heights make me panic.",
        "A: Want to try the glass-floored skywalk at the observatory with me?",
        "the fear of heights",
        "two months later",
    ),
    (
        "B: I have given up meat and dairy completely; I am vegan now.",
        "B: Let's fire up the grill for Sunday's barbecue! What should we buy?",
        "being vegan",
        "six weeks later",
    ),
    (
        "A: My daughter sits her final exams on the twelfth, so the house has to stay calm.",
        "A: Should we host the street party here that week?",
        "the daughter's exams needing calm",
        "a month later",
    ),
    (
        "B: My old cat panics when left alone; she cries all night whenever I travel.",
        "B: I'm tempted by a week-long hiking trip in the Alps. What do you think?",
        "the cat that cannot be left alone",
        "three months later",
    ),
    (
        "A: I promised my sister I would quit caffeine for the whole year.",
        "A: What should I order at the café tomorrow morning?",
        "quitting caffeine",
        "two weeks later",
    ),
)
_STOP = frozenset(
    (
        "a about all am an and any are as at be been being but by can could did do does each every "
        "for from had has have he her here his how i if in into is it its just let's lets me must "
        "my now of on or our out over she should since so some than that the their them then there "
        "these they this those to too up very was we were what when where which who whom why will "
        "with would you your"
    ).split()
)


def content_words(text: str) -> set[str]:
    """A text's words that carry meaning: lower case, no speaker label, no stop word."""
    body = re.sub(r"^[AB]:", "", text.strip())
    return {w for w in re.findall(r"[a-z]+", body.lower()) if w not in _STOP and len(w) > 2}


def shared_words(cue: str, trigger: str) -> set[str]:
    """Content words a cue and its trigger share (LoCoMo-Plus's triggers share none)."""
    return content_words(cue) & content_words(trigger)


def generated_items(count: int) -> list[PlusItem]:
    """`count` cue / trigger pairs of our own (they repeat beyond eight)."""
    return [
        PlusItem(cue, trigger, gap, point)
        for cue, trigger, point, gap in (_PAIRS[index % len(_PAIRS)] for index in range(count))
    ]


def plus_json(items: Sequence[PlusItem]) -> list[dict[str, Any]]:
    """Items in LoCoMo-Plus's file layout (for tests and for our generator's saved files)."""
    return [
        {"cue_dialogue": i.cue_dialogue, "trigger_query": i.trigger_query, "time_gap": i.time_gap}
        for i in items
    ]


__all__ = [
    "COGNITIVE",
    "PLUS_DOWNLOAD",
    "VAGUE",
    "Gap",
    "PlusItem",
    "Stitched",
    "ab_turns",
    "conversation_for",
    "content_words",
    "criterion",
    "generated_items",
    "gap_days",
    "load_plus",
    "plus_json",
    "read_gap",
    "shared_words",
    "stitch",
]
