"""Name List (skills R, C): the user changes their name several times, then asks for all of them.

GoodAI paper App. A.4: first names from Faker's English-US and Irish databases, each combined with
one of six statement templates; the standard configuration gives five names, then asks for all of
them "as a JSON list".  The expected answer is every name given, in order.  The templates, the
question's wording and the reset statement are our own (same meaning as the paper's).

Names are Faker first names (`en_US` and `en_IE`) drawn from one stream seeded by the suite seed:
repetition r takes the r-th block of `name_changes` names, so every name in a test is new within
the test *and* differs from the names of every other repetition of the same seed.  That makes the
paper's small-span failure mode ("many agents retrieve names from that previous repetition",
App. D) visible as a wrong name.  (The reference does not seed Faker; its names repeat across
repetitions at random.)  Names depend on the installed Faker version.

After the question the reset statement asks the agent to forget the names, so the next
repetition starts from no name.

Scoring (one question), with score = correct / max(#expected, #answered) (paper Eq. 1): answered
items are lower-cased; each one still in the expected multiset counts once and is removed from it,
so missing, extra and repeated names all cost; a reply that cannot be parsed scores 0 with a reason.
JSON is read leniently in both profiles (code fences, leading prose, trailing commas, comments …,
`scoring.jsonlist.parse_lenient_json`, the reference's repairs).
  paper     `scoring.jsonlist.score_json_list`: the reply must be a JSON list of strings, or an
            object holding a single list (`{"names": [...]}`), which is read as that list — the
            wrapper the paper's App. B.3 credits by hand for Shopping; anything else scores 0.
  official  as the reference code: whatever parsed is iterated and each element lower-cased, so an
            object counts its *keys* as the answered names (`{"names": [...]}` answers the single
            name "names" and scores 0, as the stored Mixtral verdict does), a JSON string counts its
            characters, and a number, a boolean, null or a list holding anything but strings is "not
            in the correct format" and scores 0.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import (
    GoodAIDefinitionFile,
    goodai_definition,
    goodai_format,
)
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least
from pytest_memorybench.scenarios.waits import spread_script
from pytest_memorybench.scoring.jsonlist import matched_share, parse_lenient_json, score_json_list
from pytest_memorybench.scoring.profiles import OFFICIAL, PROFILES

if TYPE_CHECKING:
    from faker import Faker

NAME = "ltm.name_list"
SKILLS = ("recall", "conflicting_information")
LOCALES = ("en_US", "en_IE")
QUESTION = "Tell me every name I have given you so far, written as a JSON list."
RESET_MESSAGE = (
    "Please forget, or simply ignore, every name I have told you before this message: "
    "for now you do not know what my name is."
)

TEMPLATES = (
    "You can call me {name} from now on.",
    "My name is {name}, by the way.",
    "Please address me as {name}.",
    "These days I go by {name}.",
    "I have changed my name: it is {name} now.",
    "Just so you know, people call me {name}.",
)


@dataclass(frozen=True)
class NameListParams:
    """How often the user's name changes."""

    name_changes: int = 5

    def __post_init__(self) -> None:
        at_least("name_changes", self.name_changes, 1)


@functools.cache
def _faker() -> Faker:
    """One Faker of LOCALES per process, with the person provider alone: it is all the names need,
    and building every provider of two locales took tens of milliseconds of each run's start.  The
    names it draws are the same, and seeding it again (`seeded_faker`) draws exactly what a new
    one seeded alike would."""
    from faker import Faker

    return Faker(list(LOCALES), providers=["faker.providers.person"])


def seeded_faker(seed: str) -> Faker:
    """The process's Faker of LOCALES, seeded with `seed`."""
    fake = _faker()
    fake.seed_instance(seed)
    return fake


def draw_names(seed: int, repetition: int, count: int) -> list[str]:
    """The `count` names of repetition `repetition`: its own block of one seeded stream of unique names."""
    fake = seeded_faker(f"{NAME}|names|{seed}")
    names: list[str] = []
    seen: set[str] = set()
    wanted = (max(repetition, 0) + 1) * count
    while len(names) < wanted:
        name = fake.first_name()
        if name.lower() not in seen:
            seen.add(name.lower())
            names.append(name)
    return names[-count:]


def ideal_answer(names: Sequence[str]) -> str:
    """The names as the JSON list a perfect agent replies with."""
    return json.dumps(list(names), ensure_ascii=False)


class NameList:
    """`ltm.name_list`: every name the user has gone by, as a JSON list."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(NameListParams, NAME, params, seed, repetition)
        names = draw_names(seed, repetition, settings.name_changes)
        lines = [rng.choice(TEMPLATES).format(name=name) for name in names] + [QUESTION]
        script = spread_script(lines)
        ideal = (ideal_answer(names),)
        params = asdict(settings)
        return definition(
            self, suite, repetition, seed, script, ideal, names, params, reset_message=RESET_MESSAGE
        )

    def superseded(self, definition: TestDefinition) -> list[str]:
        """The names of this seed's earlier repetitions, which the reset statement told the agent to
        forget: the paper's small-span failure (App. D) gives one of them (`contract/stale.py`).  Our
        own definitions only: a GoodAI file's repetitions are not drawn from one stream."""
        count = definition.params.get("name_changes")
        if "goodai_example" in definition.params or not isinstance(count, int):
            return []
        current = {str(name).lower() for name in definition.expected}
        reps = range(1, definition.repetition)
        earlier = [name for rep in reps for name in draw_names(definition.seed, rep, count)]
        return [name for name in dict.fromkeys(earlier) if name.lower() not in current]

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI NameList definition file: its script and waits as they are, its expected names."""
        names = [str(name) for name in raw["expected_responses"]]
        ideal = (ideal_answer(names),)
        return goodai_definition(
            self, raw, example_id, suite, repetition, ideal, names, reset_message=RESET_MESSAGE
        )

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
        reply = responses[-1] if responses else ""
        version = goodai_format(definition)
        if context.profile == OFFICIAL and version < 3:
            verdict = (
                score_names_v1(definition.expected, reply)
                if version == 1
                else score_names_v2(definition.expected, reply)
            )
            return Score(
                verdict.value, (*verdict.reasons, f"{context.profile} profile, Benchmark {version} rule")
            )
        return score_name_list(definition.expected, reply, context.profile)


def score_name_list(expected: Sequence[str], reply: str, profile: str) -> Score:
    """The reply's list against the names, by the profile's rule."""
    if profile not in PROFILES:
        raise ValueError(f"unknown scoring profile {profile!r}")
    verdict = (
        score_names_official(expected, reply) if profile == OFFICIAL else score_json_list(expected, reply)
    )
    return Score(verdict.value, (*verdict.reasons, f"{profile} profile"))


def score_names_official(expected: Sequence[str], reply: str) -> Score:
    """The reference's rule: lower-case every element of whatever parsed, then count as Eq. 1."""
    try:
        data = parse_lenient_json(reply)
    except ValueError as error:
        return Score(0.0, (f"response not in the correct format: {error}",))
    if not isinstance(data, (list, dict, str)):
        return Score(0.0, (f"response not in the correct format: the reply parses to a JSON {_kind(data)}",))
    odd = next((item for item in data if not isinstance(item, str)), None) if isinstance(data, list) else None
    if odd is not None:
        return Score(
            0.0, (f"response not in the correct format: {odd!r} is a JSON {_kind(odd)}, not a name",)
        )

    reasons: list[str] = []
    if isinstance(data, dict):
        reasons.append("the reply is a JSON object: its keys are read as the names, as the reference does")
    elif isinstance(data, str):
        reasons.append(
            "the reply is a JSON string: its characters are read as the names, as the reference does"
        )
    return matched_share(expected, list(data), reasons, name_repeats=False)


def score_names_v1(expected: Sequence[str], reply: str) -> Score:
    """Benchmark 1's rule: the share of the expected names the reply mentions, in any form."""
    lowered = reply.lower()
    missing = [name for name in expected if name.lower() not in lowered]
    found = len(expected) - len(missing)
    reasons = [f"{found} of {len(expected)} names were found in the reply"]
    if missing:
        reasons.append(f"missing from the reply: {', '.join(repr(name) for name in missing)}")
    return Score(found / len(expected) if expected else 1.0, tuple(reasons))


def score_names_v2(expected: Sequence[str], reply: str) -> Score:
    """Benchmark 2's rule: a JSON list; an answered name still among the expected ones counts and
    leaves them, every other one (a repeat too) takes a point off, and the total (at least 0) is
    divided by the expected count."""
    try:
        data = parse_lenient_json(reply)
    except ValueError as error:
        return Score(0.0, (f"response not in the correct format: {error}",))
    if not isinstance(data, list) or not all(isinstance(item, str) for item in data):
        return Score(0.0, (f"response not in the correct format: the reply parses to a JSON {_kind(data)}",))
    remaining = [name.lower() for name in expected]
    correct, reasons = 0, []
    for item in (item.lower() for item in data):
        if item in remaining:
            remaining.remove(item)
            correct += 1
        else:
            reasons.append(f"{item!r} was not expected")
    if remaining:
        reasons.append(f"missing from the reply: {', '.join(repr(name) for name in remaining)}")
    unexpected = len(data) - correct
    points = max(correct - unexpected, 0)
    reasons.append(f"{correct} expected − {unexpected} unexpected = {points} of {len(expected)}")
    return Score(points / len(expected) if expected else 1.0, tuple(reasons))


def _kind(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


SCENARIO = NameList()
