"""The one F1 core (`core/f1.py`) and the per-paper rules that call it, on concrete answers.

Each rule keeps its own normalisation; the expected values are worked out by hand from the
paper's rule (the comments show the counts), so a change in the shared core that moved any
rule's verdict fails here.
"""

from __future__ import annotations

import pytest

from pytest_memorybench.core.f1 import bag_f1, harmonic_f1
from pytest_memorybench.judges.local.text import rouge_l
from pytest_memorybench.scenarios.locomo.scoring import multi_answer_f1
from pytest_memorybench.scenarios.locomo.scoring import token_f1 as locomo_f1
from pytest_memorybench.scenarios.memoryagentbench.scoring import token_f1 as memoryagentbench_f1
from pytest_memorybench.scoring.items_f1 import items_f1
from pytest_memorybench.scoring.kendall import beam_ordering


def test_the_harmonic_mean_is_zero_when_nothing_is_right() -> None:
    assert harmonic_f1(0.5, 0.5) == 0.5
    assert harmonic_f1(1.0, 0.5) == pytest.approx(2 / 3)
    assert harmonic_f1(0.0, 0.0) == 0.0
    assert harmonic_f1(0.0, 1.0) == 0.0


def test_a_bag_of_tokens_counts_each_token_as_often_as_both_sides_have_it() -> None:
    # "the" twice against once: one in common, with "cat": 2 of 4 predicted, 2 of 3 wanted
    assert bag_f1(["the", "the", "cat", "sat"], ["the", "cat", "ran"]) == pytest.approx(4 / 7)
    assert bag_f1(["a"], ["b"]) == 0.0
    assert bag_f1([], ["b"]) == 0.0


def test_locomo_stems_and_drops_articles_before_counting() -> None:
    pytest.importorskip("nltk")
    # she wa paint sunset at lake dog were run (9) against paint sunset by lake (4): 3 in common
    reply = "She was painting sunsets at the lake, and the dogs were running"
    assert locomo_f1(reply, "painted a sunset by the lake") == pytest.approx(6 / 13)
    assert locomo_f1("Nothing to do with it", "painted a sunset") == 0.0
    # Rome: "the Rome trip" (2/3), Paris: "Paris" (1), Berlin: nothing (0)
    assert multi_answer_f1("Paris, the Rome trip", "Rome, Paris, Berlin") == pytest.approx(5 / 9)


def test_memoryagentbench_scores_yes_and_no_only_when_equal() -> None:
    # eiffel tower is in paris (5) against paris france (2): one in common
    assert memoryagentbench_f1("The Eiffel Tower is in Paris.", "Paris, France") == pytest.approx(2 / 7)
    assert memoryagentbench_f1("Yes, it is", "yes") == 0.0
    assert memoryagentbench_f1("no", "No.") == 1.0


def test_rouge_l_counts_the_longest_common_subsequence() -> None:
    # the cat _ on _ mat: 4 of 6 either way
    assert rouge_l("the cat sat on the mat".split(), "the cat lay on a mat".split()) == pytest.approx(
        (2 / 3, 2 / 3, 2 / 3)
    )
    assert rouge_l(["x"], ["y"]) == (0.0, 0.0, 0.0)


def test_beam_ordering_counts_the_shared_events() -> None:
    figures = beam_ordering(["wake", "coffee", "train", "desk"], ["coffee", "wake", "desk", "lunch"])
    assert (figures["tp"], figures["fp"], figures["fn"]) == (3, 1, 1)
    assert figures["precision"] == figures["recall"] == figures["f1"] == 0.75
    assert beam_ordering(["a"], ["b"])["f1"] == 0.0


def test_episodic_items_f1_keeps_its_undefined_cases() -> None:
    score = items_f1(
        ["red car", "blue bike", "green hat"], [1, 0.5, 0], ["red car", "blue bike", "yellow kite"]
    )
    assert score.value == 0.5 and score.reasons[-1] == "F1 = 0.500 (2PR / (P + R))"
    # harsh: S = 1.5 over one identified item, P = 1.5 and R = 0.75, F1 = 1
    assert items_f1(["red car"], [1, 0.5], ["red car", "blue bike"], lenient=False).value == 1.0
    assert items_f1([], [], []).value == 1.0  # nothing to find, nothing claimed
    assert items_f1([], [1.0], ["red car"]).value == 0.0
