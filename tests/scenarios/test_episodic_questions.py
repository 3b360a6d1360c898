"""Episodic questions: the 36 templates, each template's ground truth on a hand-checked mini book,
empty-answer questions (inner and outer masking) that really have no answer, and the paper's
selection balanced over events bins."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from pytest_memorybench.scenarios.episodic.book import (
    Book,
    BookPlan,
    ChapterTruth,
    generated_book,
)
from pytest_memorybench.scenarios.episodic.events import Event
from pytest_memorybench.scenarios.episodic.questions import (
    BINS,
    CueIndex,
    answer_of,
    bin_of,
    book_questions,
    candidates,
    cue_completed,
    select,
)
from pytest_memorybench.scenarios.episodic.templates import (
    GUIDANCE,
    TEMPLATES,
    parse_cue,
)
from pytest_memorybench.scenarios.episodic.universe import FEATURES


def test_the_36_templates_cover_every_cue_and_trace_as_table_10_does() -> None:
    assert [t.id for t in TEMPLATES] == list(range(36))
    assert Counter(t.get for t in TEMPLATES) == {"all": 30, "latest": 3, "chronological": 3}
    cues = Counter(t.cue_label for t in TEMPLATES if t.get == "all")
    assert len(cues) == 15 and "(*,*,*,*)" not in cues  # every cue but the empty one
    assert {t.trace for t in TEMPLATES if t.cue_label == "(t,s,ent,c)"} == {
        "Other entities",
        "Full event details",
    }
    for template in TEMPLATES:
        # no template asks for a feature its cue gives away
        assert not (template.trace == "Times" and template.cue[0]) and not (
            template.trace == "Spaces" and template.cue[1]
        )
        placeholders = {
            name for name, used in zip(("{t}", "{s}", "{ent}", "{c}"), template.cue, strict=True) if used
        }
        assert {p for p in ("{t}", "{s}", "{ent}", "{c}") if p in template.text} == placeholders, template.id
        question = template.render(("D", "S", "E", "C"))
        assert "?" in question and question.endswith(GUIDANCE)
    assert all(t.cue_label == "(*,*,ent,*)" for t in TEMPLATES if t.get != "all")
    assert parse_cue("(t, *, ent, *)") == (True, False, True, False)
    with pytest.raises(ValueError):
        parse_cue("(t, s, *)")


# SEP15 is the earliest date, yet sorts last as text: an answer ordered by the strings would show it.
SEP15, MAR01, MAY10 = "September 15, 2023", "March 01, 2024", "May 10, 2024"
AMBER, KESTREL = "Amberline Ferry Pier", "Kestrel Point Lighthouse"
ADA, BEN = "Ada Stone", "Ben Ash"
KITE, HARP = "Kite Flying Contest", "Harp Recital"


def mini_book() -> Book:
    """Five chapters; no (date, entity) or (date, location) repeats, as the generator ensures."""
    rows = [
        (MAR01, AMBER, ADA, KITE, ("Bo Reed",)),
        (MAY10, KESTREL, ADA, HARP, ("Cy Lamb", "Di Moss")),
        (MAR01, KESTREL, BEN, KITE, ()),
        (SEP15, AMBER, ADA, KITE, ("Ed Fox",)),
        (MAY10, AMBER, BEN, HARP, ("Flo Gale",)),
    ]
    truths = tuple(
        ChapterTruth(n, Event(t, s, e, c, "did something"), post)
        for n, (t, s, e, c, post) in enumerate(rows, 1)
    )
    unused = {
        "date": ("June 02, 2025",),
        "location": ("Redcliffe Lido",),
        "entity": ("Zoe Quill",),
        "content": ("Puzzle Trail",),
    }
    return Book(truths, unused, lambda truth: f"Text of chapter {truth.chapter}.")


# The ground truth of every template filled with chapter 1's (March 01, Amberline, Ada, Kite),
# worked out by hand from the table above: (answer, chapters it comes from, matching chapters).
HAND_CHECKED = {
    0: ((AMBER, KESTREL), (1, 3), 2),
    1: ((ADA, BEN), (1, 3), 2),
    2: ((KITE,), (1, 3), 2),
    3: ((MAR01, SEP15, MAY10), (1, 4, 5), 3),
    4: ((ADA, BEN), (1, 4, 5), 3),
    5: ((KITE, HARP), (1, 4, 5), 3),
    6: ((MAR01, MAY10, SEP15), (1, 2, 4), 3),
    7: ((AMBER, KESTREL), (1, 2, 4), 3),
    8: ((KITE, HARP), (1, 2, 4), 3),
    9: ((MAR01, SEP15), (1, 3, 4), 3),
    10: ((AMBER, KESTREL), (1, 3, 4), 3),
    11: ((ADA, BEN), (1, 3, 4), 3),
    12: ((ADA,), (1,), 1),
    13: ((KITE,), (1,), 1),
    14: ((AMBER,), (1,), 1),
    15: ((KITE,), (1,), 1),
    16: ((AMBER, KESTREL), (1, 3), 2),
    17: ((ADA, BEN), (1, 3), 2),
    18: ((MAR01, SEP15), (1, 4), 2),
    19: ((KITE,), (1, 4), 2),
    20: ((MAR01, SEP15), (1, 4), 2),
    21: ((ADA,), (1, 4), 2),
    22: ((MAR01, SEP15), (1, 4), 2),
    23: ((AMBER,), (1, 4), 2),
    24: ((KITE,), (1,), 1),
    25: ((ADA,), (1,), 1),
    26: ((AMBER,), (1,), 1),
    27: ((MAR01, SEP15), (1, 4), 2),
    28: (("Bo Reed",), (1,), 1),
    29: (("Full chapter 1",), (1,), 1),
    30: ((MAY10,), (2,), 3),  # Ada's events by date: Sep 15 2023 (ch. 4), Mar 01 (ch. 1), May 10 (ch. 2)
    31: ((KESTREL,), (2,), 3),
    32: ((HARP,), (2,), 3),
    33: ((SEP15, MAR01, MAY10), (4, 1, 2), 3),
    34: ((AMBER, AMBER, KESTREL), (4, 1, 2), 3),
    35: ((KITE, KITE, HARP), (4, 1, 2), 3),
}


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: f"t{t.id:02d}")
def test_each_templates_ground_truth_on_the_hand_checked_mini_book(template) -> None:  # type: ignore[no-untyped-def]
    book = mini_book()
    rows = CueIndex(book.truths).matching(template.cue, book.truths[0].values())
    answer, chapters = answer_of(template, rows)
    assert (answer, chapters, len(rows)) == HAND_CHECKED[template.id]


def test_questions_name_the_cue_values_and_are_deduplicated() -> None:
    book = mini_book()
    found = candidates(book, 0)
    keys = [
        (c.template.id, tuple(v for v, used in zip(c.values, c.template.cue, strict=True) if used))
        for c in found
    ]
    assert len(keys) == len(set(keys))
    # template 9 "(*,*,*,c)" is asked once per distinct content, however many chapters share it
    assert sorted(c.values[3] for c in found if c.template.id == 9 and c.strategy is None) == [HARP, KITE]
    assert cue_completed(TEMPLATES[12], book.truths[0].values()) == f"({{{MAR01}}},{{{AMBER}}},*,*)"


@pytest.mark.parametrize(
    "book",
    [mini_book(), generated_book(BookPlan(0, 20)), generated_book(BookPlan(3, 200))],
    ids=["mini", "short", "long"],
)
def test_empty_answer_questions_really_have_no_answer(book: Book) -> None:
    empties = [c for c in candidates(book, 0) if c.strategy is not None]
    assert {c.strategy for c in empties} == {"inner", "outer"}
    in_book = {f: {truth.event.feature(f) for truth in book.truths} for f in FEATURES}
    for candidate in empties:
        # brute force, without the index: no chapter agrees with the question on every cue feature
        cue_features = [f for f, used in zip(FEATURES, candidate.template.cue, strict=True) if used]
        values = dict(zip(FEATURES, candidate.values, strict=True))
        assert not any(all(t.event.feature(f) == values[f] for f in cue_features) for t in book.truths)
        assert candidate.rows == () and candidate.changed
        for feature in candidate.changed:
            # inner masking swaps in values the book uses; outer, values it never uses
            assert (values[feature] in in_book[feature]) == (candidate.strategy == "inner")


def test_outer_masking_skips_features_whose_universe_is_used_up() -> None:
    book = mini_book()
    exhausted = Book(book.truths, {f: () for f in FEATURES}, book.write)
    assert [c for c in candidates(exhausted, 0) if c.strategy == "outer"] == []


def test_selection_keeps_at_most_five_per_template_and_bin_and_fills_bins_0_and_1() -> None:
    book = generated_book(BookPlan(0, 200))
    pool = candidates(book, 0)
    groups = Counter((c.template.id, bin_of(len(c.rows))) for c in pool)
    chosen = select(pool, 5, 0)
    got = Counter((q.template, q.bin) for q in chosen)
    assert got == {group: min(5, size) for group, size in groups.items()}
    per_bin = Counter(q.bin for q in chosen)
    assert per_bin["0"] == per_bin["1"] == 36 * 5  # as the paper reports for both books
    assert per_bin["6+"] > 0 and set(per_bin) == set(BINS)
    assert select(pool, 5, 0) == chosen and select(pool, 5, 1) != chosen
    assert [(q.template, BINS.index(q.bin)) for q in chosen] == sorted(
        (q.template, BINS.index(q.bin)) for q in chosen
    )


def test_the_short_book_has_the_papers_shape_of_question_set() -> None:
    questions = book_questions(generated_book(BookPlan(0, 20)), 0)
    bins = Counter(q.bin for q in questions)
    assert bins["0"] == 180 and 170 <= bins["1"] <= 180 and bins["6+"] == 0  # the paper: 180, 180, 72, 24, 0
    assert 400 <= len(questions) <= 500
    for question in questions:
        assert question.empty == (question.answer == ()) == (question.bin == "0")
        if question.get == "latest":
            assert len(question.answer) <= 1
    by_template = defaultdict(set)
    for question in questions:
        by_template[question.template].add(question.bin)
    assert set(by_template) == set(range(36))
