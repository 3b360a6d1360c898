"""BEAM scoring: nugget averaging under both profiles, event ordering by tau-b, and the summary table."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from pytest_memorybench.contract.probes import probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score
from pytest_memorybench.judges.base import JudgeStats, JudgeTask, JudgeVerdict
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.beam.scenario import SCENARIO
from pytest_memorybench.scenarios.beam.scoring import (
    UNFILLED_QUESTION,
    event_label,
    reply_items,
    score_ordering,
)
from pytest_memorybench.scenarios.beam.summary import size_of, summarize


class ScriptedJudge:
    """Gives each nugget the verdict scripted for it; says two texts are equivalent when their
    first words match; remembers every task."""

    name = "scripted"

    def __init__(self, verdicts: dict[str, float] | None = None) -> None:
        self.verdicts = verdicts or {}
        self.tasks: list[JudgeTask] = []
        self.stats = JudgeStats()

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        self.tasks.append(task)
        if task.kind == "nugget":
            return JudgeVerdict("nugget", {"score": self.verdicts[task.payload["nugget"]]})
        first, second = (str(task.payload[key]).split()[0].lower() for key in ("first", "second"))
        return JudgeVerdict("equivalence", {"equivalent": first == second})


def _definition(ability: str, rubric: list[str], question: str = "How is it going?") -> Any:
    return probe_definition(
        suite="beam",
        scenario=SCENARIO.name,
        seed=0,
        context="c",
        probe_id=f"100K-1::{ability}[1]",
        question=question,
        ideal_answer="-",
        expected={"ability": ability, "rubric": rubric},
        category=ability,
    )


def _score(ability: str, rubric: list[str], reply: str, judge: Any, profile: str = "paper") -> Score:
    definition = _definition(ability, rubric)
    return asyncio.run(SCENARIO.score(definition, [reply], ScoringContext(profile=profile, judge=judge)))  # type: ignore[arg-type]


# -- nuggets ----------------------------------------------------------------------------------------


def test_nuggets_average_with_half_credit_on_paper_and_truncated_on_official() -> None:
    rubric = [
        "LLM response should state: 250ms",
        "LLM response should mention: caching",
        "LLM response should mention: March",
    ]
    judge = ScriptedJudge(dict(zip(rubric, [1, 0.5, 0], strict=True)))
    paper = _score("knowledge_update", rubric, "about 250ms", judge)
    official = _score("knowledge_update", rubric, "about 250ms", judge, profile="official")
    assert paper.value == pytest.approx(0.5)  # (1 + 0.5 + 0) / 3
    assert official.value == pytest.approx(1 / 3)  # int(0.5) = 0
    assert any("truncation dropped 1 half credit" in reason for reason in official.reasons)
    assert (
        paper.details
        == official.details
        == {"verdicts": [1.0, 0.5, 0.0], "paper": 0.5, "official": pytest.approx(1 / 3)}
    )


def test_official_judging_does_not_show_the_question() -> None:
    rubric = ["LLM response should state: 8 weeks"]
    judge = ScriptedJudge({rubric[0]: 1})
    _score("temporal_reasoning", rubric, "8 weeks", judge, profile="official")
    _score("temporal_reasoning", rubric, "8 weeks", judge, profile="paper")
    assert [task.payload["question"] for task in judge.tasks] == [UNFILLED_QUESTION, "How is it going?"]


def test_the_local_judge_reads_beam_s_contain_stem() -> None:
    """Instruction, preference and summarization rubrics say "should contain: X"; X is the criterion."""
    rubric = [
        "LLM response should contain: suggests lightweight libraries",
        "LLM response should contain: avoids recommending heavy frameworks",
    ]
    good = _score(
        "preference_following",
        rubric,
        "I suggest lightweight libraries: Flask-Login and sqlite3.",
        LocalJudge(),
    )
    heavy = _score(
        "preference_following", rubric, "Use Django with heavy frameworks for everything.", LocalJudge()
    )
    assert good.value == 1.0 and heavy.value == 0.0


def test_a_bare_value_criterion_needs_the_value() -> None:
    rubric = ["LLM response should state: 30"]
    assert _score("multi_session_reasoning", rubric, "I don't know.", LocalJudge()).value == 0.0
    assert _score("multi_session_reasoning", rubric, "30 in total.", LocalJudge()).value == 1.0


# -- event ordering -----------------------------------------------------------------------------------

EVENTS = ["Alpha setup", "Bravo tests", "Charlie deploy", "Delta launch"]


def _ordering(reply: str, profile: str = "paper", events: list[str] | None = None) -> Score:
    return asyncio.run(score_ordering(ScriptedJudge(), events or EVENTS, reply, profile))  # type: ignore[arg-type]


def test_a_perfect_order_scores_one() -> None:
    score = _ordering("1. Alpha setup\n2. Bravo tests\n3. Charlie deploy\n4. Delta launch")
    assert score.value == 1.0 and score.details["f1"] == 1.0 and score.details["final_score"] == 1.0


def test_a_missing_event_and_a_swap() -> None:
    # Aligned [A, C, B]: ranks reference [1, 2, 3, 4], reply [1, 3, 2, 5] (D missing: tie rank 5).
    # Pairs: AB, AC, AD, BD, CD concordant, BC discordant, no ties: tau_b = 4/6.
    score = _ordering("alpha\ncharlie\nbravo")
    assert score.details["tau_b"] == pytest.approx(2 / 3)
    assert score.value == pytest.approx(5 / 6)
    assert score.details["f1"] == pytest.approx(6 / 7)  # P = 1, R = 3/4
    assert score.details["final_score"] == pytest.approx(5 / 6 * 6 / 7)


def test_an_extra_item_costs_precision_not_order() -> None:
    score = _ordering("Alpha\nBravo\nCharlie\nDelta\nEcho party")
    assert score.value == pytest.approx(
        1.0
    )  # the extra item is last in the reply and tied last in the reference
    assert score.details["precision"] == pytest.approx(4 / 5) and score.details["fp"] == 1


def test_a_missing_an_extra_and_a_swapped_event_together() -> None:
    """Reply [Charlie, Echo, Alpha]: union [A, B, C, D, E], tie rank 6; ranks reference [1, 2, 3, 4, 6],
    reply [3, 6, 1, 6, 2].  Of the 10 pairs 4 are concordant (AB, AD, CD, CE), 5 discordant (AC, AE,
    BC, BE, DE), and BD is tied in the reply only: tau_b = (4 - 5) / sqrt(10 * 9)."""
    score = _ordering("Charlie\nEcho party\nAlpha")
    assert score.details["tau_b"] == pytest.approx(-1 / math.sqrt(90))
    assert score.value == pytest.approx((1 - 1 / math.sqrt(90)) / 2)  # tau_norm 0.447
    assert (score.details["tp"], score.details["fp"], score.details["fn"]) == (2, 1, 2)
    assert score.details["f1"] == pytest.approx(4 / 7)  # P = 2/3, R = 1/2
    assert score.details["final_score"] == pytest.approx((1 - 1 / math.sqrt(90)) / 2 * 4 / 7)


def test_a_reversed_order_scores_zero() -> None:
    score = _ordering("Delta\nCharlie\nBravo\nAlpha")
    assert score.value == 0.0 and score.details["tau_b"] == pytest.approx(-1.0)


def test_an_abstaining_reply_gets_beam_s_floor_not_zero() -> None:
    """One unmatched item against n = 4 events: tau_b = -4 / sqrt(10 * 4), tau_norm 0.184, F1 0."""
    score = _ordering("I don't know.")
    assert score.details["tau_b"] == pytest.approx(-4 / math.sqrt(40))
    assert score.value == pytest.approx((1 - 4 / math.sqrt(40)) / 2)
    assert score.details["f1"] == 0.0 and score.details["final_score"] == 0.0


def test_official_items_are_raw_lines_blank_ones_included() -> None:
    reply = "Alpha\n\nCharlie"
    assert reply_items(reply, "official") == ["Alpha", "", "Charlie"]
    assert reply_items(reply, "paper") == ["Alpha", "Charlie"]
    official, paper = _ordering(reply, "official"), _ordering(reply, "paper")
    assert official.details["fp"] == 1 and paper.details["fp"] == 0  # the blank line is an extra item
    assert official.value < paper.value


def test_paper_items_split_an_inline_enumeration_and_drop_the_stem() -> None:
    reply = "In this order: 1) Alpha setup, 2) Bravo tests, 3) Charlie deploy."
    assert reply_items(reply, "paper") == ["Alpha setup", "Bravo tests", "Charlie deploy"]
    assert reply_items(reply, "official") == [reply]
    assert event_label("LLM response should mention: Alpha setup") == "Alpha setup"
    stemmed = [f"LLM response should mention: {event}" for event in EVENTS]
    assert _ordering("Alpha\nBravo\nCharlie\nDelta", "paper", stemmed).value == 1.0
    # Official compares the rubric strings as written: the scripted judge sees "LLM" first.
    assert _ordering("Alpha\nBravo\nCharlie\nDelta", "official", stemmed).details["tp"] == 0


def test_event_ordering_through_the_scenario_uses_the_ordering_path() -> None:
    score = _score("event_ordering", EVENTS, "Alpha\nBravo\nCharlie\nDelta", ScriptedJudge())
    assert score.value == 1.0 and "tau_norm" in score.details


# -- the summary -------------------------------------------------------------------------------------


def _record(
    test_id: str, category: str, score: float, details: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "test_id": test_id,
        "category": category,
        "score": score,
        "details": {"scoring": details or {}},
        "error": None,
    }


def test_summary_averages_questions_then_conversations_then_abilities_per_size() -> None:
    records = [
        _record("100K-1::knowledge_update[1]", "knowledge_update", 1.0, {"paper": 1.0, "official": 1.0}),
        _record("100K-1::knowledge_update[2]", "knowledge_update", 0.5, {"paper": 0.5, "official": 0.0}),
        _record("100K-2::knowledge_update[1]", "knowledge_update", 0.0, {"paper": 0.0, "official": 0.0}),
        _record(
            "100K-1::event_ordering[1]",
            "event_ordering",
            0.8,
            {"tau_norm": 0.8, "final_score": 0.4, "f1": 0.5},
        ),
        _record("gen-1M-1::abstention[1]", "abstention", 1.0, {"paper": 1.0, "official": 1.0}),
        {
            "test_id": "100K-3::abstention[1]",
            "category": "abstention",
            "score": 0.0,
            "error": "agent error: timeout",
        },
    ]
    metrics = summarize(records)
    # knowledge_update at 100K: conversation means 0.75 and 0.0, then their mean.
    assert metrics["table"]["100K"] == {"event_ordering": 0.8, "knowledge_update": 0.375, "average": 0.5875}
    assert metrics["table"]["1M"] == {"abstention": 1.0, "average": 1.0}
    assert metrics["100K average"] == 0.5875 and metrics["1M average"] == 1.0
    # Two sizes: every cell of the table is also a scalar for the terminal, sizes shortest first.
    assert list(metrics)[:5] == [
        "100K average",
        "100K event_ordering",
        "100K knowledge_update",
        "1M average",
        "1M abstention",
    ]
    assert metrics["100K knowledge_update"] == 0.375 and list(metrics["table"]) == ["100K", "1M"]
    assert metrics["event_ordering tau_norm"] == 0.8 and metrics["event_ordering tau_norm×F1"] == 0.4
    assert metrics["nuggets paper"] == pytest.approx(0.625) and metrics["nuggets official"] == pytest.approx(
        0.5
    )
    assert summarize([]) == {"table": {}}


def test_sizes_come_from_the_conversation_id() -> None:
    assert size_of("100K-5") == "100K" and size_of("gen-1M-2") == "1M" and size_of("10M-conv-3") == "10M"
