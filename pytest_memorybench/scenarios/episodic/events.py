"""Events and their meta-data (Huet et al., App. B.1.3–B.1.4).

An event is (t, s, ent, c, detail): each of t, s, ent and c is drawn independently from its
universe list with the same distribution D over the positions {0, …, N_universe − 1}, and the
detail uniformly among the content's details.  D is the truncated geometric distribution with
p = 0.1 by default,

    P(X = i) = (1 − p)^i · p / (1 − (1 − p)^N_universe),

which repeats the first items of each list across many chapters and leaves the last ones unused, so
cues match 0, 1, 2, 3–5 or 6+ events (Table 6); `uniform` is there for comparison.

Constraints, as published: no two events share (t, ent) (one person, two places at once) or (t, s)
(two events in one place at once).  Candidates are drawn from one seeded stream and a candidate
that breaks a constraint with an *earlier accepted* event is dropped, so the first N₁ events of an
N₂-event book are exactly the N₁-event book (the prefix property the paper relies on for its short
book being part of its long one).  The constraints cap a book: with the default universe the
skewed draws stall at about 4,000 events, so a request beyond what the universe holds fails
at once, and a stream that rejects `MAX_REJECTIONS_IN_A_ROW` candidates running is given up on.

Meta-data per event, drawn from a stream of its own (so it is prefix-stable too): a number of
paragraphs uniform in 1–10, for each of date, location, entity and content the paragraph (uniform
in 1..n) that must state it, and a style among the eight of `lists.STYLES`.
"""

from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.scenarios.episodic.lists import STYLES
from pytest_memorybench.scenarios.episodic.universe import FEATURES, Universe

DISTRIBUTIONS = ("geometric", "uniform")
MAX_PARAGRAPHS = 10
MAX_DRAWS_PER_EVENT = 10_000
MAX_REJECTIONS_IN_A_ROW = 200_000  # 2,000 events need runs of about 3,500; 3,000 of about 20,000


@dataclass(frozen=True)
class Event:
    """One episodic event: when, where, who, what, and the detail the chapter states verbatim."""

    date: str
    location: str
    entity: str
    content: str
    detail: str

    def feature(self, name: str) -> str:
        return str(getattr(self, name))

    def as_list(self) -> list[str]:
        """The published `events.json` shape: [date, location, entity, content, detail]."""
        return [self.date, self.location, self.entity, self.content, self.detail]


@dataclass(frozen=True)
class EventMeta:
    """How the chapter of an event is laid out: paragraphs, where each feature goes, the style."""

    nb_paragraphs: int
    idx_paragraph: Mapping[str, int] = field(default_factory=dict)  # feature -> paragraph, 1-based
    style: str = "mystery"

    def as_dict(self) -> dict[str, object]:
        """The published `meta_events.json` shape."""
        return {
            "nb_paragraphs": self.nb_paragraphs,
            "idx_paragraph": dict(self.idx_paragraph),
            "style": self.style,
        }


def position_weights(distribution: str, size: int, p: float) -> list[float]:
    """P(X = i) for i in 0..size-1 under D (unnormalised weights are fine for sampling)."""
    if distribution == "uniform":
        return [1.0 / size] * size
    if distribution != "geometric":
        raise usage_error(
            f"episodic distribution must be one of {', '.join(DISTRIBUTIONS)}, got {distribution!r}"
        )
    if not 0 < p < 1:
        raise usage_error(f"episodic p must be strictly between 0 and 1, got {p}")
    norm = 1 - (1 - p) ** size
    return [(1 - p) ** i * p / norm for i in range(size)]


def sample_events(
    universe: Universe, count: int, seed: int, *, distribution: str = "geometric", p: float = 0.1
) -> list[Event]:
    """`count` events satisfying the constraints; the first n are the same for every count ≥ n."""
    if count < 1:
        raise usage_error(f"episodic chapters must be at least 1, got {count}")
    capacity = universe.size * universe.size  # distinct (t, s) pairs, and (t, ent) pairs
    if count > capacity:
        raise usage_error(
            f"episodic: {count} events cannot have distinct (date, location) pairs in a universe of "
            f"{universe.size} dates and {universe.size} locations; use fewer chapters"
        )
    cumulative = list(accumulate(position_weights(distribution, universe.size, p)))
    total = cumulative[-1]
    rng = random.Random(f"episodic|events|{seed}|{distribution}|{p!r}")
    lists = (universe.dates, universe.locations, universe.entities, universe.contents)
    events: list[Event] = []
    busy_entity: set[tuple[str, str]] = set()
    busy_place: set[tuple[str, str]] = set()
    rejected = 0
    for _ in range(count * MAX_DRAWS_PER_EVENT):
        t, s, e, c = (items[min(bisect(cumulative, rng.random() * total), len(items) - 1)] for items in lists)
        if (t, e) in busy_entity or (t, s) in busy_place:
            rejected += 1
            if rejected > MAX_REJECTIONS_IN_A_ROW:
                break  # the free pairs left are too rare to reach: the book cannot be completed
            continue
        rejected = 0
        busy_entity.add((t, e))
        busy_place.add((t, s))
        events.append(Event(t, s, e, c, rng.choice(universe.details[c])))
        if len(events) == count:
            return events
    raise usage_error(
        f"episodic: could not draw {count} events with distinct (date, entity) and (date, location) pairs"
        f" from a universe of {universe.size} (stuck after {len(events)}); use fewer chapters or a larger"
        " universe_size"
    )


def sample_meta(index: int, seed: int) -> EventMeta:
    """The meta-data of event `index` (0-based), independent of how many events there are."""
    rng = random.Random(f"episodic|meta|{seed}|{index}")
    paragraphs = rng.randint(1, MAX_PARAGRAPHS)
    placement = {feature: rng.randint(1, paragraphs) for feature in FEATURES}
    return EventMeta(paragraphs, placement, rng.choice(sorted(STYLES)))


def repetition_counts(values: Sequence[str]) -> dict[str, int]:
    """How many distinct items appear once, twice, 3–5 times and 6+ times (Tables 6 and 9)."""
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    bins = {"1": 0, "2": 0, "3-5": 0, "6+": 0}
    for n in counts.values():
        bins["1" if n == 1 else "2" if n == 2 else "3-5" if n <= 5 else "6+"] += 1
    return bins
