"""The user's relation graph (MemBench §3.1, App. A.1): profiles of the user and what surrounds them.

MemBench samples, per user, a profile of the user, of their relatives and colleagues, of work and
leisure events, of items they own and places they visited, plus high-level preferences (a movie
genre, a taste, a book genre).  Every question of a trajectory is asked about one such graph.

Ours is built from a key string alone, so the same key gives the same graph on every machine and
in every xdist worker: a `random.Random` seeded with the key draws from our lists (`lists.py`,
`preferences.py`) and from Faker's `en_US` tables of first names, last names and company
suffixes (companies are "<last name> <suffix>" or "<last name>-<last name>", two of Faker's own
company patterns).  We draw uniformly with our own generator rather than through Faker's
weighted one, which is ten times slower and would tie graphs to Faker's random-number plumbing.
Within a graph, relations, full names, first names, ages, heights, event names, event scales and
event durations are all distinct, so "who is older" or "the person named X" always has one answer.
Colleagues work for the user's company in the user's city, as in the paper's example profile.
Names depend on the installed Faker version's tables, as in the LTM scenarios.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from pytest_memorybench.scenarios.membench.lists import (
    CHARACTERS,
    CITIES,
    COLLEAGUES,
    EDUCATION,
    EVENT_DAYS,
    EVENT_NAME_FIRST,
    EVENT_NAME_NOUN,
    EVENT_NAME_SECOND,
    EVENT_SCALES,
    HOBBIES,
    ITEMS,
    LEISURE_EVENTS,
    OCCUPATIONS,
    PLACE_FIRST,
    PLACE_TYPES,
    RELATIVES,
    WORK_EVENTS,
)
from pytest_memorybench.scenarios.membench.preferences import DOMAINS

# Age ranges by relation: relatives and colleagues are adults; generations stay plausible.
_AGES = {
    "self": (26, 52), "grandmother": (68, 92), "grandfather": (68, 92), "uncle": (45, 72), "aunt": (45, 72),
    "niece": (18, 30), "nephew": (18, 30), "intern": (19, 25), "boss": (38, 64), "mentor": (45, 68),
}  # fmt: skip
_DEFAULT_AGE = (21, 60)
_MONTH_NAMES = frozenset(date(2000, month, 1).strftime("%B") for month in range(1, 13))


@dataclass(frozen=True)
class Person:
    """A person of the user's profile graph: the user, a relative or a colleague."""

    relation: str  # "self" for the user
    gender: str
    name: str
    age: int
    height: int  # cm
    birthday: date  # the year is not told
    hometown: str
    work_location: str
    education: str
    occupation: str
    position: str
    company: str
    hobby: str
    character: str
    phone: str
    email: str

    @property
    def first_name(self) -> str:
        return self.name.split(" ", 1)[0]


@dataclass(frozen=True)
class Event:
    """An event of the profile graph."""

    kind: str  # "food festival"
    content: str
    name: str  # "Copper Beacon Food Festival"
    location: str
    start: date
    scale: int  # people attending
    days: int  # how long it lasts
    leisure: bool


@dataclass(frozen=True)
class Item:
    """An item the user owns."""

    type: str  # "coffee machine"
    name: str  # "Brewmont Duo"


@dataclass(frozen=True)
class Place:
    """A place the user frequents."""

    type: str  # "park"
    name: str  # "Willow Park"


@dataclass(frozen=True)
class Graph:
    """The user's profile graph: people, events, items and places, from one seed."""

    key: str
    user: Person
    relatives: tuple[Person, ...]
    colleagues: tuple[Person, ...]
    events: tuple[Event, ...]
    items: tuple[Item, ...]
    places: tuple[Place, ...]
    preferences: tuple[tuple[str, str], ...]  # (domain name, category), e.g. ("movie", "Western")

    @property
    def others(self) -> tuple[Person, ...]:
        """The people the user talks about: relatives, then colleagues."""
        return self.relatives + self.colleagues

    @property
    def people(self) -> tuple[Person, ...]:
        return (self.user, *self.others)

    def preference(self, domain: str) -> str:
        return dict(self.preferences)[domain]


@lru_cache(maxsize=1)
def faker_tables() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Faker's `en_US` male and female first names, last names and company suffixes, sorted."""
    from faker.providers.company.en_US import Provider as Companies
    from faker.providers.person.en_US import Provider as People

    def clean(names: Iterable[str]) -> tuple[str, ...]:
        return tuple(sorted(name for name in names if name.isalpha() and name not in _MONTH_NAMES))

    suffixes = tuple(sorted(s for s in Companies.company_suffixes if "," not in s))
    return (
        clean(People.first_names_male),
        clean(People.first_names_female),
        clean(People.last_names),
        suffixes,
    )


@lru_cache(maxsize=256)
def build_graph(key: str, *, relatives: int = 4, colleagues: int = 3, year: int = 2024) -> Graph:
    """The graph of `key` (e.g. "0|participation-multi_hop-3"): deterministic, all names distinct."""
    rng = random.Random(f"membench|graph|{key}")
    names = _NameDraw(rng)
    company = names.company()
    user = _person(
        rng, names, "self", rng.choice(("male", "female")), company=company, work_location=rng.choice(CITIES)
    )
    taken_ages, taken_heights = {user.age}, {user.height}
    kin = [
        _person(rng, names, relation, gender, company=names.company(), ages=taken_ages, heights=taken_heights)
        for relation, gender in _distinct_relations(rng, RELATIVES, relatives)
    ]
    work = [
        _person(
            rng,
            names,
            relation,
            gender,
            company=company,
            work_location=user.work_location,
            ages=taken_ages,
            heights=taken_heights,
        )
        for relation, gender in _distinct_relations(rng, COLLEAGUES, colleagues)
    ]
    return Graph(
        key=key,
        user=user,
        relatives=tuple(kin),
        colleagues=tuple(work),
        events=_events(rng, year),
        items=tuple(Item(kind, rng.choice(ITEMS[kind])) for kind in rng.sample(sorted(ITEMS), 3)),
        places=tuple(
            Place(kind, f"{first} {PLACE_TYPES[kind]}")
            for kind, first in zip(
                rng.sample(sorted(PLACE_TYPES), 3), rng.sample(PLACE_FIRST, 3), strict=True
            )
        ),
        preferences=tuple((domain.name, rng.choice(sorted(domain.items))) for domain in DOMAINS),
    )


class _NameDraw:
    """Names with no first or last name used twice in a graph (so "the person named X" is one person)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def draw(self, gender: str) -> str:
        male, female, lasts, _ = faker_tables()
        return f"{self._new(male if gender == 'male' else female)} {self._new(lasts)}"

    def company(self) -> str:
        _, _, lasts, suffixes = faker_tables()
        if self.rng.random() < 0.6:
            return f"{self._new(lasts)} {self.rng.choice(suffixes)}"
        return f"{self._new(lasts)}-{self._new(lasts)}"

    def _new(self, names: tuple[str, ...]) -> str:
        while True:
            name = self.rng.choice(names)
            if name not in self.used:
                self.used.add(name)
                return name


def _distinct_relations(
    rng: random.Random, pool: tuple[tuple[str, str], ...], count: int
) -> list[tuple[str, str]]:
    chosen: list[tuple[str, str]] = []
    for relation, gender in rng.sample(pool, len(pool)):
        if relation not in {r for r, _ in chosen}:
            chosen.append((relation, gender))
        if len(chosen) == count:
            return chosen
    raise ValueError(f"only {len(chosen)} distinct relations available, {count} asked for")


def _distinct(rng: random.Random, low: int, high: int, taken: set[int]) -> int:
    free = [value for value in range(low, high + 1) if value not in taken]
    value = rng.choice(free)
    taken.add(value)
    return value


def _person(
    rng: random.Random,
    names: _NameDraw,
    relation: str,
    gender: str,
    *,
    company: str,
    work_location: str | None = None,
    ages: set[int] | None = None,
    heights: set[int] | None = None,
) -> Person:
    name = names.draw(gender)
    occupation = rng.choice(sorted(OCCUPATIONS))
    first, last = name.lower().split(" ", 1)
    domain = "".join(ch for ch in company.lower() if ch.isalnum())
    digits = "".join(str(rng.randrange(10)) for _ in range(7))
    low, high = _AGES.get(relation, _DEFAULT_AGE)
    return Person(
        relation=relation,
        gender=gender,
        name=name,
        age=_distinct(rng, low, high, ages if ages is not None else set()),
        height=_distinct(
            rng,
            155 if gender == "female" else 165,
            182 if gender == "female" else 198,
            heights if heights is not None else set(),
        ),
        birthday=date(2001, 1, 1) + timedelta(days=rng.randrange(365)),
        hometown=rng.choice(CITIES),
        work_location=work_location or rng.choice(CITIES),
        education=rng.choice(EDUCATION),
        occupation=occupation,
        position=rng.choice(OCCUPATIONS[occupation]),
        company=company,
        hobby=rng.choice(sorted(HOBBIES)),
        character=rng.choice(CHARACTERS),
        phone=f"{rng.randrange(201, 990)}-{digits[:3]}-{digits[3:]}",
        email=f"{first}.{last}@{domain}.com",
    )


def _events(rng: random.Random, year: int) -> tuple[Event, ...]:
    """Two work and two leisure events with distinct names, scales and durations."""
    kinds = [(kind, WORK_EVENTS[kind], False) for kind in rng.sample(sorted(WORK_EVENTS), 2)]
    kinds += [(kind, LEISURE_EVENTS[kind], True) for kind in rng.sample(sorted(LEISURE_EVENTS), 2)]
    firsts = rng.sample(EVENT_NAME_FIRST, len(kinds))
    seconds = rng.sample(EVENT_NAME_SECOND, len(kinds))
    scales = rng.sample(EVENT_SCALES, len(kinds))
    days = rng.sample(EVENT_DAYS, len(kinds))
    return tuple(
        Event(
            kind=kind,
            content=content,
            name=f"{first} {second} {EVENT_NAME_NOUN[kind]}",
            location=rng.choice(CITIES),
            start=date(year, 1, 1) + timedelta(days=rng.randrange(330)),
            scale=scale,
            days=length,
            leisure=leisure,
        )
        for (kind, content, leisure), first, second, scale, length in zip(
            kinds, firsts, seconds, scales, days, strict=False
        )
    )
