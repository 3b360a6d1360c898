"""Spy Meeting (GoodAI App. A.7): generator, keyword scorer, engine calibration, GoodAI parity."""

from __future__ import annotations

import asyncio
import itertools
import json

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.scenarios.ltm.spy_meeting import (
    CATALOGUE,
    INTRO,
    PLACES,
    QUESTION,
    SCENARIO,
    TEMPLATES,
    THINGS,
    TIMES,
    all_keywords,
    ideal_answer,
    score_spy_meeting,
)
from pytest_memorybench.scoring.text import matches_at_word_boundaries
from tests.support.ltm import goodai_results, needs_goodai, published


def generate(seed: int = 0, repetition: int = 1) -> TestDefinition:
    return SCENARIO.generate("ltm", {}, seed, repetition)


def expected_for(*clues) -> dict:
    others = [list(c.keywords) for kind in sorted(CATALOGUE) for c in CATALOGUE[kind] if c not in clues]
    return {
        "clues": [{"kind": c.kind, "code": c.code, "keywords": list(c.keywords)} for c in clues],
        "other_keywords": others,
    }


# -- generator ------------------------------------------------------------------------------------


def test_seeds_and_repetitions_give_different_content() -> None:
    scripts = {
        tuple(line.text for line in generate(seed, rep).script) for seed in range(5) for rep in (1, 2, 3)
    }
    assert len(scripts) == 15


def test_catalogue_is_at_least_the_papers_size() -> None:
    assert (len(TIMES), len(THINGS), len(PLACES)) >= (5, 4, 5)
    assert len(TIMES) >= 5 and len(THINGS) >= 4 and len(PLACES) >= 5
    assert all(clue.keywords for clues in CATALOGUE.values() for clue in clues)


def test_shape_follows_the_paper() -> None:
    kinds_seen, orders = set(), set()
    for seed in range(60):
        definition = generate(seed=seed)
        lines = [line.text for line in definition.script]
        clues = definition.expected["clues"]
        assert len(lines) == 5 and [line.is_question for line in definition.script] == [False] * 4 + [True]
        assert lines[-1] == QUESTION and definition.reset_message is None
        names = lines[0][len(INTRO.split("{")[0]) :].rstrip(".").replace(" and ", ", ").split(", ")
        assert len(set(names)) == 3
        senders = [line.split(": ", 1)[0] for line in lines[1:4]]
        assert sorted(senders) == sorted(names), "each person sends exactly one message"
        assert sorted(clue["kind"] for clue in clues) == ["place", "thing", "time"]
        for line, clue, sender in zip(lines[1:4], clues, senders, strict=False):
            assert line == TEMPLATES[clue["kind"]].format(name=sender, code=clue["code"])
        orders.add(tuple(clue["kind"] for clue in clues))
        kinds_seen.update(clue["code"] for clue in clues)
        assert definition.skills == ("recall", "information_integration")
        assert [line.wait for line in definition.script] == [
            {"percentage_finished": 22.5},
            {"percentage_finished": 45.0},
            {"percentage_finished": 67.5},
            {"percentage_finished": 90.0},
            {},
        ]
    assert len(orders) == 6, "the three messages come in random order"
    assert len(kinds_seen) == len(TIMES) + len(THINGS) + len(PLACES), "every clue gets used"


def test_takes_no_parameters() -> None:
    with pytest.raises(UsageError, match="unknown parameter 'clues'"):
        SCENARIO.generate("ltm", {"clues": 3}, 0, 1)


def test_coded_phrases_names_and_wording_say_no_keyword() -> None:
    """Repeating the messages must decode nothing, and a sender called "Dawn Baker" must not help."""
    keywords = all_keywords()
    texts = [c.code for clues in CATALOGUE.values() for c in clues] + [QUESTION, INTRO, *TEMPLATES.values()]
    for seed in range(30):
        texts.extend(line.text for line in generate(seed).script)
    for text in texts:
        assert not [w for w in keywords if matches_at_word_boundaries(w, text)], text


@pytest.mark.parametrize("profile", ["paper", "official"])
def test_every_ideal_answer_scores_one_and_abstention_zero(profile: str) -> None:
    for clues in itertools.product(TIMES, THINGS, PLACES):
        expected = expected_for(*clues)
        assert score_spy_meeting(expected, ideal_answer(clues), profile).value == 1.0, ideal_answer(clues)  # type: ignore[arg-type]
        assert score_spy_meeting(expected, "I don't know.", profile).value == 0.0  # type: ignore[arg-type]


# -- scorer ---------------------------------------------------------------------------------------

ASLEEP, LIGHTHOUSE, LADDER = TIMES[3], PLACES[0], THINGS[3]
EXPECTED = expected_for(ASLEEP, LIGHTHOUSE, LADDER)  # midnight / lighthouse / ladder
THIRD = 1 / 3


@pytest.mark.parametrize(
    ("reply", "paper", "official", "why"),
    [
        ("We meet at midnight at the lighthouse, and I should bring a ladder.", 1, 1, "the ideal answer"),
        (
            '{"when": "midnight", "where": "lighthouse", "bring": "ladder"}',
            1,
            1,
            "a JSON wrapper is still text",
        ),
        ("Midnight at the Lighthouse; bring a Ladder.", 1, 0, "official keywords are case-sensitive"),
        ("Midnight, at the lighthouse, with a ladder.", 1, 2 * THIRD, "a capital at the start of a sentence"),
        (
            (
                "We meet when the whole town is asleep, where the ships are guided home, and I bring a way"
                " over the garden wall."
            ),
            0,
            0,
            "repeating the coded phrases without interpreting them",
        ),
        (
            "Probably at midnight; I can't work out the place or what to bring.",
            THIRD,
            THIRD,
            "partial credit per clue",
        ),
        (
            (
                "**Time:** late at night.\n**Place:** the old lighthouse on the cliffs, where ships are"
                " guided home.\n**Bring:** a rope ladder or a grappling hook, to get over the garden wall."
            ),
            1,
            1,
            "a verbose answer",
        ),
        (
            "At midnight at the lighthouse; bring a ladder, and maybe a torch.",
            2 * THIRD,
            2 * THIRD,
            "a keyword of another clue: −1 clue",
        ),
        (
            "At midnight at the bakery, with a ladder and some cash.",
            THIRD,
            THIRD,
            "a wrong place costs the hit and, once, the penalty",
        ),
        ("We meet at dawn at the bakery, and I should bring cash.", 0, 0, "an older repetition's meeting"),
        (
            "At midnight at the lighthouse with a ladder. Money: none needed.",
            2 * THIRD,
            1,
            "a capitalised keyword of another clue is confusion only when case is ignored",
        ),
        ("At midnight at the lighthouse; bring a step-ladder.", 1, 1, r"\b treats a hyphen as a boundary"),
        (
            (
                "There seem to be three meetings: one at midnight, one at the lighthouse, and one where you"
                " bring a ladder."
            ),
            1,
            1,
            "App. D: reading three meetings still names every keyword",
        ),
        (
            "At night at the lighthouses, bring ladders.",
            THIRD,
            THIRD,
            "whole words: plurals of single-form keywords miss",
        ),
        ("I don't know.", 0, 0, "abstention"),
        ("", 0, 0, "empty"),
    ],
)
def test_keyword_verdicts_under_both_profiles(reply: str, paper: float, official: float, why: str) -> None:
    assert score_spy_meeting(EXPECTED, reply, "paper").value == pytest.approx(paper), why
    assert score_spy_meeting(EXPECTED, reply, "official").value == pytest.approx(official), why


def test_a_keyword_shared_with_the_given_clue_is_no_confusion() -> None:
    """Two time clues share "dawn" and "morning": saying them for the rooster clue is right."""
    rooster, bakers = TIMES[0], TIMES[5]
    assert {"dawn", "morning"} <= set(rooster.keywords) & set(bakers.keywords)
    expected = expected_for(rooster, LIGHTHOUSE, LADDER)
    reply = "Early in the morning, at dawn, at the lighthouse with a ladder."
    assert score_spy_meeting(expected, reply, "official").value == 1


def test_reasons_name_the_clue_kind_and_the_rule() -> None:
    reasons = score_spy_meeting(EXPECTED, "At midnight at the bakery.", "official").reasons
    assert reasons[0] == "clue 1 (time): decoded, the reply says 'midnight'"
    assert reasons[1].startswith("clue 2 (place): none of ['lighthouse'] found")
    assert reasons[2].startswith("clue 3 (thing): none of")
    assert "confused: the reply also says 'bakery'" in reasons[3]
    assert reasons[-2] == "(1 decoded − 1 confusion) / 3 clues = 0.000 (case-sensitive)"
    assert reasons[-1] == "official profile"
    with pytest.raises(ValueError, match="unknown scoring profile"):
        score_spy_meeting(EXPECTED, "x", "strict")  # type: ignore[arg-type]


def test_scenario_scores_the_last_reply() -> None:
    definition = generate(seed=2)
    assert asyncio.run(SCENARIO.score(definition, [definition.ideal_answers[0]], ScoringContext())).value == 1
    assert asyncio.run(SCENARIO.score(definition, [], ScoringContext())).value == 0


# -- GoodAI definitions and stored verdicts --------------------------------------------------------


@needs_goodai
def test_from_goodai_reads_the_published_definitions() -> None:
    for raw, definition in published(SCENARIO, "Spy Meeting"):
        assert [line.wait for line in definition.script][-2:] == [{"percentage_finished": 90.0}, {}]
        clues = definition.expected["clues"]
        assert [clue["keywords"] for clue in clues] == raw["expected_responses"]
        assert sorted(clue["kind"] for clue in clues) == ["place", "thing", "time"]
        for line, clue in zip(raw["script"][1:4], clues, strict=False):
            assert line.endswith(clue["code"])
        for profile in ("paper", "official"):
            assert (
                asyncio.run(
                    SCENARIO.score(definition, definition.ideal_answers, ScoringContext(profile))
                ).value
                == 1
            )  # type: ignore[arg-type]
            assert (
                asyncio.run(SCENARIO.score(definition, ["I don't know."], ScoringContext(profile))).value == 0
            )  # type: ignore[arg-type]


# The reference's clue keyword lists (GoodAI datasets/spy_meeting.py, the version stored in our code
# index, with the thing clue's list as Benchmark 3's own results give it: ["pick", "picks", "key"]).
# Test data only, to compute the confusion penalty exactly as the reference does.
REFERENCE_CATALOGUE = [
    ["shore", "beach", "coastline"], ["railway", "yard", "depot"], ["automobile", "factory", "manufacturing"],
    ["orchard"], ["port", "warehouse", "seaport", "docks"], ["dawn", "sunrise", "morning", "rise"],
    ["dawn", "sunrise", "morning", "rise"], ["noon", "midday"], ["sunset", "dusk", "sets"],
    ["night", "midnight", "nighttime"], ["boat", "bridge", "raft", "kayak"], ["pick", "picks", "key"],
    ["bribe", "credentials", "paperwork", "passport"], ["motorbike", "motorcycle", "car", "fast vehicle"],
]  # fmt: skip


@needs_goodai
def test_parity_with_stored_spy_meeting_verdicts() -> None:
    """Agreement with the 13 Spy Meeting results held in ../shared/reference (of the repo's 246).

    official vs the automatic verdicts (`auto_score` where humans overrode `score`): 11/13;
    official vs the stored final `score`: 7/13; paper vs the automatic verdicts: 11/13 (these
    replies write their keywords in lower case).  The six disagreements with `score`:
      * 4 human overrides to 1.0, where we agree with the stored `auto_score` of 2/3: Gemini's
        "Context is key" (a keyword of the lock-picking clue, so confusion), Claude's "lockpicks"
        (not the whole word `pick`), GPT-4-turbo's "a vehicle" and its river-crossing
        "presentation" (no keyword; the humans accepted the interpretation).
      * 2 gpt-4o (32k isolated) results stored as 1.0 by an older scorer that matched substrings
        ("pick" inside "lockpicking", "car" inside "cargo"); whole-word matching gives 2/3 and
        these files carry no `auto_score` to say so.
    Only these 13 of the repository's 246 v3 results are stored here, so the research's 205/246
    (measured on all of them) cannot be rerun; it names the same causes: manual
    overrides plus results from older scorer versions (substring matching, 0.33 steps, shorter
    keyword lists, no confusion penalty), which the files here also show.
    """
    agreement = {"official auto": 0, "official score": 0, "paper auto": 0}
    results = goodai_results("Spy Meeting")
    for path in results:
        stored = json.loads(path.read_text())
        expected = {
            "clues": [{"kind": "clue", "code": "", "keywords": k} for k in stored["expected_responses"]],
            "other_keywords": REFERENCE_CATALOGUE,  # score_keywords drops the given clues' own keywords
        }
        automatic = stored.get("auto_score", stored["score"])
        reply = stored["actual_responses"][0]
        official = score_spy_meeting(expected, reply, "official").value
        agreement["official auto"] += official == pytest.approx(automatic)
        agreement["official score"] += official == pytest.approx(stored["score"])
        agreement["paper auto"] += score_spy_meeting(expected, reply, "paper").value == pytest.approx(
            automatic
        )
    assert len(results) == 13
    assert agreement == {"official auto": 11, "official score": 7, "paper auto": 11}
