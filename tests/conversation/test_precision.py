"""Retrieval precision and the evidence's share of tokens: what a memory returned beside what it found.

Each test hands the measure what a memory could return (k of anything, the evidence alone, the
evidence twice, a long chunk around it, nothing) and checks the figures against counts worked out
by hand.
"""

from __future__ import annotations

from typing import Any

from pytest_memorybench.conversation.evidence import context_recall, evidence_recall, mean_recall

FACT = "My sister Anna moved to Lisbon in May."
OTHER = [f"user: The tram to Belém leaves every {n} minutes from the square." for n in range(2, 11)]


def measured(evidence: list[str], memories: list[str]) -> dict[str, Any]:
    record = evidence_recall(evidence, memories)
    assert record is not None
    return record


def test_k_memories_of_anything_find_the_evidence_but_are_mostly_not_evidence() -> None:
    record = measured([FACT], [*OTHER[:4], f"user: {FACT}", *OTHER[4:]])
    assert (record["recall"], record["relevant"], record["used"]) == (1.0, 1, 10)
    assert record["precision"] == 0.1
    assert record["share"] < 0.15  # nine tram timetables around one sentence


def test_the_evidence_alone_is_precise_and_fills_the_prompt_but_for_its_label() -> None:
    record = measured([FACT], [f"user: {FACT}"])
    assert (record["precision"], record["relevant"]) == (1.0, 1)
    assert record["evidence_tokens"] == 9 and record["tokens"] == 11  # "user" and ":" are not evidence
    assert record["share"] == round(9 / 11, 6)


def test_a_duplicate_is_a_relevant_memory_that_halves_the_share() -> None:
    once, twice = measured([FACT], [FACT]), measured([FACT], [FACT, f"[2024-05-01] {FACT}"])
    assert (once["precision"], twice["precision"], twice["relevant"]) == (1.0, 1.0, 2)
    assert once["share"] == 1.0 and twice["share"] < 0.5  # the evidence is counted once


def test_a_long_chunk_counts_as_one_right_memory_but_its_share_is_small() -> None:
    chunk = " ".join([*OTHER, FACT, *OTHER])
    record = measured([FACT], [chunk])
    assert (record["recall"], record["precision"]) == (1.0, 1.0)
    assert 0 < record["share"] < 0.05


def test_a_memory_holding_part_of_a_chapter_is_relevant() -> None:
    chapter = (
        "Chapter 3\n\nThe baker found a brass key in his flour sack.\n\nNobody knew which door it opened."
    )
    record = measured([chapter], ["The baker found a brass key in his flour sack.", OTHER[0]])
    assert (record["recall"], record["relevant"], record["precision"]) == (round(1 / 3, 6), 1, 0.5)


def test_nothing_returned_has_no_precision_rather_than_zero() -> None:
    record = measured([FACT], [])
    assert (record["recall"], record["precision"], record["share"]) == (0.0, None, None)


def test_the_answering_prompt_is_measured_the_same_way() -> None:
    record = context_recall([FACT], [FACT, *OTHER[:3]])
    assert record is not None and (record["precision"], record["relevant"]) == (0.25, 1)


def test_the_means_are_over_the_questions_that_have_each_figure() -> None:
    def item(precision: float | None, share: float | None, context: dict[str, Any] | None = None) -> Any:
        evidence: dict[str, Any] = {
            "k": 10,
            "returned": 3,
            "recall": 1.0,
            "precision": precision,
            "share": share,
        }
        if context is not None:
            evidence["context"] = {"recall": 1.0, **context}
        return {"score": 1.0, "details": {"evidence": evidence}}

    summary = mean_recall(
        [
            item(1.0, 0.5, {"precision": 0.2, "share": 0.1}),
            item(0.1, 0.1),
            item(None, None),  # nothing came back
            {"score": 1.0, "details": {"evidence": {"k": 10, "returned": 1, "recall": 0.0}}},  # an older run
        ]
    )
    assert summary is not None
    assert (summary["precision_mean"], summary["precision_questions"]) == (0.55, 2)
    assert (summary["share_mean"], summary["share_questions"]) == (0.3, 2)
    assert (summary["context_precision_mean"], summary["context_share_mean"]) == (0.2, 0.1)
    assert summary["questions"] == 4 and summary["context_questions"] == 1
