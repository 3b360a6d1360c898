"""MemBench scoring and metrics: the answer letter, both profiles, recall@k, capacity, efficiency."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_memorybench.contract.probes import probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.timings import pooled_percentile, timing_summary
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.scenarios.membench.benchmark import (
    capacity_asks,
    render_question,
)
from pytest_memorybench.scenarios.membench.case import Case, distinctive_texts
from pytest_memorybench.scenarios.membench.metrics import (
    NO_RETRIEVE,
    capacity_curve,
    capacity_points,
    collapse_tokens,
    item_recall,
    retained_points,
    retrieved_steps,
    summarize,
)
from pytest_memorybench.scoring.membench import CapacityPoint

SCENARIO = get_scenario("membench.observation")
OPTIONS = ("Denver, CO", "Austin, TX", "Boston, MA", "Reno, NV")


def case(**changes: Any) -> Case:
    values: dict[str, Any] = dict(
        id="observation-single_hop-1",
        type="single_hop",
        level="factual",
        question="Where did my aunt grow up?",
        options=OPTIONS,
        answer="C",
        evidence=(3,),
        evidence_texts=(("My aunt grew up in Boston, MA.",),),
        steps=10,
        messages_per_step=1,
        turns=lambda: iter(()),
    )
    values.update(changes)
    return Case(**values)


def definition(**params: Any):  # type: ignore[no-untyped-def]
    c = case()
    return probe_definition(
        suite="membench", scenario=SCENARIO.name, seed=0, context=c.id, probe_id="observation::single_hop-1",
        question=render_question(c), ideal_answer="C",
        expected={"answer": "C", "options": dict(zip("ABCD", OPTIONS, strict=False)), "evidence": [3],
                  "evidence_texts": [["My aunt grew up in Boston, MA."]], "level": "factual"},
        params=params,
    )  # fmt: skip


# -- the answer letter ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "paper"),
    [
        ("C", 1.0), ("c", 1.0), ("(C)", 1.0), ("**C**.", 1.0), ("Answer: C", 1.0), ("The answer is c.", 1.0),
        ('{"answer": "C"}', 1.0), ("C. Boston, MA", 1.0), ("She grew up in Boston, MA.", 1.0),
        ("I'd go with C", 1.0),
        ("B", 0.0), ("A or C", 0.0), ("Boston, MA or Reno, NV", 0.0), ("I don't know.", 0.0), ("", 0.0),
        ("The answer is a bit unclear", 0.0),
    ],
)  # fmt: skip
def test_the_letter_is_read_leniently_under_the_paper_profile(reply: str, paper: float) -> None:
    assert SCENARIO.score(definition(), [reply], ScoringContext()).value == paper


@pytest.mark.parametrize(
    ("reply", "official"), [("C", 1.0), (" C\n", 1.0), ("(C)", 0.0), ("Answer: C", 0.0), ("c", 0.0)]
)
def test_the_official_profile_wants_exactly_the_letter(reply: str, official: float) -> None:
    assert SCENARIO.score(definition(), [reply], ScoringContext(profile="official")).value == official


def test_the_item_scores_the_answer_after_everything_and_keeps_a_verdict_per_ask() -> None:
    score = SCENARIO.score(definition(retrieve_k=10), ["C", "B", "C", "I don't know."], ScoringContext())
    assert score.value == 1.0
    assert score.details["correct"] == [True, False, True, False]
    assert score.details["evidence"] == [3] and score.details["retrieve_k"] == 10
    assert "C = Boston, MA" in score.reasons and "capacity asks: 1 of 3 correct" in score.reasons


def test_the_question_lists_its_options_and_the_data_time() -> None:
    assert render_question(case()) == (
        "Where did my aunt grow up?\nA. Denver, CO\nB. Austin, TX\nC. Boston, MA\nD. Reno, NV\n"
        "Answer with the letter of one option (A, B, C or D)."
    )
    assert render_question(case(time="2024-10-01 08:00")).startswith("(Current time: 2024-10-01 08:00) Where")


# -- capacity asks ----------------------------------------------------------------------------------


def test_capacity_asks_spread_from_the_last_evidence_to_before_the_end() -> None:
    # Steps 0..9, evidence at 3: asks after steps 3..8 (after 9 is the item's own ask).
    assert capacity_asks(case(), 100) == [4, 5, 6, 7, 8, 9]
    assert capacity_asks(case(), 3) == [4, 6, 9]
    assert capacity_asks(case(), 1) == [4]
    assert capacity_asks(case(), 0) == []
    assert capacity_asks(case(messages_per_step=2), 2) == [8, 18], "after whole exchanges"
    assert capacity_asks(case(evidence=(9,)), 5) == [] and capacity_asks(case(evidence=()), 5) == []
    assert capacity_asks(case(evidence=(2, 5)), 100) == [6, 7, 8, 9], "from the last evidence, not the first"


# -- recall@k ---------------------------------------------------------------------------------------


EVIDENCE = [4, 9]
TEXTS = [
    ["My niece runs TechInnovate Systems LLC."],
    ["Update: my niece now works in Reno, NV.", "Noted, thanks."],
]


def record(
    retrieved: list[list[str]] | None, *, k: int = 10, evidence: list[int] = EVIDENCE, **details: Any
) -> dict[str, Any]:
    base: dict[str, Any] = {
        "scoring": {
            "evidence": evidence,
            "evidence_texts": TEXTS[: len(evidence)],
            "retrieve_k": k,
            "level": "factual",
            "correct": [True],
        }
    }
    if retrieved is not None:
        base["retrieved"] = retrieved
    base.update(details)
    return {"score": 1.0, "category": "single_hop", "details": base}


def test_retrieved_texts_map_to_the_evidence_steps_they_hold() -> None:
    retrieved = [
        "the weather is nice",
        "[2024-03-01 09:00] user: My niece runs TechInnovate   Systems LLC.",  # a dated record, other spacing
        "my niece runs techinnovate systems llc. (place: the gym)",
        "Noted, thanks.",
    ]
    assert retrieved_steps(retrieved, EVIDENCE, TEXTS) == [[], [4], [4], [9]]


@pytest.mark.parametrize(
    ("retrieved", "k", "expected"),
    [
        ([["My niece runs TechInnovate Systems LLC.", "Update: my niece now works in Reno, NV."]], 10, 1.0),
        ([["My niece runs TechInnovate Systems LLC.", "noise"]], 10, 0.5),
        ([["noise", "noise again", "My niece runs TechInnovate Systems LLC."]], 2, 0.0),
        ([["noise", "noise again", "My niece runs TechInnovate Systems LLC."]], 3, 0.5),
        ([["My niece runs TechInnovate Systems LLC."] * 3], 10, 0.5),  # duplicates count once
        ([[]], 10, 0.0),
    ],
)
def test_recall_at_k_is_the_share_of_evidence_steps_in_the_first_k(
    retrieved: list[list[str]], k: int, expected: float
) -> None:
    assert item_recall(record(retrieved), k) == expected


def test_recall_uses_the_answer_after_everything_and_needs_evidence() -> None:
    both = ["My niece runs TechInnovate Systems LLC.", "Update: my niece now works in Reno, NV."]
    assert item_recall(record([both, []]), 10) == 1.0, "the first ask is the final one"
    assert item_recall(record([both], evidence=[]), 10) is None
    assert item_recall(record(None), 10) is None


def test_stock_replies_name_no_step() -> None:
    every = [("A told.", "Got it."), ("B told.", "Got it."), ("C told.", "Unique reply.")]
    assert distinctive_texts(every, [every[0], every[2]]) == (("A told.",), ("C told.", "Unique reply."))


# -- capacity curve ---------------------------------------------------------------------------------


def points(pairs: list[tuple[int, bool]]) -> list[CapacityPoint]:
    return [CapacityPoint(tokens, correct) for tokens, correct in pairs]


def test_the_capacity_curve_averages_equal_numbers_of_asks_in_token_order() -> None:
    pairs = [(100, True), (200, True), (300, True), (400, False), (500, False), (600, False)]
    assert capacity_curve(points(pairs), bins=3) == [(150, 1.0, 2), (350, 0.5, 2), (550, 0.0, 2)]
    assert capacity_curve(points(pairs[:2]), bins=10) == [(100, 1.0, 1), (200, 1.0, 1)]
    assert capacity_curve([], bins=3) == []


def test_collapse_is_a_lasting_drop_below_half_the_best_so_far() -> None:
    assert collapse_tokens([(1, 0.9, 30), (2, 0.8, 30), (3, 0.3, 30), (4, 0.2, 30)]) == 3
    assert collapse_tokens([(1, 0.9, 30), (2, 0.3, 30), (3, 0.8, 30)]) is None, (
        "one bad bin is not a collapse"
    )
    assert collapse_tokens([(1, 0.8, 30), (2, 0.6, 30), (3, 0.2, 30), (4, 0.45, 30), (5, 0.1, 30)]) == 3, (
        "a bounce does not hide it"
    )
    assert collapse_tokens([(1, 0.8, 30), (2, 0.2, 30), (3, 0.9, 30), (4, 0.1, 30)]) is None, (
        "it must last on average"
    )
    assert collapse_tokens([(1, 0.9, 30), (2, 0.88, 30)]) is None
    assert collapse_tokens([(1, 0.0, 30), (2, 0.0, 30)]) is None
    assert collapse_tokens([(1, 0.9, 30), (2, 0.8, 30), (3, 0.3, 30)]) is None, (
        "the last bin alone is no collapse"
    )
    assert collapse_tokens([(1, 0.9, 5), (2, 0.1, 5), (3, 0.1, 5)]) is None, "too few asks a bin to tell"
    assert collapse_tokens([(1, 0.9, 5), (2, 0.1, 5), (3, 0.1, 5)], min_asks=5) == 2


def test_the_after_evidence_curve_counts_from_the_first_ask_after_the_evidence() -> None:
    one = item(1.0, "factual", [(1000, False), (400, True), (700, True)], None, [0.1] * 3, None)
    two = item(1.0, "factual", [(900, True)], None, [0.1], None)
    assert [(p.tokens, p.correct) for p in capacity_points([one, two], since_evidence=True)] == [
        (0, True),
        (0, True),
        (300, True),
        (600, False),
    ]
    assert [p.tokens for p in capacity_points([one, two])] == [400, 700, 900, 1000]


def test_the_retained_curve_follows_only_what_was_answered_right_after_the_evidence() -> None:
    kept = item(
        1.0, "factual", [(5000, True), (1000, True), (2000, True), (3000, False)], None, [0.1] * 4, None
    )
    lost = item(
        0.0, "factual", [(9000, False), (4000, True), (6000, False), (7000, False)], None, [0.1] * 4, None
    )
    never = item(
        0.0, "factual", [(9000, True), (500, False), (800, True)], None, [0.1] * 3, None
    )  # wrong at first: out
    alone = item(1.0, "factual", [(900, True)], None, [0.1], None)  # no ask after the evidence: out
    points, questions = retained_points([kept, lost, never, alone])
    assert questions == 2
    assert [(p.tokens, p.correct) for p in points] == [  # kept from 1000 tokens on, lost from 4000
        (1000, True),
        (2000, False),
        (2000, False),
        (3000, False),
        (4000, True),
        (5000, False),
    ]


def test_a_memory_window_shows_as_a_retained_collapse() -> None:
    """Forty questions, each right just after its evidence and asked again every 1,000 tokens: a memory
    that forgets after 3,000 tokens collapses on the retained curve; one that keeps everything does not."""

    def records(window: int | None) -> list[dict[str, Any]]:
        asks = [(1000 * step, window is None or 1000 * step <= window) for step in range(10)]
        return [item(1.0, "factual", asks[-1:] + asks[:-1], None, [0.1] * 10, None) for _ in range(40)]

    forgetful = summarize(records(3000))
    curve = forgetful["capacity retained"]["curve"]
    assert forgetful["capacity retained"]["questions"] == 40 and forgetful["capacity retained"]["asks"] == 360
    assert len(curve) == 10 and curve[0][1] == 1.0 and curve[-1][1] == 0.0
    assert 3000 <= forgetful["capacity retained collapse tokens"] <= 5000
    keeper = summarize(records(None))
    assert keeper["capacity retained collapse tokens"] == "none"
    assert {accuracy for _, accuracy in keeper["capacity retained"]["curve"]} == {1.0}


# -- the summary ------------------------------------------------------------------------------------


def item(score: float, level: str, asks: list[tuple[int, bool]], retrieved: list[list[str]] | None,
         reads: list[float], writes: dict[str, float] | None) -> dict[str, Any]:  # fmt: skip
    details: dict[str, Any] = {
        "asks": [{"turns": i, "tokens": tokens} for i, (tokens, _) in enumerate(asks)],
        "read_seconds": reads,
        "scoring": {
            "correct": [c for _, c in asks],
            "level": level,
            "evidence": EVIDENCE,
            "evidence_texts": TEXTS,
            "retrieve_k": 10,
        },
    }
    if retrieved is not None:
        details["retrieved"] = retrieved
    if writes:
        details["write_seconds"] = writes
    return {"score": score, "category": "single_hop", "details": details}


def test_times_count_each_delivery_once_and_retrieval_on_its_own() -> None:
    asked = [(100, True)]
    first = item(1.0, "factual", asked, [["a"]], [0.050], timing_summary([0.001] * 10))
    first["details"]["retrieve_seconds"] = [0.004]
    second = item(1.0, "factual", asked, [["a"]], [0.070], timing_summary([0.001] * 10))
    second["details"]["retrieve_seconds"] = [0.006]
    first["conversation"] = second["conversation"] = "membench::t1"  # two questions about one trajectory
    metrics = summarize([first, second])
    assert (
        metrics["read ms mean"] == 60.0
        and metrics["retrieve ms mean"] == 5.0
        and metrics["retrieve ms p95"] == 6.0
    )
    assert metrics["write ms mean"] == 1.0 and metrics["write ms p95"] == 1.0


def test_pooled_percentiles_match_the_percentile_of_all_calls() -> None:
    import random

    rng = random.Random(7)
    contexts = [[rng.expovariate(1 / (k + 1)) for _ in range(rng.randint(50, 400))] for k in range(6)]
    pooled = pooled_percentile([timing_summary(times) for times in contexts], 0.95)
    every = sorted(t for times in contexts for t in times)
    rank = every.index(min(every, key=lambda t: abs(t - pooled)))
    assert abs(rank / len(every) - 0.95) < 0.015, "within about one percentile of the true p95"


def test_summarize_gives_accuracy_by_level_recall_capacity_and_times() -> None:
    hit = ["My niece runs TechInnovate Systems LLC."]
    records = [
        item(
            1.0,
            "factual",
            [(1000, True), (400, True), (700, True)],
            [hit, [], []],
            [0.010, 0.020, 0.030],
            timing_summary([0.001] * 9 + [0.002]),
        ),
        item(
            0.0,
            "factual",
            [(1000, False), (500, True), (800, False)],
            [["x"], [], []],
            [0.040, 0.050, 0.060],
            timing_summary([0.003] * 20 + [0.002] * 5 + [0.008] * 5),
        ),
        item(1.0, "reflective", [(900, True)], [hit], [0.100], None),
        {"score": 0.0, "category": "x", "details": {}},  # an item that never ran: left out
    ]
    metrics = summarize(records)
    assert metrics["factual accuracy"] == 0.5 and metrics["reflective accuracy"] == 1.0
    assert metrics["recall@10"] == round((0.5 + 0 + 0.5) / 3, 6) and metrics["recall questions"] == 3
    assert metrics["capacity"]["curve"][0] == [400, 1.0] and metrics["capacity"]["asks"] == 7
    assert metrics["capacity"]["x_label"] == "tokens delivered so far"
    after = metrics["capacity after evidence"]
    assert after["curve"][:3] == [[0, 1.0]] * 3 and after["curve"][-1] == [600, 1.0] and after["asks"] == 7
    retained = metrics[
        "capacity retained"
    ]  # both factual items were right at their first ask after the evidence
    assert (
        retained["questions"] == 2
        and retained["curve"] == [[300, 0.5], [550, 0.5]]
        and retained["counts"] == [2, 2]
    )
    assert metrics["capacity retained collapse tokens"] == "none"
    assert metrics["read ms mean"] == 44.286 and metrics["read ms p95"] == 100.0
    # 40 writes: 9 of 1 ms, 6 of 2 ms, 20 of 3 ms, 5 of 8 ms; the 95th percentile of the pool is 8 ms
    # (a calls-weighted mean of the two p95s would say 6.5, below what 5 calls took)
    assert metrics["write ms mean"] == 3.025 and metrics["write ms p95"] == 8.0
    assert "retrieve ms mean" not in metrics, "no agent here retrieved"
    assert summarize([]) == {}


def test_an_agent_without_retrieve_gets_the_reason_not_a_number() -> None:
    metrics = summarize([item(1.0, "factual", [(10, True)], None, [0.1], None)])
    assert metrics["recall@10"] == NO_RETRIEVE
    assert "capacity" not in metrics, "one ask per question draws no curve"
