"""A book: its chapters' ground truth, and their text produced on demand.

Ground truth is what questions are built from (one row per chapter, as the published
`df_book_groundtruth`): the chapter's date, location, protagonist, content and secondary
characters.  Text is only needed to deliver the book and for the few "full account" questions,
so a generated book writes a chapter when first asked for it: planning a 2,000-chapter book and
its questions takes no prose at all.

Assembly follows App. B.1.9: chapters are numbered from 1 in event order and the document is
"Chapter k\\n\\n<text>" joined by blank lines, as in the published `book.json`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

from pytest_memorybench.core.tokens import TokenCounter
from pytest_memorybench.scenarios.episodic.events import (
    Event,
    EventMeta,
    sample_events,
    sample_meta,
)
from pytest_memorybench.scenarios.episodic.prose import secondary_count, write_chapter
from pytest_memorybench.scenarios.episodic.universe import (
    FEATURES,
    build_universe,
    secondary_names,
)

CHAPTER_SEPARATOR = "\n\n\n"


@dataclass(frozen=True)
class ChapterTruth:
    """One chapter's ground truth (a row of `df_book_groundtruth`)."""

    chapter: int
    event: Event
    post_entities: tuple[str, ...] = ()  # the secondary characters, each new to the book
    meta: EventMeta | None = None  # unknown for published books, which do not ship it per chapter

    def values(self) -> tuple[str, str, str, str]:
        return (self.event.date, self.event.location, self.event.entity, self.event.content)


@dataclass(eq=False)
class Book:
    """Chapters' ground truth, the unused universe (for "outer" empty questions) and the text."""

    truths: tuple[ChapterTruth, ...]
    unused: Mapping[str, tuple[str, ...]]
    write: Callable[[ChapterTruth], str]  # the text of a chapter, without its heading
    source: str = "generated"
    discarded: tuple[int, ...] = ()  # events whose chapter could not be written (llm writer)
    _bodies: dict[int, str] = field(default_factory=dict, repr=False)

    def body(self, chapter: int) -> str:
        """The text of chapter `chapter` (1-based), written once."""
        if chapter not in self._bodies:
            self._bodies[chapter] = self.write(self.truths[chapter - 1])
        return self._bodies[chapter]

    def heading_and_body(self, chapter: int) -> str:
        return f"Chapter {chapter}\n\n{self.body(chapter)}"

    def chapters(self) -> Iterator[str]:
        """Each chapter with its heading, in order, written as it is reached."""
        for truth in self.truths:
            yield self.heading_and_body(truth.chapter)

    def document(self) -> str:
        """The whole book as one text, as `book.json` holds it."""
        return CHAPTER_SEPARATOR.join(self.chapters())

    def tokens(self, counter: TokenCounter) -> int:
        return counter.count(self.document())


@dataclass(frozen=True)
class BookPlan:
    """What decides a generated book: the suite's parameters that shape the events."""

    seed: int
    chapters: int
    universe_size: int = 100
    distribution: str = "geometric"
    p: float = 0.1
    start: date = date(2024, 1, 1)
    end: date = date(2026, 12, 31)


@lru_cache(maxsize=8)
def generated_book(plan: BookPlan) -> Book:
    """The book of a plan, written by the `template` writer: events, meta-data and cast are
    drawn now, prose when a chapter is first read."""
    universe = build_universe(plan.seed, plan.universe_size, plan.start, plan.end)
    events = sample_events(universe, plan.chapters, plan.seed, distribution=plan.distribution, p=plan.p)
    names = secondary_names(universe)
    truths = []
    for index, event in enumerate(events):
        cast = random.Random(f"episodic|cast|{plan.seed}|{index}")
        post = tuple(next(names) for _ in range(secondary_count(cast)))
        truths.append(ChapterTruth(index + 1, event, post, sample_meta(index, plan.seed)))

    def write(truth: ChapterTruth) -> str:
        assert truth.meta is not None
        seed = f"{plan.seed}|{truth.chapter}"
        return write_chapter(
            truth.event,
            truth.meta,
            truth.post_entities,
            seed,
            universe.pronouns.get(truth.event.entity, "she"),
        ).text

    return Book(tuple(truths), unused_universe(universe.items, truths), write)


def unused_universe(
    items: Callable[[str], tuple[str, ...]], truths: Sequence[ChapterTruth]
) -> dict[str, tuple[str, ...]]:
    """For each feature, the universe's items no chapter uses (App. B.2.3's "unused static universe")."""
    used = {feature: {truth.event.feature(feature) for truth in truths} for feature in FEATURES}
    return {
        feature: tuple(item for item in items(feature) if item not in used[feature]) for feature in FEATURES
    }
