"""Noise: talk that has nothing to do with the user's graph, to pad a trajectory to its target size.

MemBench (§4) pads its test trajectories with dialogues and messages made from a news dataset,
making sure the noise never contradicts the evidence; a "noise unit" adds about 1k tokens, and
enough units are inserted to reach about 10k or 100k tokens per trajectory.  Our noise is made
here from templates and word lists of our own: local news about invented towns, organisations,
teams and companies, told in the third person.  It never speaks of the user's family, colleagues,
likes or feelings, never names a real city (the graph's cities are real), and never uses a person
name, so it cannot contradict a graph fact.  Noise has no question mark: the `recall` baseline
keeps everything that is not a question, so noise competes with the evidence as it would in a
real memory.

A `NoiseStream` is an endless, seeded sequence of distinct steps: a news message (observation) or
a user remark with an assistant reply (participation), each with its token count (the
approximate counter, so counts and hence trajectories are the same on every machine).  Steps are
made on first use and kept; trajectories take consecutive runs of a stream from seeded offsets.
"""

from __future__ import annotations

import random
import string
import threading
from functools import lru_cache

from pytest_memorybench.core.tokens import ApproximateCounter
from pytest_memorybench.scenarios.membench.questions import Step

TOWNS = (
    "Millbrook", "Ashcombe", "Port Carrow", "Dunmore Falls", "Westerly Bay", "Hartwell", "Glenfield",
    "Oakridge Point", "Brackenhurst", "Calder Springs", "Fenwick", "Larkspur Hill", "Redmond Cove",
    "Stonefield", "Thornbury", "Wexford Lake", "Kestrel Ridge", "Pembly", "Saltmarsh", "Upper Haddon",
)  # fmt: skip
GROUPS = (
    "the regional water board", "the county library service", "the harbour authority", "a local cycling club",
    "the state parks office", "a community theatre group", "the university robotics lab",
    "a bakery cooperative", "the transit agency", "the youth football league", "the historical society",
    "the volunteer fire brigade", "a group of beekeepers", "the chamber of commerce", "the school board",
    "a wildlife rescue charity",
)  # fmt: skip
PROJECTS = (
    "a new footbridge over the river", "longer opening hours at the public pool",
    "solar panels on every school roof", "a weekly farmers' market", "a late-night bus route",
    "a free repair café", "a wildflower strip along the bypass", "an electric ferry service",
    "a skate park behind the station", "a tool library", "a community orchard",
    "a rooftop garden on the town hall", "a mural along the old canal wall", "a bike lane on the main street",
    "free swimming lessons for children", "a new wing for the museum",
)  # fmt: skip
SCIENTISTS = (
    "astronomers",
    "marine biologists",
    "geologists",
    "archaeologists",
    "botanists",
    "volcanologists",
    "entomologists",
    "glaciologists",
)
FINDINGS = (
    "a beetle species nobody had described before", "a comet that should be visible in the spring",
    "the remains of a Roman road", "an unusually large colony of seals", "a fern thought to be extinct",
    "traces of an ancient lake bed", "a shipwreck from the eighteenth century", "a new cave system",
    "a meteorite the size of a walnut", "fossil footprints of an early mammal",
    "a rare orchid in an old quarry", "a pod of dolphins far up the estuary",
)  # fmt: skip
TEAMS = (
    "the Glenfield Otters", "the Ashcombe Rovers", "the Port Carrow Gulls", "the Hartwell Foxes",
    "the Stonefield Miners", "the Thornbury Owls", "the Pembly Comets", "the Saltmarsh Herons",
    "the Fenwick Badgers", "the Kestrel Ridge Hawks",
)  # fmt: skip
SPORTS = (
    "the regional cup",
    "the league final",
    "a charity match",
    "the opening game of the season",
    "the county derby",
    "a rain-soaked semifinal",
)
FIRMS = (
    "Norvale Textiles", "Brightmoor Foods", "Calloway Ceramics", "Driftwood Boatworks", "Evermark Paper",
    "Greystone Glassworks", "Halden Cycles", "Ironleaf Furniture", "Juniper Cosmetics", "Kelso Instruments",
)  # fmt: skip
PRODUCTS = (
    "recycled paper",
    "electric bicycles",
    "oat milk",
    "wool blankets",
    "ceramic tiles",
    "wooden toys",
    "hiking boots",
    "heat pumps",
    "canned tomatoes",
    "solar lanterns",
)
CROPS = (
    "apple blossom",
    "the vineyards",
    "early strawberries",
    "the wheat harvest",
    "cherry orchards",
    "the pumpkin crop",
)
WEATHER = (
    "a late frost",
    "a week of heavy rain",
    "an early heatwave",
    "a hailstorm",
    "strong winds",
    "a dry spell",
)
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
COUNTS = (
    "two dozen",
    "forty",
    "sixty",
    "about a hundred",
    "several hundred",
    "over a thousand",
    "a few thousand",
    "twelve",
)

NEWS = (
    "{group} in {town} has approved {project}.",
    "Work on {project} in {town} is set to start in {month}.",
    "{Group} wants {project} and is collecting signatures in {town}.",
    "{Scientists} near {town} reported finding {finding}.",
    "A team of {scientists} says {finding} turned up close to {town}.",
    "{Team} beat {team} three to one in {sport}.",
    "{Team} and {team} drew in {sport} after extra time.",
    "{firm} will open a plant for {product} near {town}, creating {count} jobs.",
    "{firm} is recalling a batch of {product} sold in {town}.",
    "{Weather} has damaged {crop} around {town}.",
    "Farmers near {town} expect {crop} to be late this year after {weather}.",
    "The festival in {town} drew {count} visitors despite {weather}.",
    "{count} volunteers helped {group} clean the beaches near {town}.",
    "The road between {town} and {town2} will be closed in {month} for repairs.",
    "A vote in {town} on {project} has been postponed until {month}.",
    "{town} has been named the tidiest small town in the region for {project}.",
)  # fmt: skip
OPENERS = (
    "From the local paper: ",
    "Heard on the radio: ",
    "News from the region: ",
    "Saw this today: ",
    "One for the town gossip: ",
    "",
)
REACTIONS = (
    "That sounds like a change people in {town} will notice.",
    "Interesting. It will be worth seeing how that turns out.",
    "Thanks for passing that on. Local news can be surprising.",
    "That is quite something for a place like {town}.",
    "I hadn't heard about that. It sounds like a busy time for {town}.",
    "Good to know what is happening around {town}.",
    "News like that gets people talking for weeks.",
    "Let's hope it works out well for everyone involved.",
    "That is the kind of story that ends up in the weekend papers.",
    "Fascinating. Small towns often have the best stories.",
)

_COUNTER = ApproximateCounter()


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


class NoiseStream:
    """The endless noise of one seed and form (observation messages or participation exchanges)."""

    def __init__(self, seed: int, dialogue: bool) -> None:
        self.dialogue = dialogue
        self._rng = random.Random(f"membench|noise|{seed}|{dialogue}")
        self._steps: list[Step] = []
        self._tokens: list[int] = []
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def step(self, index: int) -> Step:
        self._extend(index + 1)
        return self._steps[index]

    def tokens(self, index: int) -> int:
        self._extend(index + 1)
        return self._tokens[index]

    def span(self, start: int, budget: int, extra: int = 0) -> tuple[int, int]:
        """How many steps from `start` on it takes to reach `budget` tokens, counting `extra` more per
        step, and the tokens they hold (without the extra); (0, 0) for a budget of 0 or less."""
        count = tokens = added = 0
        while added < budget:
            if start + count >= len(self._tokens):
                self._extend(start + count + 256)
            size = self._tokens[start + count]
            tokens += size
            added += size + extra
            count += 1
        return count, tokens

    def _extend(self, size: int) -> None:
        if len(self._steps) >= size:
            return
        with self._lock:
            while len(self._steps) < size:
                step = self._make()
                key = step.user
                if key in self._seen:
                    continue
                self._seen.add(key)
                self._steps.append(step)
                self._tokens.append(
                    _COUNTER.count(step.user) + (_COUNTER.count(step.assistant) if step.assistant else 0)
                )

    def _make(self) -> Step:
        rng = self._rng
        template = rng.choice(NEWS)
        town, town2 = rng.sample(TOWNS, 2)
        slots = {"town": town, "town2": town2}
        for name in _FIELDS[template]:
            key = name.lower()
            if key not in slots:
                slots[key] = rng.choice(_SLOTS[key])
            if key == "team" and name == "Team":  # two different teams: "{Team} beat {team}"
                slots["team"], first = rng.sample(TEAMS, 2)
                slots["Team"] = _capital(first)
            elif name != key:
                slots[name] = _capital(slots[key])
        news = _capital(template.format(**slots))
        if not self.dialogue:
            return Step(news)
        reactions = REACTIONS if "town" in _FIELDS[template] else _PLACELESS_REACTIONS
        return Step(rng.choice(OPENERS) + news, rng.choice(reactions).format(town=town))


_SLOTS: dict[str, tuple[str, ...]] = {
    "group": GROUPS, "project": PROJECTS, "month": MONTHS, "scientists": SCIENTISTS, "finding": FINDINGS,
    "firm": FIRMS, "product": PRODUCTS, "crop": CROPS, "weather": WEATHER, "count": COUNTS, "sport": SPORTS,
    "team": TEAMS,
}  # fmt: skip
_FIELDS = {
    template: [name for _, name, _, _ in string.Formatter().parse(template) if name] for template in NEWS
}
_PLACELESS_REACTIONS = tuple(reaction for reaction in REACTIONS if "{town}" not in reaction)


@lru_cache(maxsize=8)
def noise_stream(seed: int, dialogue: bool) -> NoiseStream:
    """The endless noise of a trajectory, deterministic in its seed."""
    return NoiseStream(seed, dialogue)
