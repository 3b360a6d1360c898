"""Colours (GoodAI App. A.1): generator determinism and shape, and the scorer on concrete replies."""

from __future__ import annotations

import json

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.scenarios.ltm.colours import COLOURS, QUESTION, SCENARIO, score_colour
from tests.support.ltm import generator
from tests.support.paths import REFERENCE

REFERENCE_CASES = REFERENCE / "goodai-ltm/datasets/test/test_cases_colours.json"


generate = generator(SCENARIO, colour_changes=3)


def test_seeds_and_repetitions_give_different_content() -> None:
    scripts = {
        tuple(line.text for line in generate(seed, rep).script) for seed in range(5) for rep in (1, 2, 3)
    }
    assert len(scripts) == 15


def test_shape_follows_the_paper() -> None:
    for seed in range(50):
        definition = generate(seed=seed)
        statements = [line.text for line in definition.script[:-1]]
        stated = [next(c for c in COLOURS if c in text) for text in statements]
        assert len(statements) == 3
        assert definition.script[-1].text == QUESTION and definition.script[-1].is_question
        assert not any(line.is_question for line in definition.script[:-1])
        assert all(a != b for a, b in zip(stated, stated[1:], strict=False)), (
            "every statement changes the colour"
        )
        assert definition.expected == stated[-1] == definition.ideal_answers[0]
        assert definition.test_id == "colours[rep1]" and definition.skills == ("recall",)


def test_waits_spread_the_lines_over_ninety_percent_of_the_span() -> None:
    waits = [line.wait for line in generate().script]
    assert waits == [
        {"percentage_finished": 30.0},
        {"percentage_finished": 60.0},
        {"percentage_finished": 90.0},
        {},
    ]


def test_colour_changes_parameter() -> None:
    assert len(generate(colour_changes=5).script) == 6
    with pytest.raises(UsageError, match="'colour_changes' must be of type int"):
        SCENARIO.generate("ltm", {"colour_changes": "3"}, 0, 1)
    with pytest.raises(UsageError, match="unknown parameter 'colours'"):
        SCENARIO.generate("ltm", {"colours": 3}, 0, 1)


@pytest.mark.parametrize(
    ("expected", "reply", "paper", "official", "why"),
    [
        ("Green", "Your favourite colour is Green.", 1, 1, "plain answer"),
        ("Green", "green", 1, 1, "case is ignored"),
        ("Blue", "Green, not Blue", 1, 1, "both rules only ask that the colour is mentioned"),
        ("Green", "Green, not Blue", 1, 1, "the other colour is mentioned too"),
        ("Red", "I don't know.", 0, 0, "abstention"),
        (
            "Red",
            "Sorry, I was bored and forgot.",
            0,
            1,
            "'red' inside 'bored': the official substring false positive",
        ),
        ("Red", "It was a colored pencil, I think.", 0, 1, "'red' inside 'colored'"),
        ("Blue", "Blue-green, I believe.", 0, 1, "a hyphen joins words: blue-green is not blue"),
        ("Gold", "Golden, like the sun.", 0, 1, "'golden' is another word"),
        ("Teal", '"Teal"', 1, 1, "quotes are not word characters"),
        ("Pink", "You said: pink!", 1, 1, "punctuation around the word"),
        ("Navy", "Navy blue is your favourite colour.", 1, 1, "a separate word before another"),
    ],
)
def test_scorer_verdicts_under_both_profiles(
    expected: str, reply: str, paper: int, official: int, why: str
) -> None:
    assert score_colour(expected, reply, "paper").value == paper, why
    assert score_colour(expected, reply, "official").value == official, why


def test_scorer_reasons_name_the_rule() -> None:
    assert score_colour("Red", "bored", "paper").reasons == (
        "the reply does not mention 'Red' (whole-word match, ignoring case), paper profile",
    )
    assert score_colour("Red", "bored", "official").reasons == (
        "the reply mentions 'Red' (substring match, ignoring case), official profile",
    )


# The reference's 15-colour list, needed to read the maintainers' cases (test data only).
REFERENCE_COLOURS = (
    "Red", "White", "Blue", "Green", "Yellow", "Pink", "Magenta", "Cyan",
    "Purple", "Tan", "Khaki", "Beige", "Cream", "Brown", "Olive",
)  # fmt: skip


@pytest.mark.skipif(not REFERENCE_CASES.is_file(), reason="../shared/reference is not available")
def test_agreement_with_the_maintainers_stricter_cases() -> None:
    """GoodAI's unreleased `new-tests` branch labels, for 83 replies, which colours they mention.

    paper (whole words): 75/83.  The 8 disagreements are semantic labels no lexical rule can
    reproduce: only the colour a sentence is *about* counts ("the Red Sea is actually blue" → Blue
    only; "yellow ... and the grass is green" → Yellow only; "olive green pants" → Olive only),
    idioms and hair colour count as none ("green thumb", "red hair"), "light purple" in a sentence
    about lavender counts as none, and one label omits Pink from "Red, Blue, Pink, Orange, Indigo".
    official (substring): 62/83 — it also finds red in "colored", cyan in "cyanide", tan in
    "Istanbul" and blue in "blue-green"/"blue-gray".
    """
    cases = json.loads(REFERENCE_CASES.read_text())
    agreement = {}
    for profile in ("paper", "official"):
        agreement[profile] = sum(
            {c for c in REFERENCE_COLOURS if score_colour(c, case["responses"][0], profile).value}
            == set(case["expected_answers"])
            for case in cases
        )
    assert len(cases) == 83
    assert agreement == {"paper": 75, "official": 62}


RESULTS = REFERENCE / "goodai-ltm/data/tests"


@pytest.mark.skipif(not RESULTS.is_dir(), reason="../shared/reference is not available")
def test_official_profile_agrees_with_the_stored_reference_verdicts() -> None:
    """Every stored Colours result (its automatic verdict where humans overrode it) is what the
    official substring rule gives for the last reply: 10/10 in our copy (research: 242/246 over
    all v3 results, the rest being manual overrides and older scorer versions)."""
    files = sorted(RESULTS.glob("*/results/*/Colours/*.json"))
    assert files
    for path in files:
        stored = json.loads(path.read_text())
        verdict = stored.get("auto_score", stored["score"]) / stored["max_score"]
        ours = score_colour(stored["expected_responses"][0], stored["actual_responses"][-1], "official")
        assert ours.value == verdict, path
