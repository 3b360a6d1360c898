"""Precision beside recall where a reader looks: the terminal, compare's column and the board's JSON."""

from __future__ import annotations

from typing import Any

from pytest_memorybench.reports.compare.comparison import Spending
from pytest_memorybench.reports.compare.report import _retrieval_json
from pytest_memorybench.reports.summary import precision_text, retrieval_lines, scenario_retrieval_lines
from pytest_memorybench.results.schema import RecallRecord, StaleRecord

GREEDY: RecallRecord = {
    "k": 10,
    "mean": 0.95,
    "questions": 40,
    "over_k": 40,
    "precision_mean": 0.08,
    "precision_questions": 40,
    "share_mean": 0.05,
    "share_questions": 40,
    "context_precision_mean": 0.04,
    "context_precision_questions": 40,
    "context_share_mean": 0.02,
    "context_share_questions": 40,
}
OLDER: RecallRecord = {"k": 10, "mean": 0.5, "questions": 4, "over_k": 0}  # a run before precision


def test_the_terminal_says_how_little_of_what_came_back_is_evidence() -> None:
    assert precision_text(GREEDY) == (
        "precision@10: 0.08 of the memories retrieved hold evidence, evidence 5% of their tokens;"
        " 0.04 of the memories in the answering prompt, 2% of its memory tokens"
        " (over 40 questions that got memories back)"
    )
    assert len(retrieval_lines(GREEDY)) == 2 and retrieval_lines(GREEDY)[0].startswith(
        "evidence recall@10: 0.95"
    )


def test_a_run_written_before_precision_shows_its_recall_alone() -> None:
    assert precision_text(OLDER) is None and len(retrieval_lines(OLDER)) == 1


def test_compare_reads_high_recall_low_precision_low_share() -> None:
    def spent(recall: RecallRecord | None) -> Spending:
        return Spending(0, 0, 0, None, None, 0.0, 0, recall=recall)

    assert spent(GREEDY).retrieval_text == "0.95 / 0.08 / 5%"
    assert spent(OLDER).retrieval_text == "0.50 / - / -"
    assert spent(None).retrieval_text == "-"
    assert _retrieval_json(GREEDY) == {"evidence_recall": 0.95, "precision": 0.08, "evidence_share": 0.05}
    assert _retrieval_json(None) == {}


def test_compare_reads_the_stale_fact_rates() -> None:
    stale: StaleRecord = {
        "questions": 4,
        "asserted": 1,
        "asserted_rate": 0.25,
        "reached_questions": 2,
        "reached": 1,
        "reached_rate": 0.5,
    }
    assert Spending(0, 0, 0, None, None, 0.0, 0, stale=stale).stale_text == "25% / 50%"
    assert (
        Spending(0, 0, 0, None, None, 0.0, 0, stale={**stale, "reached_rate": None}).stale_text == "25% / -"
    )
    assert Spending(0, 0, 0, None, None, 0.0, 0).stale_text == "-"


def test_each_scenario_gets_a_line_when_several_measured() -> None:
    results: Any = {
        "scenarios": {
            "ltm.colours": {"evidence_recall": GREEDY, "stale_facts": {"asserted_rate": 0.5}},
            "ltm.jokes": {"evidence_recall": OLDER},
            "ltm.restaurant": {},
        }
    }
    assert scenario_retrieval_lines(results) == [
        "  · ltm.colours: recall 0.95, precision 0.08, share 5%; stale asserted 50%",
        "  · ltm.jokes: recall 0.50",
    ]
    assert scenario_retrieval_lines({"scenarios": {"ltm.jokes": {"evidence_recall": OLDER}}}) == []  # type: ignore[typeddict-item]
