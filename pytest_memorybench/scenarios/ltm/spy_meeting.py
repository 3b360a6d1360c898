"""Spy Meeting (skills R, I): three coded messages say when, where and with what to meet.

GoodAI paper App. A.7: an intro line names three people; each then sends one coded message, one
for the time, one for a thing to bring and one for the place, in random order and from a random
sender; finally the agent is asked when and where the meeting happens and what to bring.  The
senders are Faker full names (en_US and en_IE, seeded per test); the clue catalogue (6 times,
5 things, 6 places; the paper has 5, 4 and 5), its interpretation keywords, the message templates
and the question's wording are our own.  No reset statement, as in the reference.

Scoring (one question) with `scoring.keywords.score_keywords`: a clue is decoded when any of its
keywords occurs in the reply as a whole word (`\\bkeyword\\b`); partial credit per clue; a reply
that also says a keyword of a catalogue clue that was *not* given (and is no keyword of a given
one) is confused, which costs one clue's worth, once; score = max((decoded − confusion) / 3, 0).
Repeating the coded phrases decodes nothing (no coded phrase contains a keyword) and scores 0.
  paper     keywords ignore case (App. A.7.1 describes string matching of interpretations, not
            case); the confusion penalty applies, as App. A.7.1 states it ("it checks that terms
            belonging to alternative statements are not present … a penalisation is applied if
            incorrect interpretations are found"), with the reference's size since the paper gives
            none.
  official  keywords are case-sensitive, as the reference's regexes are ("Midnight" opening a
            sentence is missed, and so is a confused "Key" heading), with the same penalty; a clue
            none of whose keywords the reply says is put to the judge (`interpretation` task: does
            the reply decode it as something meaning one of the keywords?), as the reference asks
            gpt-4-turbo.  Benchmark 3's stored verdicts show that fallback at work ("lock-picking"
            accepted for "pick", "seaport" for "port", a restated clue refused).

Converted GoodAI definitions (`from_goodai`) take the other clues from the folder's other
examples (GoodAI's whole catalogue is not ours to ship): a keyword of a clue the run gave another
test is a confusion, a later version of the same clue's list ("port", "warehouse", "seaport") is not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from typing_extensions import TypedDict

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.judges.base import Judge, JudgeTask
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import GoodAIDefinitionFile, goodai_definition
from pytest_memorybench.scenarios.ltm.name_list import seeded_faker
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.waits import spread_script
from pytest_memorybench.scoring.keywords import score_keywords
from pytest_memorybench.scoring.profiles import OFFICIAL, PAPER, Profile
from pytest_memorybench.scoring.text import matches_at_word_boundaries

NAME = "ltm.spy_meeting"
SKILLS = ("recall", "information_integration")


@dataclass(frozen=True)
class Clue:
    """A coded phrase, the keywords a decoding may use, and the decoding an ideal agent gives."""

    kind: str  # "time" | "thing" | "place"
    code: str
    keywords: tuple[str, ...]
    decoded: str


class ClueRecord(TypedDict):
    """A clue as a definition's `expected["clues"]` holds it: what the scorer needs of it."""

    kind: str  # "time" | "thing" | "place", or "clue" in a GoodAI file whose line names none
    code: str
    keywords: list[str]


TIMES = (
    Clue(
        "time",
        "when the first rooster crows",
        ("dawn", "daybreak", "sunrise", "first light", "morning"),
        "at dawn",
    ),
    Clue("time", "when the shadows are at their shortest", ("noon", "midday", "lunchtime"), "at noon"),
    Clue(
        "time",
        "when the streetlamps flicker on",
        ("dusk", "sunset", "twilight", "nightfall", "evening"),
        "at dusk",
    ),
    Clue(
        "time",
        "when the whole town is asleep",
        ("midnight", "night", "nighttime", "small hours"),
        "at midnight",
    ),
    Clue(
        "time",
        "when the kettles whistle after lunch",
        ("afternoon", "teatime", "tea time"),
        "in the afternoon",
    ),
    Clue(
        "time",
        "when the bakers light their ovens",
        ("dawn", "daybreak", "morning", "sunrise"),
        "early in the morning",
    ),
)
THINGS = (
    Clue(
        "thing",
        "something that shows the way in the dark",
        ("torch", "flashlight", "lantern", "candle"),
        "a torch",
    ),
    Clue(
        "thing",
        "a way to talk without being overheard",
        ("radio", "walkie-talkie", "walkie-talkies", "phone", "transmitter", "earpiece"),
        "a radio",
    ),
    Clue(
        "thing",
        "something that hides your face",
        ("mask", "disguise", "balaclava", "hood", "sunglasses"),
        "a mask",
    ),
    Clue("thing", "a way over the garden wall", ("ladder", "rope", "grappling hook"), "a ladder"),
    Clue(
        "thing", "something to pay the informant", ("cash", "money", "banknotes", "coins", "payment"), "cash"
    ),
)
PLACES = (
    Clue("place", "where the ships are guided home", ("lighthouse",), "at the lighthouse"),
    Clue(
        "place",
        "where the books are kept",
        ("library", "bookshop", "bookstore", "archive", "archives"),
        "at the library",
    ),
    Clue("place", "where the loaves come out warm", ("bakery", "bakehouse", "baker"), "at the bakery"),
    Clue(
        "place",
        "where the dead are resting",
        ("cemetery", "graveyard", "churchyard", "crypt", "tomb"),
        "at the cemetery",
    ),
    Clue("place", "where the horses are kept", ("stable", "stables", "barn", "ranch"), "at the stables"),
    Clue("place", "where the wind turns the sails", ("windmill", "mill"), "at the windmill"),
)
CATALOGUE = {"time": TIMES, "thing": THINGS, "place": PLACES}

INTRO = "Three people are about to send you secret messages: {0}, {1} and {2}."
TEMPLATES = {
    "time": "{name}: We meet {code}.",
    "thing": "{name}: Make sure you bring {code}.",
    "place": "{name}: Our meeting point is {code}.",
}
QUESTION = (
    "Putting together the secret messages you have received, tell me as precisely as you can when and "
    "where the meeting will take place and what you should bring."
)


@dataclass(frozen=True)
class SpyMeetingParams:
    """Nothing to set in the paper's configuration; the senders' locales are the reference's."""


def all_keywords() -> set[str]:
    """Every keyword of every clue of the catalogue."""
    return {word for clues in CATALOGUE.values() for clue in clues for word in clue.keywords}


def _names(seed: int, repetition: int) -> list[str]:
    """Three different Faker full names, none of which says a keyword ("Rose Baker" would)."""
    fake = seeded_faker(f"{NAME}|names|{seed}|{repetition}")
    keywords = all_keywords()
    names: list[str] = []
    while len(names) < 3:
        name = fake.name()
        if name not in names and not any(matches_at_word_boundaries(word, name) for word in keywords):
            names.append(name)
    return names


def ideal_answer(clues: Sequence[Clue]) -> str:
    """The decoded meeting as a perfect agent states it."""
    by_kind = {clue.kind: clue.decoded for clue in clues}
    return f"We meet {by_kind['time']} {by_kind['place']}, and I should bring {by_kind['thing']}."


class SpyMeeting:
    """`ltm.spy_meeting`: the time, place and thing three coded messages mean."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(SpyMeetingParams, NAME, params, seed, repetition)
        names = _names(seed, repetition)
        kinds = rng.sample(sorted(CATALOGUE), 3)
        senders = rng.sample(names, 3)
        clues = [rng.choice(CATALOGUE[kind]) for kind in kinds]
        lines = [INTRO.format(*names)]
        lines += [
            TEMPLATES[clue.kind].format(name=sender, code=clue.code)
            for sender, clue in zip(senders, clues, strict=True)
        ]
        lines.append(QUESTION)
        script = spread_script(lines)
        others = [list(c.keywords) for kind in sorted(CATALOGUE) for c in CATALOGUE[kind] if c not in clues]
        ideal = (ideal_answer(clues),)
        expected = {
            "clues": [ClueRecord(kind=c.kind, code=c.code, keywords=list(c.keywords)) for c in clues],
            "other_keywords": others,
        }
        params = asdict(settings)
        return definition(self, suite, repetition, seed, script, ideal, expected, params)

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI Spy Meeting file: its script and waits; its keyword lists, in script order.

        The ideal answer names the first keyword of each clue.  `other_keywords` are the keyword
        lists of the folder's other examples (`raw["_examples"]`): the confusion penalty sees the
        clues of the run, not GoodAI's whole catalogue, which is not ours to ship.
        """
        lists = [list(map(str, keywords)) for keywords in raw["expected_responses"]]
        others = {
            tuple(map(str, keywords))
            for example in raw.get("_examples", [])
            if isinstance(example, list)
            for keywords in example
            if isinstance(keywords, list)
        }
        messages = [
            text
            for text, question in zip(raw["script"][1:], raw["is_question"][1:], strict=False)
            if not question
        ]
        clues = [
            ClueRecord(kind=_goodai_kind(text), code=text.split(":", 1)[-1].strip(), keywords=keywords)
            for text, keywords in zip(messages, lists, strict=True)
        ]
        labels = {"time": "Time", "place": "Place", "thing": "Bring"}
        ideal = " ".join(f"{labels.get(c['kind'], 'Also')}: {c['keywords'][0]}." for c in clues)
        expected = {"clues": clues, "other_keywords": [list(keywords) for keywords in sorted(others)]}
        return goodai_definition(self, raw, example_id, suite, repetition, (ideal,), expected)

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        reply = responses[-1] if responses else ""
        verdicts = None
        if context.profile == OFFICIAL:
            verdicts = await interpretations(definition.expected["clues"], reply, context.judge)
        return score_spy_meeting(definition.expected, reply, context.profile, verdicts)


def _goodai_kind(message: str) -> str:
    body = message.split(":", 1)[-1]
    for kind, cue in (("time", r"\btime\b"), ("thing", r"\bbring\b"), ("place", r"\brendezvous\b")):
        if re.search(cue, body, re.IGNORECASE):
            return kind
    return "clue"


async def interpretations(clues: Sequence[ClueRecord], reply: str, judge: Judge | None) -> list[bool | None]:
    """The judge's word on each clue whose keywords the reply lacks (None where one is there)."""
    judge = judge or LocalJudge()
    verdicts: list[bool | None] = []
    for clue in clues:
        if any(matches_at_word_boundaries(word, reply, case_sensitive=True) for word in clue["keywords"]):
            verdicts.append(None)
            continue
        task = JudgeTask(
            "interpretation",
            {"statement": clue["code"], "keywords": list(clue["keywords"]), "answer": reply},
            NAME,
        )
        verdict = await judge.judge(task)
        verdicts.append(bool((verdict.data or {}).get("valid")) if verdict.ok else False)
    return verdicts


def score_spy_meeting(
    expected: Mapping[str, Any], reply: str, profile: Profile, verdicts: Sequence[bool | None] | None = None
) -> Score:
    """A reply's credit per decoded clue, minus one clue for any confusion, by the profile's rule."""
    if profile not in (PAPER, OFFICIAL):
        raise ValueError(f"unknown scoring profile {profile!r}")
    clues: list[ClueRecord] = expected["clues"]
    verdict = score_keywords(
        [clue["keywords"] for clue in clues],
        reply,
        case_sensitive=profile == OFFICIAL,
        other_clue_keywords=_other_clues(expected.get("other_keywords", []), clues),
        interpretation_verdicts=verdicts,
    )
    named = tuple(
        reason.replace(f"clue {index + 1}:", f"clue {index + 1} ({clues[index]['kind']}):", 1)
        if index < len(clues)
        else reason
        for index, reason in enumerate(verdict.reasons)
    )
    return Score(verdict.value, (*named, f"{profile} profile"))


def _other_clues(lists: Sequence[Sequence[str]], clues: Sequence[ClueRecord]) -> list[Sequence[str]]:
    """The keyword lists of other clues: a list sharing a keyword with a given clue is that clue in
    another version of the catalogue (GoodAI added "seaport" to "port", "warehouse"), not another clue."""
    given = {word for clue in clues for word in clue["keywords"]}
    return [keywords for keywords in lists if not given & set(keywords)]


SCENARIO = SpyMeeting()
