"""The static universe (Huet et al., App. B.1.2): the dates, places, people and contents events draw on.

Each list has `size` elements (the paper's N_universe = 100) in a seeded random order, and that
order matters: the truncated geometric distribution (`events.py`) makes the first elements of each
list frequent and the last ones rare.
  * dates: `size` distinct days between a start and an end date (the paper's range by default),
    written as the published data writes them, "September 13, 2025";
  * locations and contents: a seeded sample of our own lists (`lists.py`); each content keeps its
    ten details, from which an event picks one;
  * entities: `size` full names, each a distinct Faker first name paired with a distinct Faker last
    name (`en_US`), so a first name alone still tells the protagonist apart; half the first names
    are drawn from Faker's female list and half from its male list, which gives the template
    writer its pronouns.
Secondary characters (App. B.1.8) come from a separate, endless stream of names whose first and
last names are all disjoint from the main ones, so a secondary name never contains a main entity's
name.  Names are drawn with our own seeded generator from Faker's `en_US` name lists, so they
change only if a Faker release changes those lists.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.scenarios.episodic.lists import CONTENTS, LOCATIONS

DATE_FORMAT = "%B %d, %Y"
DEFAULT_START = date(2024, 1, 1)
DEFAULT_END = date(2026, 12, 31)
FEATURES = ("date", "location", "entity", "content")


@dataclass(frozen=True)
class Universe:
    """The four ordered lists events are drawn from, and each content's details."""

    dates: tuple[str, ...]
    locations: tuple[str, ...]
    entities: tuple[str, ...]
    contents: tuple[str, ...]
    details: Mapping[str, tuple[str, ...]]
    seed: int
    pronouns: Mapping[str, str] = field(default_factory=dict)  # entity -> "she" | "he"

    def items(self, feature: str) -> tuple[str, ...]:
        """The list for one of `FEATURES`."""
        return {
            "date": self.dates,
            "location": self.locations,
            "entity": self.entities,
            "content": self.contents,
        }[feature]

    @property
    def size(self) -> int:
        return len(self.dates)

    @property
    def first_names(self) -> frozenset[str]:
        return frozenset(name.split(" ", 1)[0] for name in self.entities)

    @property
    def last_names(self) -> frozenset[str]:
        return frozenset(name.split(" ", 1)[1] for name in self.entities)


def first_name(entity: str) -> str:
    """An entity's first name."""
    return entity.split(" ", 1)[0]


@lru_cache(maxsize=16)
def build_universe(
    seed: int, size: int = 100, start: date = DEFAULT_START, end: date = DEFAULT_END
) -> Universe:
    """The universe of a seed; UsageError if our lists or the date range are too small for `size`."""
    if size < 2:
        raise usage_error(f"episodic universe_size must be at least 2, got {size}")
    limit = min(len(LOCATIONS), len(CONTENTS))
    if size > limit:
        raise usage_error(f"episodic universe_size {size} is larger than our lists allow ({limit})")
    days = (end - start).days + 1
    if days < size:
        raise usage_error(
            f"episodic dates {start} to {end} hold {max(days, 0)} days, fewer than universe_size {size}"
        )
    rng = random.Random(f"episodic|universe|{seed}")
    dates = tuple(
        (start + timedelta(days=offset)).strftime(DATE_FORMAT) for offset in rng.sample(range(days), size)
    )
    locations = tuple(rng.sample(LOCATIONS, size))
    contents = tuple(rng.sample(sorted(CONTENTS), size))
    female, male, surnames = faker_names()
    firsts = [(name, "she") for name in rng.sample(female, size // 2)] + [
        (name, "he") for name in rng.sample(male, size - size // 2)
    ]
    rng.shuffle(firsts)
    lasts = rng.sample([name for name in surnames if name not in female and name not in male], size)
    entities = tuple(f"{first} {last}" for (first, _), last in zip(firsts, lasts, strict=False))
    pronouns = {entity: pronoun for entity, (_, pronoun) in zip(entities, firsts, strict=False)}
    return Universe(dates, locations, entities, contents, {c: CONTENTS[c] for c in contents}, seed, pronouns)


@lru_cache(maxsize=1)
def faker_names() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Faker's `en_US` female first names, male first names and last names, sorted.

    One-word alphabetic names only, and no month names ("April", "June"): a protagonist called
    April would read as a date to any matcher.
    """
    from faker.providers.person.en_US import Provider

    def clean(names: object) -> tuple[str, ...]:
        return tuple(sorted(n for n in names if n.isalpha() and n.lower() not in _MONTHS))  # type: ignore[attr-defined]

    female = clean(Provider.first_names_female)
    male = tuple(name for name in clean(Provider.first_names_male) if name not in female)
    return female, male, clean(Provider.last_names)


_MONTHS = frozenset(date(2000, month, 1).strftime("%B").lower() for month in range(1, 13))


def secondary_names(universe: Universe) -> Iterator[str]:
    """An endless stream of new full names for secondary characters, each given once.

    First and last names are disjoint from the main entities' (App. B.1.8), so no secondary name
    holds a protagonist's full or first name.
    """
    female, male, lasts = faker_names()
    taken = universe.first_names | universe.last_names
    firsts = [name for name in female + male if name not in taken]
    surnames = [name for name in lasts if name not in taken]
    rng = random.Random(f"episodic|secondary|{universe.seed}")
    seen: set[str] = set()
    while len(seen) < len(firsts) * len(surnames):
        name = f"{rng.choice(firsts)} {rng.choice(surnames)}"
        if name not in seen:
            seen.add(name)
            yield name
    raise usage_error("episodic: the secondary character names are used up")
