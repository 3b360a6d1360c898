"""Locations Directions (GoodAI App. A.3): generator, route scorer, engine calibration, GoodAI files."""

from __future__ import annotations

import asyncio
import json

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.judges.base import JudgeTask, JudgeVerdict
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.ltm.locations_directions import (
    PLACES,
    RESET_MESSAGE,
    SCENARIO,
    hop,
    parse_goodai_route,
    route_text,
    score_route,
    walk,
)
from tests.support.ltm import (
    GOODAI_TESTS,
    generator,
    goodai_results,
    needs_goodai,
    published,
)

DEFINITIONS = GOODAI_TESTS / "Benchmark 3 - 32k/definitions/Locations Directions"


generate = generator(SCENARIO)


def score(definition: TestDefinition, reply: str, profile: str = "paper") -> float:
    return asyncio.run(SCENARIO.score(definition, [reply], ScoringContext(profile))).value  # type: ignore[arg-type]


# -- generator ------------------------------------------------------------------------------------


def test_seeds_and_repetitions_give_different_routes() -> None:
    scripts = {
        tuple(line.text for line in generate(seed, rep).script) for seed in range(5) for rep in (1, 2, 3)
    }
    assert len(scripts) == 15


def test_shape_follows_the_paper() -> None:
    assert len(PLACES) >= 9
    for seed in range(40):
        definition = generate(seed=seed)
        route = definition.expected["route"]
        places = [route[0]["origin"], *(leg["destination"] for leg in route)]
        lines = [line.text for line in definition.script]
        assert len(places) == len(set(places)) == 6 and set(places) <= set(PLACES)
        assert len(lines) == 7 and [line.is_question for line in definition.script] == [False] * 6 + [True]
        assert "centre" in lines[0] and places[0] in lines[0]
        for line, leg in zip(lines[1:6], route, strict=False):
            assert 1 <= leg["kilometers"] <= 4 and leg["direction"] in ("north", "south", "east", "west")
            assert all(
                str(part) in line
                for part in (leg["origin"], leg["destination"], leg["kilometers"], leg["direction"])
            )
        assert places[0] in lines[-1] and places[-1] in lines[-1]
        assert definition.expected["start"] == places[0] and definition.expected["end"] == places[-1]
        assert definition.reset_message == RESET_MESSAGE
        assert definition.skills == ("spatial", "information_integration")
        assert definition.script[0].wait == {"percentage_finished": 15.0} and definition.script[-1].wait == {}


def test_known_locations_parameter() -> None:
    assert len(generate(known_locations=9).expected["route"]) == 8
    with pytest.raises(UsageError, match="known_locations must be between 2"):
        generate(known_locations=1)
    with pytest.raises(UsageError, match="known_locations must be between 2"):
        generate(known_locations=len(PLACES) + 1)


def test_the_offline_judge_reads_every_ideal_answer_exactly() -> None:
    """The ideal route text must structure back into exactly the generated hops."""
    judge = LocalJudge()
    for seed in range(60):
        definition = generate(seed=seed, repetition=1 + seed % 3)
        verdict = judge.judge_now(
            JudgeTask("directions", {"answer": definition.ideal_answers[0], "places": list(PLACES)})
        )
        assert verdict.ok and verdict.data["hops"] == definition.expected["route"], seed


# -- scorer ---------------------------------------------------------------------------------------

ROUTE = [
    hop("Clock Tower", 2, "north", "Fish Market"),
    hop("Fish Market", 2, "south", "Cinema"),
    hop("Cinema", 1, "north", "Windmill"),
    hop("Windmill", 1, "west", "Old Bridge"),
    hop("Old Bridge", 1, "east", "Observatory"),
]  # the paper's roundabout example (App. D): N 2, S 2, N 1, W 1, E 1 → 1 km north
EXPECTED = {"places": list(PLACES), "route": ROUTE, "start": "Clock Tower", "end": "Observatory"}
DEFINITION = TestDefinition("ltm", SCENARIO.name, 1, 0, (), (route_text(ROUTE),), EXPECTED)


@pytest.mark.parametrize(
    ("reply", "paper", "official", "why"),
    [
        (route_text(ROUTE), 1, 1, "the ideal answer"),
        (
            "From the Clock Tower, walk 1 km north to the Observatory.",
            1,
            1,
            "a shortcut: any route with the right end point",
        ),
        (
            (
                "Start at the Clock Tower. Head north for 2 km to reach the Fish Market, go back 2 km south"
                " to the Cinema, then 1 km north to the Windmill, 1 km west to the Old Bridge and finally 1"
                " km east to the Observatory."
            ),
            1,
            1,
            "a verbose paraphrase of every leg",
        ),
        (
            (
                "From the Clock Tower, go 2 km north to the Fish Market. From the Fish Market, go 2 km south"
                " to the Cinema. From the Cinema, go 1 km west to the Old Bridge. From the Old Bridge, go 1"
                " km east to the Observatory."
            ),
            0,
            0,
            "App. D failure mode: the second move north is dropped",
        ),
        (
            "From the Fish Market, go 1 km north to the Observatory.",
            0,
            1,
            "same displacement from the wrong place: official walks from (0,0) regardless of the origin",
        ),
        (
            "From the Clock Tower, go 1 km north to the Windmill.",
            0,
            1,
            "right end point but named as another place: only the paper checks the last place",
        ),
        ("From the Clock Tower, go 1 km north to the Town Hall.", 0, 0, "a hallucinated place is invalid"),
        ("Go 1 km north to the Observatory.", 0, 0, "no origin: the leg cannot be validated"),
        ("I don't know.", 0, 0, "abstention: no route"),
        ("", 0, 0, "empty reply"),
        ("The Clock Tower and the Observatory are both lovely places.", 0, 0, "places but no movement"),
    ],
)
def test_route_verdicts_under_both_profiles(reply: str, paper: int, official: int, why: str) -> None:
    assert score(DEFINITION, reply, "paper") == paper, why
    assert score(DEFINITION, reply, "official") == official, why


def test_an_empty_route_fails_even_when_the_destination_is_the_start() -> None:
    """The reference's "empty list" escape (#54): walking no legs ends at (0, 0), as does this route."""
    back = [hop("Clock Tower", 2, "north", "Cinema"), hop("Cinema", 2, "south", "Windmill")]
    definition = TestDefinition(
        "ltm", SCENARIO.name, 1, 0, (), ("",), {**EXPECTED, "route": back, "end": "Windmill"}
    )
    assert walk(back) == (0, 0)
    for profile in ("paper", "official"):
        assert score(definition, "I don't know.", profile) == 0
        assert score(definition, route_text(back), profile) == 1


def test_invalid_routes_give_the_raw_and_structured_text_as_reasons() -> None:
    reply = "From the Clock Tower, go 1 km north to the Town Hall."
    result = asyncio.run(SCENARIO.score(DEFINITION, [reply], ScoringContext("official")))
    assert result.value == 0
    # the offline judge leaves a place it does not know blank; an LLM judge copies its name
    assert result.reasons[0] == "invalid route: leg 1: destination '' is not a known place"
    assert result.reasons[1] == f"original reply: {reply!r}"
    assert result.reasons[2].startswith("structured route: Clock Tower 1 km")
    assert result.reasons[-1] == "judge local"


def test_judge_failures_and_bad_legs_score_zero() -> None:
    failed = JudgeVerdict("directions", None, error="judge-unparseable: not JSON")
    assert score_route(EXPECTED, "x", failed, "paper").reasons[0].endswith("judge-unparseable: not JSON")
    for bad in ({"kilometers": 0}, {"kilometers": 1.5}, {"kilometers": True}, {"direction": "up"}):
        leg = {**hop("Clock Tower", 1, "north", "Observatory"), **bad}
        verdict = JudgeVerdict("directions", {"hops": [leg]})
        assert score_route(EXPECTED, "x", verdict, "official").value == 0, bad
    spelled = JudgeVerdict("directions", {"hops": [hop("clock tower", 1, "North", "OBSERVATORY")]})
    assert score_route(EXPECTED, "x", spelled, "paper").value == 1, "names and directions ignore case"
    with pytest.raises(ValueError, match="unknown scoring profile"):
        score_route(EXPECTED, "x", spelled, "strict")  # type: ignore[arg-type]


# -- GoodAI definitions and results ---------------------------------------------------------------


def test_parse_goodai_route() -> None:
    text = (
        "(Just an example, if exact instructions are followed)\nFrom Town Hall, go 4km East to Statue of"
        " Founder."
    )
    assert parse_goodai_route(text) == [hop("Town Hall", 4, "east", "Statue of Founder")]
    with pytest.raises(ValueError):
        parse_goodai_route("Walk east.")


@needs_goodai
def test_from_goodai_reads_the_published_definitions() -> None:
    for raw, definition in published(SCENARIO, "Locations Directions"):
        assert definition.questions == [raw["script"][-1]]
        assert (
            definition.expected["start"] in raw["script"][-1]
            and definition.expected["end"] in raw["script"][-1]
        )
        assert len(definition.expected["route"]) == 5 and len(definition.expected["places"]) == 6
        assert definition.script[0].wait == {"percentage_finished": 15.0}
        assert score(definition, definition.ideal_answers[0], "paper") == 1
        assert score(definition, definition.ideal_answers[0], "official") == 1
        assert score(definition, "I don't know.", "official") == 0


@needs_goodai
def test_agreement_with_stored_automatic_verdicts_using_the_offline_judge() -> None:
    """Every stored automatic verdict (`auto_score` where humans overrode `score`), offline judge.

    They used to disagree on 4 of 11: gpt-4o's routes that end with a summary of themselves, one
    that heads for the Park "and then" goes on 1 km to the Retail Area (the summary gives that leg
    whole), and Claude's "Central Park" for the known "Park", which gpt-4-turbo copied as an
    unknown place (an invalid route, 0).
    """
    agree = total = 0
    for path in goodai_results("Locations Directions"):
        stored = json.loads(path.read_text())
        example = path.name.split("_")[0]
        raw = json.loads((DEFINITIONS / f"{example}.def.json").read_text())
        definition = SCENARIO.from_goodai(raw, example, "goodai", 1)
        verdict = score(definition, stored["actual_responses"][0], "official")
        agree += verdict == stored.get("auto_score", stored["score"])
        total += 1
    assert (agree, total) == (11, 11)
