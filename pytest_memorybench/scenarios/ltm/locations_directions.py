"""Locations Directions (skills S, I): places of a town given relative to each other, then a route.

GoodAI paper App. A.3: the first place is put at the centre of the user's home town; every next
statement places a new landmark 1–4 km north, south, east or west of the previous one (no check
for overlaps, so the path may go back and forth).  The standard configuration uses six places; the
question asks how to travel from the first place to the last "following those interesting points".
The places come from our own list of twelve landmarks, without replacement, wrapped in our own
templates; the question keeps the paper's meaning in our own words.

Scoring (one question).  The judge's `directions` task turns the reply into hops
{origin, kilometers, direction, destination}, place names spelled as in the known list (the
reference rewrites the reply as JSON with gpt-4-turbo, Fig. 10).  The hops must be valid: every
origin and destination a known place, a direction north/south/east/west, a whole positive number
of kilometres; an empty route (the reply gives no directions) or an invalid one scores 0, and the
reasons carry the raw reply and the structured route, as the reference does.  Both the expected
route and the agent's are then walked on a grid from (0, 0):
  official  1 iff the two end points are equal (`follow_directions` in the reference): any route
            is accepted, and the route's own first and last place names are not checked.
  paper     the same, and the route must also start at the first place and end at the last one
            (App. A.3.1: "As long as the route starts and ends where it has to (first and last
            points of interest), the agent will score a point").
Both profiles give 0 to an empty route, unlike the reference before its "empty list" fix (#54),
where a route back to the centre made "no directions" a correct answer.

The ideal answer states one hop per line, "From the A, go 3 km north to the B.", which the
offline judge reads exactly (tests check it for every generated route).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.judges.base import JudgeTask, JudgeVerdict
from pytest_memorybench.judges.replies import DirectionsReply, Hop
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import GoodAIDefinitionFile, goodai_definition
from pytest_memorybench.scenarios.ltm.question_set import benchmark_1_checklist, score_answers
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.waits import spread_script
from pytest_memorybench.scoring.profiles import OFFICIAL, PAPER, Profile

NAME = "ltm.locations_directions"
SKILLS = ("spatial", "information_integration")

PLACES = (
    "Clock Tower", "Fish Market", "Fire Station", "Post Office", "Botanical Garden", "Bus Depot",
    "Swimming Pool", "Old Bridge", "Cathedral", "Cinema", "Observatory", "Windmill",
)  # fmt: skip
DIRECTIONS = ("north", "south", "east", "west")
DISTANCES = (1, 2, 3, 4)

FIRST_TEMPLATE = "My home town is built around the {place}, which stands right at its centre."
NEXT_TEMPLATES = (
    "The {place} is {km} km {direction} of the {previous}.",
    "If you walk {km} km {direction} from the {previous}, you reach the {place}.",
    "There is a {place} {km} km to the {direction} of the {previous}.",
)
LAST_TEMPLATE = "Finally, the {place} lies {direction} of the {previous}, {km} km away from it."
QUESTION = (
    "Using the places of interest I have described to you, how would I get from the {first} to the "
    "{last} by way of those places?"
)
RESET_MESSAGE = "Please forget, or simply ignore, every location I have described to you before this message."

_STEP = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}


@dataclass(frozen=True)
class LocationsDirectionsParams:
    """How many known places the route passes."""

    known_locations: int = 6

    def __post_init__(self) -> None:
        if not 2 <= self.known_locations <= len(PLACES):
            raise ValueError(
                f"known_locations must be between 2 and {len(PLACES)}, got {self.known_locations}"
            )


def hop(origin: str, kilometers: int, direction: str, destination: str) -> Hop:
    """One leg of a route as the judge extracts it."""
    return Hop(origin=origin, kilometers=kilometers, direction=direction, destination=destination)


def route_text(route: Sequence[Mapping[str, Any]]) -> str:
    """One line per hop, the form the judge (and the offline judge) reads back exactly."""
    return "\n".join(
        f"From the {h['origin']}, go {h['kilometers']} km {h['direction']} to the {h['destination']}."
        for h in route
    )


def walk(route: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """Where the route ends, in km east and north of where it starts."""
    x = y = 0
    for leg in route:
        dx, dy = _STEP[str(leg["direction"]).lower()]
        x, y = x + dx * int(leg["kilometers"]), y + dy * int(leg["kilometers"])
    return x, y


class LocationsDirections:
    """`ltm.locations_directions`: the route from the first place to the last, leg by leg."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(LocationsDirectionsParams, NAME, params, seed, repetition)
        places = rng.sample(PLACES, settings.known_locations)
        lines = [FIRST_TEMPLATE.format(place=places[0])]
        route = []
        for index, (previous, place) in enumerate(zip(places, places[1:], strict=False), start=2):
            direction, km = rng.choice(DIRECTIONS), rng.choice(DISTANCES)
            last = index == len(places)
            template = LAST_TEMPLATE if last else rng.choice(NEXT_TEMPLATES)
            lines.append(template.format(place=place, previous=previous, km=km, direction=direction))
            route.append(hop(previous, km, direction, place))
        lines.append(QUESTION.format(first=places[0], last=places[-1]))
        script = spread_script(lines)
        ideal = (route_text(route),)
        expected = {"places": list(PLACES), "route": route, "start": places[0], "end": places[-1]}
        params = asdict(settings)
        return definition(
            self, suite, repetition, seed, script, ideal, expected, params, reset_message=RESET_MESSAGE
        )

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI Locations Directions file: its script and waits, its example route as the ideal.

        The expected route is read from the file's "From A, go 3km East to B." lines (the
        "(Just an example …)" header skipped).  The known places handed to the judge are the ones
        this route names: the reference also accepts its other landmarks (which the test never
        mentions), so only a reply naming one of those scores differently.
        """
        expected_text = str(raw["expected_responses"][0])
        route = parse_goodai_route(expected_text)
        places = list(dict.fromkeys([route[0]["origin"], *(leg["destination"] for leg in route)]))
        ideal = (expected_text,)
        expected = {"places": places, "route": route, "start": places[0], "end": route[-1]["destination"]}
        return goodai_definition(
            self, raw, example_id, suite, repetition, ideal, expected, reset_message=RESET_MESSAGE
        )

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        if benchmark_1_checklist(definition, context):
            return await score_answers(definition, responses[-1:], context, definition.ideal_answers)
        reply = responses[-1] if responses else ""
        judge = context.judge
        if judge is None:
            from pytest_memorybench.judges.local import LocalJudge

            judge = LocalJudge()
        places = list(definition.expected["places"])
        verdict = await judge.judge(JudgeTask("directions", {"answer": reply, "places": places}, NAME))
        reasons = score_route(definition.expected, reply, verdict, context.profile)
        return Score(reasons.value, (*reasons.reasons, f"judge {judge.name}"))


_GOODAI_LINE = re.compile(
    r"^From (?P<origin>.+?), go (?P<km>\d+)\s*km (?P<direction>\w+) to (?P<destination>.+?)\.?$", re.I
)


def parse_goodai_route(text: str) -> list[Hop]:
    """The hops of a GoodAI expected answer ("From A, go 3km East to B." per line)."""
    route = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("(Just an example"):
            continue
        match = _GOODAI_LINE.match(line)
        if match is None:
            raise ValueError(f"not a GoodAI direction line: {line!r}")
        route.append(hop(match["origin"], int(match["km"]), match["direction"].lower(), match["destination"]))
    if not route:
        raise ValueError("the expected answer holds no directions")
    return route


def score_route(expected: Mapping[str, Any], reply: str, verdict: JudgeVerdict, profile: Profile) -> Score:
    """The verdict on the judge's structured route (see the module docstring for the rules)."""
    if profile not in (PAPER, OFFICIAL):
        raise ValueError(f"unknown scoring profile {profile!r}")
    raw = f"original reply: {reply!r}"
    if not verdict.ok:
        return Score(0.0, (f"the judge could not structure the route: {verdict.error}", raw))
    hops = list(cast(DirectionsReply, verdict.data or {}).get("hops", []))
    structured = "structured route: " + "; ".join(
        f"{hop.get('origin')} {hop.get('kilometers')} km {hop.get('direction')} to {hop.get('destination')}"
        for hop in hops
    )
    if not hops:
        return Score(0.0, ("the reply gives no route", raw, structured))
    known = {str(place).casefold(): str(place) for place in expected["places"]}
    problems = []
    for number, leg in enumerate(hops, 1):
        for end in ("origin", "destination"):
            if str(leg.get(end, "")).strip().casefold() not in known:
                problems.append(f"leg {number}: {end} {leg.get(end)!r} is not a known place")
        km = leg.get("kilometers")
        if isinstance(km, bool) or not isinstance(km, int) or km <= 0:
            problems.append(f"leg {number}: {km!r} km is not a positive whole number")
        if str(leg.get("direction", "")).lower() not in _STEP:
            problems.append(
                f"leg {number}: direction {leg.get('direction')!r} is not north, south, east or west"
            )
    if problems:
        return Score(0.0, (f"invalid route: {'; '.join(problems)}", raw, structured))

    target, reached = walk(expected["route"]), walk(hops)
    same_end = target == reached
    reasons = [
        f"the route ends {_where(reached)}, the expected destination is {_where(target)}"
        + ("" if same_end else ": they differ")
    ]
    value = 1.0 if same_end else 0.0
    if profile == PAPER:
        first, last = str(hops[0]["origin"]).casefold(), str(hops[-1]["destination"]).casefold()
        if first != str(expected["start"]).casefold():
            reasons.append(
                f"the route starts at the {hops[0]['origin']}, not the {expected['start']} (paper profile)"
            )
            value = 0.0
        if last != str(expected["end"]).casefold():
            reasons.append(
                f"the route ends at the {hops[-1]['destination']}, not the {expected['end']} (paper profile)"
            )
            value = 0.0
    reasons.append(f"{len(hops)} leg(s), {profile} profile")
    if value == 0.0:
        reasons.append(structured)
    return Score(value, tuple(reasons))


def _where(point: tuple[int, int]) -> str:
    x, y = point
    parts = []
    if y:
        parts.append(f"{abs(y)} km {'north' if y > 0 else 'south'}")
    if x:
        parts.append(f"{abs(x)} km {'east' if x > 0 else 'west'}")
    return " and ".join(parts) + " of the start" if parts else "at the start"


SCENARIO = LocationsDirections()
