"""Questions and their ground truth (Huet et al., App. B.2.2–B.2.4).

Non-empty questions: every chapter's (t, s, ent, c) fills each of the 36 templates; the answer is
read off the chapters matching the template's cue, and a question produced by several chapters is
kept once.
  * get = all: the distinct values of the trace over the matching chapters (in chapter order;
    the paper treats them as a set); "Other entities" gives the chapter's secondary characters,
    "Full event details" the chapter itself (`Full chapter N`, judged against its text).
  * get = latest / chronological: the matching chapters sorted by date (an entity has at most one
    event a day, so the order is never ambiguous); the last value, or all values in that order.
  * `n_chapters`, what the bins count, is the number of matching chapters, for latest questions too.

Empty-answer questions (B.2.3): for each chapter, once with the *inner* and once with the *outer*
strategy, an i.i.d. Bernoulli(½) mask over (t, s, ent, c) — redrawn while it masks nothing — picks
features to replace: inner takes another value of that feature found in the book, outer a value of
the universe the book never uses.  Every template is filled with the corrupted tuple and kept only
when no chapter matches its cue.  (Outer masking leaves a feature alone when the book uses the
whole universe for it.)

Selection (B.2.4): questions are binned by `n_chapters` into 0, 1, 2, 3-5 and 6+, and at most
`per_bin` (the paper's N_target = 5) are drawn at random, with the seed, for each (template, bin).
Answers are computed before any question text is written, so planning the questions of a
2,000-chapter book stays fast.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import product

from pytest_memorybench.scenarios.episodic.book import Book, ChapterTruth
from pytest_memorybench.scenarios.episodic.templates import (
    TEMPLATES,
    TRACE_FEATURE,
    Cue,
    Template,
)
from pytest_memorybench.scenarios.episodic.universe import DATE_FORMAT, FEATURES

BINS = ("0", "1", "2", "3-5", "6+")
BIN_MARKERS = {"0": "bin0", "1": "bin1", "2": "bin2", "3-5": "bin3_5", "6+": "bin6plus"}
STRATEGIES = ("inner", "outer")

Values = tuple[str, str, str, str]


def bin_of(n_chapters: int) -> str:
    """The paper's bins, left-closed on [0, 1, 2, 3, 6, ∞)."""
    return (
        "0"
        if n_chapters == 0
        else "1"
        if n_chapters == 1
        else "2"
        if n_chapters == 2
        else "3-5"
        if n_chapters <= 5
        else "6+"
    )


@dataclass(frozen=True)
class Question:
    """One question with its ground truth, as a row of `df_qa`."""

    template: int
    cue: str  # e.g. "(t,*,ent,*)"
    retrieval_type: str
    get: str
    text: str
    cue_completed: str  # e.g. "({April 09, 2026},*,{Zoe Rivera},*)"
    answer: tuple[str, ...]  # a set for get = all, ordered for latest / chronological
    chapters: tuple[int, ...]  # the chapters the answer comes from
    n_chapters: int  # chapters matching the cue (what the bins count)
    strategy: str | None = None  # "inner" / "outer" for empty-answer questions
    changed: tuple[str, ...] = ()  # the features the mask replaced

    @property
    def bin(self) -> str:
        return bin_of(self.n_chapters)

    @property
    def empty(self) -> bool:
        return self.n_chapters == 0


@dataclass(frozen=True)
class _Candidate:
    template: Template
    values: Values
    rows: tuple[ChapterTruth, ...]
    strategy: str | None
    changed: tuple[str, ...]


class CueIndex:
    """The chapters matching any cue, from one dictionary per cue mask."""

    def __init__(self, truths: Sequence[ChapterTruth]) -> None:
        self._index: dict[Cue, dict[tuple[str, ...], list[ChapterTruth]]] = {}
        for flags in product((False, True), repeat=4):
            mask: Cue = (flags[0], flags[1], flags[2], flags[3])
            table: dict[tuple[str, ...], list[ChapterTruth]] = defaultdict(list)
            for truth in truths:
                table[_key(mask, truth.values())].append(truth)
            self._index[mask] = dict(table)

    def matching(self, cue: Cue, values: Values) -> tuple[ChapterTruth, ...]:
        return tuple(self._index[cue].get(_key(cue, values), ()))


def _key(mask: Cue, values: Values) -> tuple[str, ...]:
    return tuple(value for value, used in zip(values, mask, strict=True) if used)


def answer_of(template: Template, rows: Sequence[ChapterTruth]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """(answer items, chapters they come from) for the rows matching a template's cue."""
    if not rows:
        return (), ()
    if template.trace == "Full event details":
        return tuple(f"Full chapter {row.chapter}" for row in rows), tuple(row.chapter for row in rows)
    if template.trace == "Other entities":
        return tuple(name for row in rows for name in row.post_entities), tuple(row.chapter for row in rows)
    feature = TRACE_FEATURE[template.trace]
    if template.get == "all":
        return tuple(dict.fromkeys(row.event.feature(feature) for row in rows)), tuple(
            row.chapter for row in rows
        )
    ordered = sorted(rows, key=lambda row: (datetime.strptime(row.event.date, DATE_FORMAT), row.chapter))
    if template.get == "latest":
        ordered = ordered[-1:]
    return tuple(row.event.feature(feature) for row in ordered), tuple(row.chapter for row in ordered)


def cue_completed(template: Template, values: Values) -> str:
    """A template's cue with the question's values filled in."""
    return (
        "("
        + ",".join(f"{{{value}}}" if used else "*" for value, used in zip(values, template.cue, strict=True))
        + ")"
    )


def build_question(candidate: _Candidate) -> Question:
    """A question from a template and the book's events that answer it."""
    template = candidate.template
    answer, chapters = answer_of(template, candidate.rows)
    return Question(
        template=template.id,
        cue=template.cue_label,
        retrieval_type=template.trace,
        get=template.get,
        text=template.render(candidate.values),
        cue_completed=cue_completed(template, candidate.values),
        answer=answer,
        chapters=chapters,
        n_chapters=len(candidate.rows),
        strategy=candidate.strategy,
        changed=candidate.changed,
    )


def candidates(book: Book, seed: int) -> list[_Candidate]:
    """Every distinct question the book allows: non-empty ones, then the empty-answer ones."""
    index = CueIndex(book.truths)
    seen: set[tuple[int, tuple[str, ...]]] = set()
    found: list[_Candidate] = []

    def offer(values: Values, strategy: str | None, changed: tuple[str, ...]) -> None:
        for template in TEMPLATES:
            key = (template.id, _key(template.cue, values))
            if key in seen:
                continue
            rows = index.matching(template.cue, values)
            if strategy is not None and rows:
                continue  # a corrupted tuple only contributes questions nothing answers
            seen.add(key)
            found.append(_Candidate(template, values, rows, strategy, changed))

    for truth in book.truths:
        offer(truth.values(), None, ())
    in_book = {
        feature: sorted({truth.event.feature(feature) for truth in book.truths}) for feature in FEATURES
    }
    for truth in book.truths:
        for strategy in STRATEGIES:
            corrupted = corrupt(truth, strategy, in_book, book.unused, seed)
            if corrupted is not None:
                offer(*corrupted)
    return found


def corrupt(
    truth: ChapterTruth,
    strategy: str,
    in_book: Mapping[str, Sequence[str]],
    unused: Mapping[str, Sequence[str]],
    seed: int,
) -> tuple[Values, str, tuple[str, ...]] | None:
    """The chapter's tuple with a random non-empty set of features replaced, or None if no
    replacement exists (one chapter's book for inner, a fully used universe for outer)."""
    rng = random.Random(f"episodic|empty|{seed}|{strategy}|{truth.chapter}")
    mask = [False] * 4
    while not any(mask):
        mask = [rng.random() < 0.5 for _ in FEATURES]
    values = list(truth.values())
    changed = []
    for position, (feature, masked) in enumerate(zip(FEATURES, mask, strict=True)):
        if not masked:
            continue
        pool = (
            [value for value in in_book[feature] if value != values[position]]
            if strategy == "inner"
            else list(unused[feature])
        )
        if pool:
            values[position] = rng.choice(pool)
            changed.append(feature)
    if not changed:
        return None
    return (values[0], values[1], values[2], values[3]), strategy, tuple(changed)


def select(pool: Iterable[_Candidate], per_bin: int, seed: int) -> list[Question]:
    """At most `per_bin` questions per (template, bin), drawn with the seed; ordered by template,
    then bin, then as generated."""
    groups: dict[tuple[int, str], list[_Candidate]] = defaultdict(list)
    for candidate in pool:
        groups[(candidate.template.id, bin_of(len(candidate.rows)))].append(candidate)
    chosen: list[Question] = []
    for (template, bin_label), members in sorted(
        groups.items(), key=lambda item: (item[0][0], BINS.index(item[0][1]))
    ):
        rng = random.Random(f"episodic|select|{seed}|{template}|{bin_label}")
        picked = sorted(rng.sample(range(len(members)), min(per_bin, len(members))))
        chosen.extend(build_question(members[i]) for i in picked)
    return chosen


def book_questions(book: Book, seed: int, per_bin: int = 5) -> list[Question]:
    """The benchmark's questions for a book: generated, deduplicated, balanced over bins."""
    return select(candidates(book, seed), per_bin, seed)
