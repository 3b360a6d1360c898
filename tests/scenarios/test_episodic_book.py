"""Episodic book generation: our lists, the universe, event sampling (Table 6), the paper's
constraints and prefix property, meta-data, and the template writer's verbatim placement."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from datetime import date
from statistics import fmean, pstdev

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.judges.local import abstains
from pytest_memorybench.scenarios.episodic.book import BookPlan, generated_book
from pytest_memorybench.scenarios.episodic.events import (
    Event,
    EventMeta,
    position_weights,
    repetition_counts,
    sample_events,
    sample_meta,
)
from pytest_memorybench.scenarios.episodic.lists import CONTENTS, LOCATIONS, STYLES
from pytest_memorybench.scenarios.episodic.prose import (
    BANKS,
    SHARED_COMPANIONS,
    SHARED_FILLERS,
    write_chapter,
)
from pytest_memorybench.scenarios.episodic.universe import (
    FEATURES,
    build_universe,
    first_name,
    secondary_names,
)
from pytest_memorybench.scenarios.episodic.verify import (
    placeholder_problems,
    placement_problems,
    split_numbered,
)

MONTHS = {date(2000, month, 1).strftime("%B").lower() for month in range(1, 13)}

# -- our lists ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("items", [LOCATIONS, tuple(CONTENTS)], ids=["locations", "contents"])
def test_no_item_is_inside_another_and_two_word_items_share_no_word(items: tuple[str, ...]) -> None:
    assert len(items) >= 100 and len(set(items)) == len(items)
    for first, second in itertools.permutations(items, 2):
        assert first.lower() not in second.lower(), (first, second)
    words = Counter(word.lower() for item in items for word in set(item.split()))
    for item in items:
        if len(item.split()) <= 2:
            assert all(words[word.lower()] == 1 for word in item.split()), item


def test_every_content_has_ten_distinct_details_that_read_as_statements() -> None:
    for content, details in CONTENTS.items():
        assert len(details) >= 10 and len(set(details)) == len(details), content
        for detail in details:
            assert detail == detail.strip() and detail[0].islower() and "?" not in detail, detail
            assert not abstains(f"Mara {detail}."), detail
    assert not {content.lower() for content in CONTENTS} & {location.lower() for location in LOCATIONS}


def test_prose_banks_never_ask_never_decline_and_use_known_placeholders() -> None:
    allowed = {
        "first",
        "entity",
        "date",
        "location",
        "content",
        "detail",
        "other",
        "they",
        "them",
        "their",
        "themself",
    }
    sentences = [*SHARED_FILLERS, *SHARED_COMPANIONS]
    for style, bank in BANKS.items():
        assert style in STYLES
        sentences += [
            *bank.openings,
            *bank.fillers,
            *bank.companions,
            *bank.closings,
            *bank.date,
            *bank.location,
            *bank.entity,
            *bank.content,
        ]
        assert all("{first} {detail}" in sentence and "{content}" in sentence for sentence in bank.content)
        assert all("{date}" in s for s in bank.date) and all("{location}" in s for s in bank.location)
        assert all("{entity}" in s for s in bank.entity)
    assert set(BANKS) == set(STYLES)
    for sentence in sentences:
        assert "?" not in sentence and not re.search(r"\d", sentence), sentence
        assert not set(re.findall(r"[a-z]+", sentence.lower())) & MONTHS, sentence  # no stray dates
        assert set(re.findall(r"\{(\w+)\}", sentence)) <= allowed, sentence
        assert not abstains(sentence.replace("{", "").replace("}", "")), sentence


# -- the universe --------------------------------------------------------------------------------------


def test_the_universe_has_the_papers_sizes_distinct_items_and_is_deterministic() -> None:
    universe = build_universe(3)
    assert build_universe(3) == universe and build_universe(4) != universe
    for feature in FEATURES:
        items = universe.items(feature)
        assert len(items) == 100 and len(set(items)) == 100
    assert (
        len(universe.first_names) == 100 and len(universe.last_names) == 100
    )  # first names tell people apart
    assert not universe.first_names & universe.last_names
    assert Counter(universe.pronouns.values()) == {"she": 50, "he": 50}
    assert all(re.fullmatch(r"[A-Z][a-z]+ \d\d, 20(24|25|26)", day) for day in universe.dates)
    assert not {name.lower() for name in universe.first_names} & {"april", "may", "june", "august"}


def test_secondary_names_are_new_and_share_no_name_with_the_protagonists() -> None:
    universe = build_universe(0)
    names = list(itertools.islice(secondary_names(universe), 3000))
    assert len(set(names)) == 3000
    taken = universe.first_names | universe.last_names
    assert all(not set(name.split()) & taken for name in names)
    assert names[:50] == list(itertools.islice(secondary_names(universe), 50))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 1}, "at least 2"),
        ({"size": 500}, "larger than our lists"),
        ({"size": 50, "start": date(2024, 1, 1), "end": date(2024, 1, 10)}, "fewer than universe_size"),
    ],
)
def test_an_impossible_universe_is_a_usage_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        build_universe(0, **kwargs)  # type: ignore[arg-type]


# -- events ---------------------------------------------------------------------------------------------


def test_truncated_geometric_weights_follow_the_papers_formula() -> None:
    weights = position_weights("geometric", 100, 0.1)
    assert sum(weights) == pytest.approx(1.0)
    assert weights[0] == pytest.approx(0.1 / (1 - 0.9**100))
    assert all(
        later / earlier == pytest.approx(0.9) for earlier, later in zip(weights, weights[1:], strict=False)
    )
    assert position_weights("uniform", 100, 0.1) == [0.01] * 100
    with pytest.raises(UsageError, match="strictly between"):
        position_weights("geometric", 100, 1.5)


# Table 6 of the paper: expected number of items (of one list) drawn exactly 1, 2, 3-5 and 6+ times
# when N_events items are drawn from N_universe = 100, mean ± std over 10,000 repetitions.
TABLE_6 = {
    (20, "geometric"): {"1": (8, 2.4), "2": (3, 1.5), "3-5": (2, 0.9), "6+": (0, 0.2)},
    (200, "geometric"): {"1": (9, 2.7), "2": (5, 1.9), "3-5": (7, 2.2), "6+": (13, 1.4)},
    (20, "uniform"): {"1": (16, 2.3), "2": (2, 1.1), "3-5": (0, 0.3), "6+": (0, 0.0)},
    (200, "uniform"): {"1": (27, 4.0), "2": (27, 4.5), "3-5": (31, 3.2), "6+": (2, 1.2)},
}


def expected_repetitions(events: int, distribution: str, p: float = 0.1, size: int = 100) -> dict[str, float]:
    """Table 6 worked out exactly: E[#items drawn k times] = Σ_i C(N, k) P_i^k (1 − P_i)^(N − k)."""
    expected = {"1": 0.0, "2": 0.0, "3-5": 0.0, "6+": 0.0}
    for weight in position_weights(distribution, size, p):
        law = [math.comb(events, k) * weight**k * (1 - weight) ** (events - k) for k in range(events + 1)]
        expected["1"] += law[1]
        expected["2"] += law[2]
        expected["3-5"] += sum(law[3:6])
        expected["6+"] += sum(law[6:])
    return expected


@pytest.mark.parametrize(("events", "distribution"), list(TABLE_6))
def test_the_exact_expectations_of_d_round_to_table_6(events: int, distribution: str) -> None:
    # The paper's table is a 10,000-run simulation rounded to whole items: our D gives it back.
    expected = expected_repetitions(events, distribution)
    for label, (mean, _) in TABLE_6[(events, distribution)].items():
        assert abs(expected[label] - mean) <= 0.55, (label, expected[label], mean)
    assert abs(expected_repetitions(200, "geometric", p=0.12)["1"] - 9) > 1  # a neighbouring p would not


@pytest.mark.parametrize(("events", "distribution"), list(TABLE_6))
def test_the_unconstrained_feature_repeats_as_d_predicts_over_a_seed_sweep(
    events: int, distribution: str
) -> None:
    # Contents are drawn from D with no constraint, so their repetition counts must match the
    # exact expectation within sampling error (4 standard errors over 200 seeds).
    universe = build_universe(0)
    sweeps: dict[str, list[int]] = {label: [] for label in ("1", "2", "3-5", "6+")}
    for seed in range(200):
        drawn = sample_events(universe, events, seed, distribution=distribution)
        for label, count in repetition_counts([event.content for event in drawn]).items():
            sweeps[label].append(count)
    expected = expected_repetitions(events, distribution)
    for label, counts in sweeps.items():
        error = 4 * max(pstdev(counts), 0.3) / math.sqrt(len(counts))
        assert abs(fmean(counts) - expected[label]) <= error, (label, fmean(counts), expected[label])


def test_list_positions_follow_the_truncated_geometric_law() -> None:
    universe = build_universe(0)
    positions = [
        universe.contents.index(e.content) for seed in range(100) for e in sample_events(universe, 200, seed)
    ]
    weights = position_weights("geometric", 100, 0.1)
    mean = sum(i * w for i, w in enumerate(weights))  # about 9.0
    spread = math.sqrt(sum((i - mean) ** 2 * w for i, w in enumerate(weights)) / len(positions))
    assert abs(fmean(positions) - mean) <= 4 * spread, (fmean(positions), mean)
    for position in range(5):
        share = positions.count(position) / len(positions)
        error = 4 * math.sqrt(weights[position] * (1 - weights[position]) / len(positions))
        assert abs(share - weights[position]) <= error, (position, share, weights[position])
    assert max(positions) < 100 and positions.count(0) > positions.count(20) * 5  # skewed, truncated


@pytest.mark.parametrize(("events", "distribution"), list(TABLE_6))
def test_repetition_counts_over_a_seed_sweep_match_table_6(events: int, distribution: str) -> None:
    universe = build_universe(0)
    sweeps: dict[str, list[int]] = {label: [] for label in ("1", "2", "3-5", "6+")}
    for seed in range(60):
        drawn = sample_events(universe, events, seed, distribution=distribution)
        for feature in FEATURES:
            for label, count in repetition_counts([event.feature(feature) for event in drawn]).items():
                sweeps[label].append(count)
    for label, (mean, std) in TABLE_6[(events, distribution)].items():
        # All four features, constrained ones included: dropping candidates that repeat a (date,
        # entity) or (date, location) pair moves draws off busy dates (the paper's Table 9 shows the
        # same drift in its own book), so this is within a standard deviation of the table.
        assert abs(fmean(sweeps[label]) - mean) <= max(std, 0.5), (label, fmean(sweeps[label]), mean)


def test_no_two_events_share_date_and_entity_or_date_and_location() -> None:
    events = sample_events(build_universe(1), 2000, 1)
    assert len({(e.date, e.entity) for e in events}) == 2000
    assert len({(e.date, e.location) for e in events}) == 2000
    universe = build_universe(1)
    assert all(e.detail in universe.details[e.content] for e in events)


def test_impossible_constraints_are_a_usage_error() -> None:
    tiny = build_universe(0, size=2)
    with pytest.raises(UsageError, match="cannot have distinct"):
        sample_events(tiny, 10, 0)  # at most 2 dates x 2 places: refused before drawing
    with pytest.raises(UsageError, match="cannot have distinct"):
        sample_events(build_universe(0), 20_000, 0)  # more than 100 x 100 pairs
    # within capacity but out of reach: the stream stalls on the last rare pairs and is given up
    with pytest.raises(UsageError, match=r"could not draw 25 events .*\(stuck after \d+\)"):
        sample_events(build_universe(0, size=5), 25, 0, p=0.6)


@pytest.mark.parametrize("seed", [0, 7])
def test_prefix_property_the_short_book_opens_the_long_book(seed: int) -> None:
    universe = build_universe(seed)
    assert sample_events(universe, 20, seed) == sample_events(universe, 200, seed)[:20]
    short, long = generated_book(BookPlan(seed, 20)), generated_book(BookPlan(seed, 200))
    assert short.truths == long.truths[:20]  # events, meta-data and secondary characters
    assert [short.body(n) for n in (1, 20)] == [long.body(n) for n in (1, 20)]


def test_meta_data_ranges_and_styles() -> None:
    metas = [sample_meta(index, 0) for index in range(400)]
    assert {meta.nb_paragraphs for meta in metas} == set(range(1, 11))
    assert all(1 <= meta.idx_paragraph[f] <= meta.nb_paragraphs for meta in metas for f in FEATURES)
    assert {meta.style for meta in metas} == set(STYLES)
    assert sample_meta(5, 0) == metas[5] and sample_meta(5, 1) != metas[5]


# -- the template writer --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_feature_is_verbatim_in_its_assigned_paragraph_only(seed: int) -> None:
    book = generated_book(BookPlan(seed, 200))
    for truth in book.truths:
        assert truth.meta is not None
        paragraphs = book.body(truth.chapter).split("\n\n")
        assert placement_problems(paragraphs, truth.event, truth.meta) == [], truth.chapter
        content_paragraph = truth.meta.idx_paragraph["content"]
        assert [k for k, p in enumerate(paragraphs, 1) if truth.event.content in p] == [content_paragraph]
        text = book.body(truth.chapter)
        assert all(name in text for name in truth.post_entities)
        assert "?" not in text and not abstains(text) and "Chapter" not in text
    styles = {truth.meta.style for truth in book.truths if truth.meta}
    assert styles == set(STYLES)


def test_chapters_are_deterministic_and_differ_by_style() -> None:
    event = Event("March 01, 2024", "Amberline Ferry Pier", "Ada Stone", "Harp Recital", "played a glissando")
    meta = EventMeta(3, {"date": 1, "location": 2, "entity": 3, "content": 2}, "horror")
    horror = write_chapter(event, meta, ("Bo Reed",), "s")
    assert horror == write_chapter(event, meta, ("Bo Reed",), "s")
    comedy = write_chapter(event, EventMeta(3, meta.idx_paragraph, "comedy"), ("Bo Reed",), "s")
    assert horror.text != comedy.text and len(horror.paragraphs) == 3
    assert "Ada played a glissando" in horror.paragraphs[1] and "Bo Reed" in horror.text
    he = write_chapter(event, meta, (), "s", pronoun="he").text
    assert not re.search(r"\b(she|her|herself)\b", he)


def test_book_document_and_headings_follow_the_published_shape() -> None:
    book = generated_book(BookPlan(0, 20))
    document = book.document()
    assert document.startswith("Chapter 1\n\n") and "\n\n\nChapter 2\n\n" in document
    assert document.count("\n\n\nChapter ") == 19
    assert first_name(book.truths[0].event.entity) in book.body(1)


# -- the exact checks ----------------------------------------------------------------------------------


EVENT = Event("March 01, 2024", "Amberline Ferry Pier", "Ada Stone", "Harp Recital", "played a glissando")
META = EventMeta(2, {"date": 1, "location": 1, "entity": 2, "content": 2}, "mystery")


def test_the_exact_checks_accept_a_good_candidate_and_name_each_fault() -> None:
    good = (
        "(1) On March 01, 2024 the wind rose at Amberline Ferry Pier.\n\n(2) Ada Stone waited; then Ada"
        " played a glissando for $entity_1."
    )
    paragraphs, problems = split_numbered(good)
    assert (
        problems == []
        and placement_problems(paragraphs, EVENT, META) == []
        and placeholder_problems(good) == []
    )
    swapped = (
        "(1) Ada Stone waited at Amberline Ferry Pier.\n\n(2) March 01, 2024: Ada played a glissando. Ada"
        " Stone bowed."
    )
    faults = placement_problems(split_numbered(swapped)[0], EVENT, META)
    assert "date 'March 01, 2024' is missing from paragraph 1" in faults
    assert "entity 'Ada Stone' also appears in paragraph(s) [1]" in faults
    assert split_numbered("(1) one\n\n(3) three")[1] == ["paragraphs are numbered [1, 3], not 1, 2, 3, …"]
    assert placement_problems(["only one"], EVENT, META) == ["1 paragraphs instead of 2"]
    assert placeholder_problems("met $Entity1 and $entity_2") == [
        "malformed character placeholder(s): $Entity1"
    ]
