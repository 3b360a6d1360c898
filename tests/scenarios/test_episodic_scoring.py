"""Episodic scoring: F1 special cases through the judge, Kendall τ on concrete lists, the
chronological credit, and the summary metrics as a pure function of result records."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from pytest_memorybench.contract.probes import probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.episodic.scenario import EMPTY_ANSWER, SCENARIO
from pytest_memorybench.scenarios.episodic.scoring import (
    chronology_reason,
    parse_chronology,
    summarize,
)
from pytest_memorybench.scoring.items_f1 import items_f1
from pytest_memorybench.scoring.kendall import episodic_tau

JAN15, MAR01, MAY10 = "January 15, 2024", "March 01, 2024", "May 10, 2024"


def score(
    answer: str,
    truth: Sequence[str],
    *,
    trace: str = "Spaces",
    get: str = "all",
    judge_answer: list[str] | None = None,
    candidates: list[str] | None = None,
) -> Score:
    expected: dict[str, Any] = {"answer": list(truth), "retrieval_type": trace, "get": get}
    if judge_answer:
        expected["judge_answer"] = judge_answer
    if candidates:
        expected["candidates"] = candidates
    definition = probe_definition(
        suite="s",
        scenario=SCENARIO.name,
        seed=0,
        context="c",
        probe_id="q",
        question="Which places?",
        ideal_answer="",
        expected=expected,
    )
    return asyncio.run(SCENARIO.score(definition, [answer], ScoringContext(judge=LocalJudge())))


@pytest.mark.parametrize(
    ("answer", "truth", "value"),
    [
        (EMPTY_ANSWER, [], 1.0),  # nothing to find, nothing claimed: abstention credit
        ("I don't know.", [], 1.0),
        (
            "- Amberline Ferry Pier\n- Kestrel Point Lighthouse",
            [],
            0.0,
        ),  # a hallucination where nothing exists
        ("I don't know.", ["Amberline Ferry Pier"], 0.0),  # a miss
        ("- Redcliffe Lido\n- Sandpiper Dunes", ["Amberline Ferry Pier"], 0.0),  # P = R = 0
        (
            "- Redcliffe Lido\n- Amberline Ferry Pier\n- Sandpiper Dunes",
            ["Amberline Ferry Pier"],
            1.0,
        ),  # lenient #pred
        (
            "- Amberline Ferry Pier\n- Kestrel Point Lighthouse",
            ["Amberline Ferry Pier", "Kestrel Point Lighthouse", "Redcliffe Lido"],
            0.8,
        ),
    ],
)
def test_item_f1_special_cases_through_the_judge(answer: str, truth: list[str], value: float) -> None:
    assert score(answer, truth).value == pytest.approx(value)


PLACES = ["Amberline Ferry Pier", "Kestrel Point Lighthouse", "Redcliffe Lido"]
PROSE = "Chapter 4\n\nThe wind came off the water at Kestrel Point Lighthouse, and Ada counted the boats."


def test_the_books_names_count_where_an_answer_states_them_in_prose() -> None:
    """A chapter quoted in reply to an empty-answer question gives a place: no abstention credit."""
    assert score(PROSE, []).value == 0.0, "without the book's names, the proper names in the prose count"
    assert score(PROSE, [], candidates=PLACES).value == 0.0
    assert score(EMPTY_ANSWER, [], candidates=PLACES).value == 1.0, "an abstention still earns the credit"
    # Where the place is the answer, the names change nothing: the lenient rule ignores extra items.
    assert score(PROSE, ["Kestrel Point Lighthouse"], candidates=PLACES).value == 1.0
    assert score(PROSE, ["Redcliffe Lido"], candidates=PLACES).value == 0.0


def test_every_question_carries_the_books_values_of_its_trace() -> None:
    (context,) = SCENARIO.contexts("episodic", {}, seed=0)
    by_trace: dict[str, set[str]] = {}
    for definition in context.probes:
        expected = definition.expected
        if expected["retrieval_type"] == "Full event details":
            assert "candidates" not in expected
            continue
        by_trace.setdefault(expected["retrieval_type"], set()).update(expected["candidates"])
        assert set(expected["answer"]) <= set(expected["candidates"])
    assert len(by_trace["Spaces"]) > 5 and by_trace["Spaces"].isdisjoint(by_trace["Entities"])


def test_the_f1_rules_themselves() -> None:
    assert items_f1([], [], []).value == 1.0
    assert items_f1(["x"], [], []).value == 0.0
    assert items_f1([], [0], ["a"]).value == 0.0
    assert items_f1(["a", "b", "c"], [1], ["a"]).value == 1.0  # lenient
    assert items_f1(["a", "b", "c"], [1], ["a"], lenient=False).value == pytest.approx(0.5)  # harsh: P = 1/3
    assert items_f1(["a"], [1, 0.5], ["a", "b"]).value == pytest.approx(2 * 1.5 * 0.75 / 2.25)


def test_full_event_questions_are_judged_against_the_chapter_text() -> None:
    chapter = "The harbour was loud. Ada played a glissando while Bo Reed watched the boats come in at dusk."
    assert score(chapter, ["Full chapter 3"], trace="Full event details", judge_answer=[chapter]).value == 1.0
    assert (
        score("I don't know.", ["Full chapter 3"], trace="Full event details", judge_answer=[chapter]).value
        == 0.0
    )


@pytest.mark.parametrize(
    ("indexes", "tau"),
    [
        ([0, 1, 2], 1.0),
        ([2, 1, 0], -1.0),
        ([1, 0, 2], 1 / 3),
        ([0, -1, 2], 1.0),
        ([2, 2, 0], -1.0),
        ([1, 3, 0], -1.0),
        ([0], None),
        ([-1, -1], None),
    ],
)
def test_kendall_tau_on_concrete_alignments(indexes: list[int], tau: float | None) -> None:
    got = episodic_tau(indexes, 3)
    assert got == (None if tau is None else pytest.approx(tau))


@pytest.mark.parametrize(
    ("answer", "value", "found"),
    [
        (f"1. {JAN15}\n2. {MAR01}\n3. {MAY10}", 1.0, 3),
        (f"1. {MAY10}\n2. {MAR01}\n3. {JAN15}", 0.0, 3),  # exact match, tau = -1: credit max(0, tau)
        (f"1. {MAR01}\n2. {JAN15}\n3. {MAY10}", 1 / 3, 3),
        (f"1. {JAN15}\n2. {MAY10}", 0.0, 2),  # an item missing: no chronology credit
        ("I don't know.", 0.0, 0),
    ],
)
def test_chronological_questions_score_the_order_on_exact_matches(
    answer: str, value: float, found: int
) -> None:
    result = score(answer, [JAN15, MAR01, MAY10], trace="Times", get="chronological")
    assert result.value == pytest.approx(value)
    parsed = parse_chronology(result.reasons)
    assert parsed is not None and parsed[:2] == (found, 3)
    assert any(reason.startswith("F1 = ") for reason in result.reasons)


def test_a_chronological_question_with_one_distinct_item_scores_its_f1() -> None:
    result = score(
        "Amberline Ferry Pier", ["Amberline Ferry Pier", "Amberline Ferry Pier"], get="chronological"
    )
    assert result.value == 1.0 and parse_chronology(result.reasons) is None


def test_chronology_reasons_round_trip() -> None:
    assert parse_chronology(["x", chronology_reason(3, 3, -0.3333)]) == (3, 3, -0.3333)
    assert parse_chronology([chronology_reason(1, 3, None)]) == (1, 3, None)
    assert parse_chronology(["F1 = 1.000"]) is None


def record(category: str, value: float, reasons: Sequence[str] = ()) -> dict[str, Any]:
    return {"category": category, "score": value, "reasons": list(reasons), "test_id": "q"}


def test_summary_metrics_are_the_papers_worked_by_hand() -> None:
    records = [
        record("all/0", 1),
        record("all/0", 1),
        record("all/1", 1),
        record("all/1", 0),
        record("all/2", 0.5),
        record("latest/1", 1),  # bins below 2 do not count for Latest
        record("latest/2", 1),
        record("latest/3-5", 0),
        record("latest/3-5", 0),
        record("chronological/3-5", 1, [chronology_reason(3, 3, 1.0)]),
        record("chronological/2", 0, [chronology_reason(2, 2, -1 / 3)]),
        record("chronological/3-5", 0, [chronology_reason(2, 4, 1.0)]),
        record("chronological/1", 1),
        record("something else", 0.3),
    ]
    metrics = summarize(records)
    assert metrics["simple_recall"] == pytest.approx((1 + 0.5 + 0.5) / 3, abs=1e-4)
    assert metrics["simple_recall_by_bin"] == {"0": 1.0, "1": 0.5, "2": 0.5}
    assert metrics["latest"] == pytest.approx(1 / 3, abs=1e-4)
    assert metrics["chronological_exact"] == pytest.approx(2 / 3, abs=1e-4)
    assert metrics["kendall_tau"] == pytest.approx(1 / 3, abs=1e-4)
    # ½ (Latest + max(0, All × τ)) = ½ (1/3 + 2/3 × 1/3)
    assert metrics["chronological_awareness"] == pytest.approx(0.5 * (1 / 3 + 2 / 9), abs=1e-4)
    assert (metrics["empty_answer_questions"], metrics["empty_answer_mean"]) == (2, 1.0)
    assert metrics["non_empty_questions"] == 11


def test_an_abstaining_agent_shows_both_halves_and_no_chronology() -> None:
    records = [record("all/0", 1)] * 5 + [record("all/1", 0)] * 5 + [record("all/2", 0)] * 3
    records += [record("latest/2", 0), record("chronological/2", 0, [chronology_reason(0, 2, None)])]
    metrics = summarize(records)
    assert metrics["simple_recall"] == pytest.approx(1 / 3, abs=1e-4)
    assert (metrics["empty_answer_mean"], metrics["non_empty_mean"]) == (1.0, 0.0)
    assert metrics["chronological_awareness"] == 0.0 and metrics["kendall_tau"] is None


def test_a_summary_without_questions_has_no_metrics() -> None:
    metrics = summarize([])
    assert metrics["simple_recall"] is None and metrics["chronological_awareness"] is None
    assert metrics["empty_answer_questions"] == metrics["non_empty_questions"] == 0
