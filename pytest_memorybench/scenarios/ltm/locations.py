"""Locations (GoodAI's `locations` dataset): places given relative to each other, then a bearing.

GoodAI's dataset: the first place is in the centre of the user's home town; each later one is 1–4 km
north, south, east or west of the one before; the last one is placed so that it lies due north,
south, east or west of the first, and the question asks for the direction and distance from the
last place straight back to the first ("solve it step by step").  The answer is "N km Direction"
(or that they are in the same place).  Our places and statement templates are our own; the
construction is GoodAI's.

Scoring (one question):
  paper     there is no paper for this dataset; the reply's final answer must give the distance
            and the direction: the last "N km" and the last compass word it mentions.
  official  the reference's: GoodAI's checklist judge (does the answer refer to the expected answer;
            if a number, does it match), through `--judge`.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import (
    GoodAIDefinitionFile,
    goodai_definition,
)
from pytest_memorybench.scenarios.ltm.question_set import score_answers
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least
from pytest_memorybench.scenarios.waits import spread_script
from pytest_memorybench.scoring.profiles import OFFICIAL

NAME = "ltm.locations"
SKILLS = ("spatial", "information_integration")
PLACES = ("Clock Tower", "Fish Market", "Old Mill", "Bus Station", "Bakery", "Lighthouse", "Fire Station",
          "Botanical Garden", "Post Office", "Cricket Ground")  # fmt: skip
FIRST = "The {place} stands right in the middle of my home town."
TEMPLATES = (
    "The {place} is {km} km {direction} of the {other}.",
    "Walk {km} km {direction} from the {other} and you reach the {place}.",
    "From the {other}, the {place} is {km} km to the {direction}.",
)
LAST = "Last of all, the {place} is {km} km {direction} of the {other}."
QUESTION = (
    "How far is it, and in which direction, to go from the {place} straight back to the {origin}? Work it out"
    " step by step."
)
RESET = "Please forget all the places in my home town that I have described to you so far."
SAME_PLACE = "They are in the same place."
STEPS = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
_KM = re.compile(r"(\d+(?:\.\d+)?)\s*(?:km|kilomet)", re.IGNORECASE)
_DIRECTION = re.compile(r"\b(north|south|east|west)\b", re.IGNORECASE)


@dataclass(frozen=True)
class LocationsParams:
    """How many places are described relative to each other."""

    known_locations: int = 5

    def __post_init__(self) -> None:
        at_least("known_locations", self.known_locations, 2)
        if self.known_locations > len(PLACES):
            raise ValueError(f"known_locations must be at most {len(PLACES)}, got {self.known_locations}")


def bearing_home(x: int, y: int) -> str:
    """From (x, y), on an axis through the origin, straight back to it."""
    if x == y == 0:
        return SAME_PLACE
    direction = ("west" if x > 0 else "east") if y == 0 else ("south" if y > 0 else "north")
    return f"{abs(x) + abs(y)} km {direction.capitalize()}"


class Locations:
    """`ltm.locations`: where the last place lies from the first, over a chain of bearings."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(LocationsParams, NAME, params, seed, repetition)
        places = rng.sample(PLACES, settings.known_locations)
        lines, x, y = [FIRST.format(place=places[0])], 0, 0
        for previous, place in itertools.pairwise(places[:-1]):
            direction, km = rng.choice(list(STEPS)), rng.randint(1, 4)
            lines.append(
                rng.choice(TEMPLATES).format(place=place, km=km, direction=direction, other=previous)
            )
            x, y = x + STEPS[direction][0] * km, y + STEPS[direction][1] * km
        direction, km = self._onto_an_axis(rng, x, y)
        x, y = x + STEPS[direction][0] * km, y + STEPS[direction][1] * km
        lines.append(LAST.format(place=places[-1], km=km, direction=direction, other=places[-2]))
        lines.append(QUESTION.format(place=places[-1], origin=places[0]))
        answer, script = bearing_home(x, y), spread_script(lines)
        params = asdict(settings)
        return definition(
            self, suite, repetition, seed, script, (answer,), answer, params, reset_message=RESET
        )

    @staticmethod
    def _onto_an_axis(rng: random.Random, x: int, y: int) -> tuple[str, int]:
        """The last move: one that puts the last place due north, south, east or west of the first."""
        if x and y:  # off both axes: cancel one coordinate
            if rng.random() < 0.5:
                return ("west" if x > 0 else "east"), abs(x)
            return ("south" if y > 0 else "north"), abs(y)
        along_x = y == 0 and (x != 0 or rng.random() < 0.5)
        direction = rng.choice(("east", "west") if along_x else ("north", "south"))
        return direction, rng.randint(1, 4)

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        expected = raw["expected_responses"]
        answer = str(expected[0] if isinstance(expected, list) else expected)
        return goodai_definition(
            self, raw, example_id, suite, repetition, (answer,), answer, reset_message=RESET
        )

    def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score | Awaitable[Score]:
        if context.profile == OFFICIAL:
            return score_answers(definition, responses[-1:], context, [definition.expected])
        return score_bearing(definition.expected, responses[-1] if responses else "")


def score_bearing(expected: str, reply: str) -> Score:
    """The reply's last distance and last compass direction against "N km Direction"."""
    if expected == SAME_PLACE:
        same = re.search(r"\bsame (?:place|location|spot)\b|\b0\s*km\b", reply, re.IGNORECASE) is not None
        return Score(
            float(same),
            (f"the reply {'says' if same else 'does not say'} they are in the same place (paper profile)",),
        )
    km, direction = expected.split(" km ")
    distances, directions = _KM.findall(reply), _DIRECTION.findall(reply)
    given = (distances[-1] if distances else None, directions[-1].lower() if directions else None)
    right = given[0] is not None and float(given[0]) == float(km) and given[1] == direction.lower()
    said = f"{given[0]} km {given[1]}" if all(given) else "no distance and direction"
    return Score(float(right), (f"the reply ends on {said}; expected {expected} (paper profile)",))


SCENARIO = Locations()
