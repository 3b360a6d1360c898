"""The deterministic scorers on concrete replies, including the edge cases the papers define."""

from __future__ import annotations

import re

import pytest

from pytest_memorybench.core.records import Score
from pytest_memorybench.scoring.choice import extract_choice, score_choice
from pytest_memorybench.scoring.exact import score_contains, score_exact, score_regex
from pytest_memorybench.scoring.items_f1 import items_f1
from pytest_memorybench.scoring.jsonlist import parse_lenient_json, score_json_list
from pytest_memorybench.scoring.kendall import (
    beam_ordering,
    episodic_common_indexes,
    episodic_tau,
    score_beam_ordering,
)
from pytest_memorybench.scoring.keywords import score_keywords
from pytest_memorybench.scoring.membench import CapacityPoint, capacity_point, recall_at_k
from pytest_memorybench.scoring.nuggets import score_nuggets
from pytest_memorybench.scoring.rouge import rouge_l_f, score_rouge_l
from pytest_memorybench.scoring.text import (
    matches_at_word_boundaries,
    normalise_space,
    standardise,
    unique_in_order,
)


def reasons(score: Score) -> str:
    return " | ".join(score.reasons)


# --- text helpers -----------------------------------------------------------------------------


def test_text_helpers() -> None:
    assert normalise_space("  New\n  York \t") == "New York"
    assert standardise("It's Party time!") == "its party time"
    assert unique_in_order([3, 1, 3, 2, 1]) == [3, 1, 2]
    assert matches_at_word_boundaries("pick", "a lock-pick set")  # \b treats a hyphen as a boundary
    assert not matches_at_word_boundaries("pick", "lockpicking")
    assert not matches_at_word_boundaries("noon", "Noon", case_sensitive=True)
    assert matches_at_word_boundaries("noon", "Noon")


# --- exact, regex, contains -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "reply", "case_sensitive", "value"),
    [
        ("Paris", "Paris", False, 1.0),
        ("Paris", "  paris\n", False, 1.0),
        ("New York", "New\n  York", False, 1.0),
        ("Paris", "paris", True, 0.0),
        ("Paris", "Paris.", False, 0.0),
        ("Paris", "It is Paris", False, 0.0),
    ],
)
def test_score_exact(expected: str, reply: str, case_sensitive: bool, value: float) -> None:
    score = score_exact(expected, reply, case_sensitive=case_sensitive)
    assert score.value == value
    assert repr(expected) in reasons(score)


def test_score_regex() -> None:
    hit = score_regex(r"\b4[0-9]\b", "I am 42 years old")
    assert hit.value == 1.0 and "'42' at position 5" in reasons(hit)
    assert score_regex(r"^\d+$", "42 years").value == 0.0
    assert score_regex("PARIS", "paris", flags=re.IGNORECASE).value == 1.0
    assert score_regex("PARIS", "paris").value == 0.0
    assert score_regex(re.compile("par", re.I), "Paris").value == 1.0
    assert "no match for /x+/" in reasons(score_regex("x+", "abc"))


def test_score_contains_whole_word_and_substring() -> None:
    assert score_contains("red", "My favourite is Red!").value == 1.0
    assert score_contains("red", "I am bored").value == 0.0
    assert score_contains("red", "I am bored", whole_word=False).value == 1.0
    assert score_contains("blue", "blue-green").value == 0.0
    assert "whole-word" in reasons(score_contains("red", "red"))


# --- lenient JSON and NameList ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ('["Anna", "Ben"]', ["Anna", "Ben"]),
        ('```json\n["Anna", "Ben"]\n```', ["Anna", "Ben"]),
        ('Here you go:\n```\n["Anna"]\n```\nAnything else?', ["Anna"]),
        ('```javascript\n{"a": 1}\n```', {"a": 1}),
        ('["Anna", "Ben",]', ["Anna", "Ben"]),
        ('{"names": ["Anna"],}', {"names": ["Anna"]}),
        ('["Anna", "Ben"] are the names you gave me.', ["Anna", "Ben"]),
        ('The names are: ["Anna", "Ben"]', ["Anna", "Ben"]),
        ('["Anna", // the first\n "Ben"]', ["Anna", "Ben"]),
        ('["Anna", "Ben", ...]', ["Anna", "Ben"]),
        ('["Anna" "Ben"]', ["Anna", "Ben"]),
        ('{"a" }', {"a": None}),
        ('["Anna\nBen"]', ["AnnaBen"]),
    ],
)
def test_parse_lenient_json(text: str, parsed: object) -> None:
    assert parse_lenient_json(text) == parsed


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("I don't remember any names.", "no opening bracket or brace"),
        ("[Anna, Ben]", "Unterminated string"),
        # Five repairs are needed (prose, comment, ellipsis, trailing comma, trailing data) and
        # a short text gets five steps, so this one is given up, as goodai-ltm gives it up.
        ('Sure: ["a", // x\n "b", ...]\nok', "after 5 repair steps"),
    ],
)
def test_parse_lenient_json_gives_reasons(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_lenient_json(text)


def test_namelist_all_names() -> None:
    score = score_json_list(["Anna", "Ben", "Cara"], '["anna", "BEN", "Cara"]')
    assert score.value == 1.0
    assert "3 correct / max(3 expected, 3 answered)" in reasons(score)


def test_namelist_repeated_old_name_counts_once() -> None:
    score = score_json_list(["Anna", "Ben", "Cara"], '["Anna", "Ben", "Anna", "Cara"]')
    assert score.value == pytest.approx(3 / 4)
    assert "'anna' given more often than expected" in reasons(score)


def test_namelist_name_given_twice_is_expected_twice() -> None:
    assert score_json_list(["Anna", "Ben", "Anna"], '["Anna", "Anna", "Ben"]').value == 1.0


def test_namelist_missing_and_extra() -> None:
    score = score_json_list(["Anna", "Ben", "Cara", "Dan"], '["Anna", "Zed"]')
    assert score.value == pytest.approx(1 / 4)
    assert "'zed' was not expected" in reasons(score)
    assert "missing from the reply: 'ben', 'cara', 'dan'" in reasons(score)


def test_namelist_code_fence_and_trailing_comma() -> None:
    reply = 'Sure! Here are all of them:\n```json\n[\n  "Anna",\n  "Ben",\n]\n```'
    assert score_json_list(["Anna", "Ben"], reply).value == 1.0


def test_namelist_wrapper_object() -> None:
    score = score_json_list(["Anna", "Ben"], '{"names": ["Anna", "Ben"]}')
    assert score.value == 1.0
    assert "read the list under the single key 'names'" in reasons(score)


@pytest.mark.parametrize(
    "reply",
    ["Your names were Anna and Ben.", '{"first": "Anna", "second": "Ben"}', '"Anna"', '["Anna", 3]'],
)
def test_namelist_not_a_list_scores_zero(reply: str) -> None:
    score = score_json_list(["Anna", "Ben"], reply)
    assert score.value == 0.0
    assert reasons(score).startswith("not a JSON list")


def test_namelist_nothing_expected_nothing_given() -> None:
    assert score_json_list([], "[]").value == 1.0
    assert score_json_list([], '["Anna"]').value == 0.0


# --- ROUGE-L ----------------------------------------------------------------------------------

SENTENCE = "resist temptation and stick to your diet"


def test_rouge_l_values() -> None:
    assert rouge_l_f(SENTENCE, "Resist temptation, and stick to your diet!") == pytest.approx(1.0)
    assert rouge_l_f(SENTENCE, "the weather is nice") == 0.0
    # "sticking" only matches "stick" with the stemmer that GoodAI's own helper turns on.
    plain = rouge_l_f("stick to it", "sticking to it")
    assert plain < rouge_l_f("stick to it", "sticking to it", use_stemmer=True)


def test_rouge_l_threshold_boundary_is_strict() -> None:
    # 3 of 4 words in order each way: P = R = F = 0.75 exactly, and GoodAI requires > 0.75.
    at = score_rouge_l("resist temptation and stick", "resist temptation and run")
    assert rouge_l_f("resist temptation and stick", "resist temptation and run") == 0.75
    assert at.value == 0.0 and "F = 0.7500" in reasons(at) and "not above 0.75" in reasons(at)
    lower = score_rouge_l("resist temptation and stick", "resist temptation and run", threshold=0.74)
    assert lower.value == 1.0
    above = score_rouge_l(SENTENCE, "Okay: resist temptation and stick to your diet.")
    assert above.value == 1.0 and "is above 0.75" in reasons(above)


# --- Spy Meeting keywords ---------------------------------------------------------------------

NOON = ["noon", "midday"]
PORT = ["port", "warehouse", "seaport", "docks"]
PICK = ["pick", "picks", "key", "lockpicks", "lockpicking", "slim jim"]
NIGHT = ["night", "midnight", "nighttime"]
SUNRISE = ["dawn", "sunrise", "morning", "rise"]
BLACKBIRDS = ["dawn", "sunrise", "morning", "rise"]
BOAT = ["boat", "bridge", "raft", "kayak"]
OTHERS = [NIGHT, SUNRISE, BOAT, ["orchard"], ["shore", "beach", "coastline"]]


@pytest.mark.parametrize(
    ("clues", "reply", "value", "said", "unsaid"),
    [
        pytest.param(
            [NOON, PORT, PICK], "Meet at midday in the warehouse by the docks; bring a key.", 1.0,
            ["clue 1: decoded, the reply says 'midday'"], [], id="all decoded",
        ),
        pytest.param(  # right place and thing, but "midnight" is what the moon clue (not given) means
            [NOON, PORT, PICK], "Meet at the port at midnight, and bring a key.", (2 - 1) / 3,
            ["the reply also says 'midnight'", "(2 decoded − 1 confusion) / 3 clues"], [],
            id="a confusing keyword costs one clue",
        ),
        pytest.param(
            [NOON, PORT, PICK], "At night or at dawn, take a boat.", 0.0, ["'boat', 'dawn', 'night'"], [],
            id="confusion charged once, floored at zero",
        ),
        pytest.param(  # "dawn" is the sunrise clue's too, but the blackbirds clue that was given means it
            [BLACKBIRDS, PORT, PICK], "At dawn, at the docks, bring lockpicks.", 1.0, [], ["confused"],
            id="a shared keyword is no confusion",
        ),
    ],
)  # fmt: skip
def test_spy_meeting_keywords(
    clues: list[list[str]], reply: str, value: float, said: list[str], unsaid: list[str]
) -> None:
    score = score_keywords(clues, reply, case_sensitive=True, other_clue_keywords=OTHERS)
    assert score.value == pytest.approx(value)
    assert all(part in reasons(score) for part in said) and not any(part in reasons(score) for part in unsaid)


def test_spy_meeting_case_sensitivity_is_the_callers_choice() -> None:
    reply = "Midday. Warehouse. Key."
    assert score_keywords([NOON, PORT, PICK], reply, case_sensitive=True).value == 0.0
    assert score_keywords([NOON, PORT, PICK], reply, case_sensitive=False).value == 1.0


def test_spy_meeting_repeating_the_code_scores_zero() -> None:
    reply = (
        "We meet when the sun is high, where the sea cargo is stored, with a quiet way to open locked doors."
    )
    score = score_keywords([NOON, PORT, PICK], reply, case_sensitive=True, other_clue_keywords=OTHERS)
    assert score.value == 0.0


def test_spy_meeting_judge_verdicts_fill_missed_clues() -> None:
    reply = "Lunchtime at the harbour storage sheds; bring a set of picks."
    verdicts = [True, False, None]
    score = score_keywords([NOON, PORT, PICK], reply, case_sensitive=True, interpretation_verdicts=verdicts)
    assert score.value == pytest.approx(2 / 3)
    assert "the judge accepts" in reasons(score) and "the judge rejects" in reasons(score)
    with pytest.raises(ValueError, match="2 judge verdicts for 3 clues"):
        score_keywords([NOON, PORT, PICK], reply, case_sensitive=True, interpretation_verdicts=[True, True])


# --- multiple choice --------------------------------------------------------------------------

OPTIONS = {"A": "Paris", "B": "London", "C": "Vitamin C", "D": "Paris, Texas"}


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("B", "B"),
        ("b", "B"),
        ("(B)", "B"),
        ("B.", "B"),
        ("**B**", "B"),
        ("Answer: B", "B"),
        ("the answer is b", "B"),
        ("The answer is (b) because he moved there.", "B"),
        ('{"answer": "B"}', "B"),
        ('```json\n{"Answer": "b"}\n```', "B"),
        ('{"answer": "London"}', "B"),
        ("B) London", "B"),
        ("I'd go with B.", "B"),
        ("B is right", "B"),
        ("A good guess would be B", "B"),
        ("Option D", "D"),
        ("the answer is a.", "A"),
        ("london", "B"),
        ("It was in London, I believe.", "B"),
        ("Vitamin C", "C"),
        ("C. Vitamin C", "C"),
        ("Paris, Texas", "D"),
        ("Paris", "A"),
        # ambiguous or absent: no guess
        ("A or B", None),
        ("Either (A) or (C)", None),
        ("Paris or London", None),
        ("I think it's Paris, Texas, not Paris", None),
        ("the answer is a bit unclear", None),
        ("E", None),
        ("I don't know.", None),
        ("", None),
    ],
)
def test_extract_choice(reply: str, letter: str | None) -> None:
    assert extract_choice(reply, OPTIONS) == letter


def test_extract_choice_keeps_the_options_own_keys() -> None:
    assert extract_choice("B", {"a": "x", "b": "y"}) == "b"
    with pytest.raises(ValueError):
        extract_choice("B", {})


def test_score_choice() -> None:
    right = score_choice("B", "The answer is B.", OPTIONS)
    assert right.value == 1.0 and "correct" in reasons(right)
    wrong = score_choice("A", "London", OPTIONS)
    assert wrong.value == 0.0 and "the correct option is 'A'" in reasons(wrong)
    unclear = score_choice("A", "A or B", OPTIONS)
    assert unclear.value == 0.0 and "ambiguous" in reasons(unclear)


def test_score_choice_strict_is_membench_equality() -> None:
    assert score_choice("B", " B\n", OPTIONS, strict=True).value == 1.0
    assert score_choice("B", "B.", OPTIONS, strict=True).value == 0.0
    assert score_choice("B", "b", OPTIONS, strict=True).value == 0.0


# --- episodic item F1 -------------------------------------------------------------------------


def test_items_f1_empty_ground_truth_and_abstention_is_one() -> None:
    score = items_f1([], [], [])
    assert score.value == 1.0 and "abstention credit" in reasons(score)


def test_items_f1_empty_ground_truth_and_hallucination_is_zero() -> None:
    score = items_f1(["Theater Show"], [], [])
    assert score.value == 0.0 and "ground truth is empty" in reasons(score)


def test_items_f1_ground_truth_present_nothing_identified_is_zero() -> None:
    score = items_f1([], [0.0, 0.0], ["Paris", "Rome"])
    assert score.value == 0.0 and "nothing identified" in reasons(score)


def test_items_f1_all_wrong_is_zero() -> None:
    score = items_f1(["Oslo"], [0.0], ["Paris"])
    assert score.value == 0.0 and "P = R = 0" in reasons(score)


def test_items_f1_lenient_and_harsh_pred_count() -> None:
    # A full-event answer lists 4 details for a 1-item ground truth that it did find.
    identified = ["went to the gym", "met Zoe", "on May 3", "in Paris"]
    lenient = items_f1(identified, [1.0], ["Full chapter 7"])
    harsh = items_f1(identified, [1.0], ["Full chapter 7"], lenient=False)
    assert lenient.value == 1.0
    assert "lenient #pred = min(4, 1) = 1" in reasons(lenient)
    # harsh: P = 1/4, R = 1, F1 = 2 * 0.25 / 1.25 = 0.4
    assert harsh.value == pytest.approx(0.4)
    assert "#pred = #identified = 4" in reasons(harsh)


def test_items_f1_partial_credit() -> None:
    # S = 1 + 0.5 + 0 = 1.5; #pred = min(2, 3) = 2 → P = 0.75; R = 0.5; F1 = 0.6
    score = items_f1(["Paris", "somewhere in Italy"], [1.0, 0.5, 0.0], ["Paris", "Rome", "Oslo"])
    assert score.value == pytest.approx(0.6)
    assert "P = 0.750, R = 0.500" in reasons(score)


def test_items_f1_duplicates() -> None:
    identified = ["Paris", "Paris", "Rome"]
    ground_truth = ["Paris", "Rome", "Paris"]
    matching = [1.0, 1.0, 0.0]
    deduped = items_f1(identified, matching, ground_truth)
    assert deduped.value == 1.0  # 2 identified, 2 ground truth, S = 2
    assert "duplicates removed: 1 identified, 1 ground-truth item(s)" in reasons(deduped)
    kept = items_f1(identified, matching, ground_truth, remove_duplicates=False)
    # S = 2, #gt = 3, #pred = min(3, 3) = 3: P = R = 2/3
    assert kept.value == pytest.approx(2 / 3)


def test_items_f1_caps_an_inconsistent_verdict() -> None:
    score = items_f1(["Paris"], [1.0, 1.0], ["Paris", "Rome"], lenient=False)
    assert score.value == 1.0 and "capped at 1" in reasons(score)


def test_items_f1_rejects_bad_verdicts() -> None:
    with pytest.raises(ValueError, match="2 matching scores for 1"):
        items_f1([], [1.0, 0.0], ["Paris"])
    with pytest.raises(ValueError, match="not a number in"):
        items_f1([], [2.0], ["Paris"])


# --- Kendall tau ------------------------------------------------------------------------------


def test_episodic_tau_drops_minus_ones_and_duplicates() -> None:
    assert episodic_tau([0, 1, 2], 3) == pytest.approx(1.0)
    assert episodic_tau([2, 1, 0], 3) == pytest.approx(-1.0)
    # common items in predicted order: [2, 0, 1]; pairs (2,0) and (2,1) discordant, (0,1)
    # concordant: tau = (1 - 2) / 3
    assert episodic_tau([2, -1, 0, 1, 0], 3) == pytest.approx(-1 / 3)
    assert episodic_common_indexes([2, -1, 0, 1, 0], 3) == [2, 0, 1]


def test_episodic_tau_with_missing_items() -> None:
    # Only gt items 0 and 3 of 4 were found, in the right order: tau over those two is 1,
    # but the benchmark's exact-match condition fails (2 of 4 found).
    assert episodic_tau([-1, 0, -1, 3], 4) == pytest.approx(1.0)
    assert len(episodic_common_indexes([-1, 0, -1, 3], 4)) == 2
    assert episodic_tau([1, -1, -1], 3) is None  # one common item: no order to compare
    assert episodic_tau([-1, -1], 2) is None
    assert episodic_tau([5, 0, 1], 2) == pytest.approx(1.0)  # out-of-range index is not common


def test_beam_ordering_by_hand_with_missing_and_extra_items() -> None:
    # reference A B C D, system B A C E: D is missing, E is extra.
    # union = A B C D E, tie rank |union| + 1 = 6.
    # ranks_ref = A1 B2 C3 D4 E6; ranks_sys = A2 B1 C3 D6 E4.
    # Of the 10 pairs only A-B (1<2 but 2>1) and D-E (4<6 but 6>4) are discordant, no ties:
    # tau_b = (8 - 2) / sqrt(10 * 10) = 0.6, tau_norm = 0.8.
    # tp = 3 (A B C), fp = 1 (E), fn = 1 (D): P = R = F1 = 0.75; final = 0.8 * 0.75 = 0.6.
    stats = beam_ordering(["A", "B", "C", "D"], ["B", "A", "C", "E"])
    assert stats["ranks_reference"] == [1, 2, 3, 4, 6]
    assert stats["ranks_system"] == [2, 1, 3, 6, 4]
    assert stats["tau_b"] == pytest.approx(0.6)
    assert stats["tau_norm"] == pytest.approx(0.8)
    assert (stats["precision"], stats["recall"], stats["f1"]) == (0.75, 0.75, 0.75)
    assert stats["final_score"] == pytest.approx(0.6)


def test_beam_ordering_perfect_reversed_and_ties() -> None:
    assert beam_ordering(["A", "B", "C"], ["A", "B", "C"])["tau_norm"] == pytest.approx(1.0)
    assert beam_ordering(["A", "B", "C"], ["C", "B", "A"])["tau_norm"] == pytest.approx(0.0)
    # Only C found, first; two extra lines.  Both rank lists have ties (A, B tie at 6 in the
    # system ranks; X, Y at 6 in the reference ranks), which tau-b corrects for.
    stats = beam_ordering(["A", "B", "C"], ["C", "X", "Y"])
    assert stats["ranks_reference"] == [1, 2, 3, 6, 6] and stats["ranks_system"] == [6, 6, 1, 2, 3]
    assert stats["tau_b"] == pytest.approx(-4 / 9)
    assert stats["f1"] == pytest.approx(1 / 3)


def test_beam_ordering_nan_is_guarded() -> None:
    nothing = beam_ordering(["A", "B"], [])  # system ranks all tie: tau-b undefined
    assert nothing["tau_b"] is None and nothing["tau_norm"] == 0.0 and nothing["final_score"] == 0.0
    assert "undefined" in nothing["note"]
    single = score_beam_ordering(["A"], ["A"])
    assert single.value == 0.0 and "reported as 0" in reasons(single)


def test_score_beam_ordering_uses_tau_norm() -> None:
    score = score_beam_ordering(["A", "B", "C", "D"], ["B", "A", "C", "E"])
    assert score.value == pytest.approx(0.8)
    assert "F1 = 0.750" in reasons(score) and "tau_norm × F1 = 0.600" in reasons(score)
    # Unrelated lines still get tau_norm credit, the report's quirk, visible in the reasons:
    # ranks A1 B2 X5 Y5 vs A5 B5 X1 Y2; 4 discordant pairs, one tie on each side:
    # tau_b = -4 / sqrt(5 * 5) = -0.8, tau_norm = 0.1 although F1 = 0.
    unrelated = score_beam_ordering(["A", "B"], ["X", "Y"])
    assert unrelated.value == pytest.approx(0.1) and "F1 = 0.000" in reasons(unrelated)


# --- BEAM nuggets -----------------------------------------------------------------------------


def test_nuggets_half_credit_under_both_profiles() -> None:
    paper = score_nuggets([1.0, 0.5, 0.0], "paper")
    assert paper.value == pytest.approx(0.5)
    official = score_nuggets([1.0, 0.5, 0.0], "official")
    assert official.value == pytest.approx(1 / 3)
    assert "nugget 2: judged 0.5, counted 0 (int() truncation)" in reasons(official)
    assert "the paper's mean would be 0.500" in reasons(official)


def test_nuggets_without_halves_agree() -> None:
    assert score_nuggets([1, 0, 1, 1], "paper").value == score_nuggets([1, 0, 1, 1], "official").value == 0.75
    assert "truncation dropped" not in reasons(score_nuggets([1, 0, 1, 1], "official"))


def test_nuggets_event_ordering_keeps_halves_in_official() -> None:
    assert score_nuggets([0.5, 1.0], "official", ability="event_ordering").value == pytest.approx(0.75)


@pytest.mark.parametrize("bad", [[0.7], [2], ["0.5"], [True], []])
def test_nuggets_reject_invalid_values(bad: list[object]) -> None:
    with pytest.raises(ValueError):
        score_nuggets(bad, "paper")  # type: ignore[arg-type]


def test_nuggets_reject_unknown_profile() -> None:
    with pytest.raises(ValueError, match="unknown scoring profile"):
        score_nuggets([1.0], "strict")  # type: ignore[arg-type]


# --- MemBench ---------------------------------------------------------------------------------


def test_recall_at_k() -> None:
    assert recall_at_k([4, 9, 2], [2, 7]) == 0.5
    assert recall_at_k([4, 9, 2], [2, 7], k=2) == 0.0
    assert recall_at_k(list(range(20)), [15], k=10) == 0.0
    assert recall_at_k(list(range(20)), [15], k=None) == 1.0
    assert recall_at_k([], [1]) == 0.0
    assert recall_at_k([3, 3, 1], [3, 3, 1]) == 1.0  # duplicates count once
    assert recall_at_k([[0, 1], [2, 1]], [(2, 1)]) == 1.0  # FirstAgent [turn, session] ids
    with pytest.raises(ValueError, match="without target ids"):
        recall_at_k([1], [])
    with pytest.raises(ValueError, match="at least 1"):
        recall_at_k([1], [1], k=0)


def test_capacity_point() -> None:
    assert capacity_point(1200, True) == CapacityPoint(tokens=1200, correct=True)
    with pytest.raises(ValueError):
        capacity_point(-1, False)
