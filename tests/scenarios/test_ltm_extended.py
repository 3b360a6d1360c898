"""The rest of GoodAI's datasets (suite `ltm_extended`): Names, Locations, Key-Value Pairs, Conflicting
Personal Information, How to Think.  Generators, scorers, GoodAI files, calibration."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.agents.reference.null import NullAgent
from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.scenarios.ltm.key_value_pairs import leaf, make_pairs
from pytest_memorybench.scenarios.ltm.locations import STEPS, score_bearing
from pytest_memorybench.suite import load_suite
from tests.support.engine import converse
from tests.support.goodai import goodai_raw

NAMES = (
    "ltm.names",
    "ltm.locations",
    "ltm.key_value_pairs",
    "ltm.conflicting_personal_information",
    "ltm.how_to_think",
)
SMALL = {"ltm.key_value_pairs": {"pairs": 12}}


def generate(name: str, seed: int = 0, repetition: int = 1, **params: Any) -> TestDefinition:
    return get_scenario(name).generate("ltm", {**SMALL.get(name, {}), **params}, seed, repetition)


def score(definition: TestDefinition, replies: list[str], profile: str = "paper") -> Score:
    verdict = get_scenario(definition.scenario).score(definition, replies, ScoringContext(profile))
    return asyncio.run(verdict) if asyncio.iscoroutine(verdict) else verdict  # type: ignore[return-value]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("span", [None, 4000], ids=["isolated", "span4000"])
def test_calibration_oracle_scores_one_and_null_zero(name: str, span: int | None, tmp_path: Path) -> None:
    definitions = [generate(name, repetition=rep) for rep in (1, 2, 3)]
    for profile in ("paper", "official"):
        oracle, null = (
            converse(
                definitions, agent(), span=span, tmp_path=tmp_path / profile, isolate=True, profile=profile
            )
            for agent in (OracleAgent, NullAgent)
        )
        assert [o.score.value for o in oracle.values()] == [1.0, 1.0, 1.0], profile
        assert [o.score.value for o in null.values()] == [0.0, 0.0, 0.0], profile


@pytest.mark.parametrize("name", NAMES)
def test_a_goodai_file_of_our_own_reads_back_as_the_same_test(name: str) -> None:
    definition = generate(name)
    expected = definition.expected if isinstance(definition.expected, list) else [definition.expected]
    again = get_scenario(name).from_goodai(goodai_raw(definition, expected), "0", "goodai", 1)  # type: ignore[attr-defined]
    assert again.script == definition.script and again.expected == definition.expected


def test_names_wants_the_last_name_as_a_word_or_the_reference_substring() -> None:
    definition = generate("ltm.names", name_changes=3)
    last = definition.expected
    assert score(definition, [f"You are {last} now."]).value == 1.0
    assert score(definition, [f"You are {last}ina."]).value == 0.0
    assert score(definition, [f"You are {last}ina."], "official").value == 1.0


def test_key_value_pairs_follow_the_chain_to_the_leaf() -> None:
    roots, pairs = make_pairs(random.Random(3), 9, 2)
    assert len(pairs) == 9 and len(roots) == 3
    assert all(leaf(root, pairs) not in pairs and pairs[root] in pairs for root in roots)
    definition = generate("ltm.key_value_pairs", pairs=9, nested_levels=2)
    shown = json.loads(definition.script[0].text.split("\n\n", 1)[1])
    key = re.search(r"'([0-9a-f-]{36})'", definition.script[1].text).group(1)  # type: ignore[union-attr]
    assert leaf(key, shown) == definition.expected
    assert score(definition, [f"It is {definition.expected}."]).value == 1.0
    assert score(definition, [f"It is {shown[key]}."]).value == 0.0


def test_locations_end_due_north_south_east_or_west_of_the_first_place() -> None:
    for repetition in range(1, 21):
        definition = generate("ltm.locations", repetition=repetition, known_locations=6)
        x = y = 0
        for line in definition.script[1:-1]:
            km, direction = re.search(r"(\d) km (?:to the )?(north|south|east|west)", line.text).groups()  # type: ignore[union-attr]
            x, y = x + STEPS[direction][0] * int(km), y + STEPS[direction][1] * int(km)
        assert x == 0 or y == 0
        expected = definition.expected
        assert (
            expected == "They are in the same place."
            or expected
            == f"{abs(x) + abs(y)} km"
            f" {('West' if x > 0 else 'East') if y == 0 else ('South' if y > 0 else 'North')}"
        )


def test_the_bearing_is_read_from_the_end_of_a_step_by_step_reply() -> None:
    steps = "First 2 km east, then 3 km north, then 3 km south. So from there you walk 2 km west."
    assert score_bearing("2 km West", steps).value == 1.0
    assert score_bearing("2 km West", steps + " Sorry, 3 km west.").value == 0.0
    assert score_bearing("They are in the same place.", "It is the same place: 0 km.").value == 1.0


def test_conflicting_information_wants_the_corrected_facts() -> None:
    definition = generate("ltm.conflicting_personal_information", facts=4, changes=2, questions=2)
    content = definition.script[0].text
    assert content.count("Actually, scratch that") == 2
    for answer in definition.expected:
        assert content.rfind(answer) > content.find("Actually")  # the corrected value comes last
    assert score(definition, list(definition.expected)).value == 1.0


def test_how_to_think_answers_follow_the_procedure() -> None:
    definition = generate("ltm.how_to_think", repetition=3, questions=4)  # the tipping procedure
    method = definition.script[0].text
    good, poor = map(int, re.findall(r"(\d+) percent", method))
    cap = int(re.search(r"more than (\d+) pounds", method).group(1))  # type: ignore[union-attr]
    for question, answer in zip(definition.questions, definition.expected, strict=True):
        bill = int(re.search(r"bill is (\d+)", question).group(1))  # type: ignore[union-attr]
        rate = good if "was good" in question else poor
        assert answer == f"{min(cap, round(bill * rate / 100 + 1e-9))} pounds"


def test_saying_back_the_content_is_no_answer_under_the_paper_profile() -> None:
    definition = get_scenario("ltm.delayed_recall").generate("ltm", {}, 0, 1)
    echo = [definition.script[0].text] * len(definition.questions)
    assert score(definition, echo).value == 0.0
    assert "repeats most of the text" in score(definition, echo).reasons[0]
    assert score(definition, echo, "official").value == 1.0  # GoodAI's checklist does not look for it


def test_goodai_folders_name_their_datasets(tmp_path: Path) -> None:
    definition = generate("ltm.locations")
    (tmp_path / "Locations").mkdir()
    (tmp_path / "Locations" / "0.def.json").write_text(
        json.dumps(goodai_raw(definition, [definition.expected]))
    )
    (tmp_path / "config.yml").write_text(
        "config:\n  incompatibilities:\n  - [locations, locations_directions]\ndatasets:\n  args:"
        " {memory_span: 2000}\n"
    )
    suite = load_suite(f"goodai-definitions={tmp_path}")
    assert [d.scenario for d in suite.definitions(0)] == ["ltm.locations"]
    assert suite.incompatible == (("ltm.locations", "ltm.locations_directions"),)


def test_multi_session_chat_wants_the_fact_told_sessions_before() -> None:
    from pytest_memorybench.scenarios.ltm.multi_session_chat import FACTS

    definition = get_scenario("ltm.multi_session_chat").generate("ltm", {"sessions": 5}, 0, 2)
    question = definition.script[0].text
    told, asked, answer, key = FACTS[1]
    assert (
        question.count("later)") + question.count("next day)") == 4 and told in question and asked in question
    )
    assert key not in question.split(told)[1], "only the first session names the fact"
    assert score(definition, [answer]).value == 1.0
    assert score(definition, ["Oh, it's going fine, thanks for asking!"]).value == 0.0
    # The reference judged its gold line, not the reply: the official profile reproduces that.
    assert score(definition, ["Oh, it's going fine, thanks for asking!"], "official").value == 1.0


@pytest.mark.parametrize("span", [None, 4000], ids=["isolated", "span4000"])
def test_multi_session_chat_calibration_under_the_paper_profile(span: int | None, tmp_path: Path) -> None:
    definitions = [get_scenario("ltm.multi_session_chat").generate("ltm", {}, 0, rep) for rep in (1, 2, 3)]
    oracle = converse(definitions, OracleAgent(), span=span, tmp_path=tmp_path / "o", isolate=True)
    null = converse(definitions, NullAgent(), span=span, tmp_path=tmp_path / "n", isolate=True)
    assert [o.score.value for o in oracle.values()] == [1.0, 1.0, 1.0]
    assert [o.score.value for o in null.values()] == [0.0, 0.0, 0.0]


def test_a_goodai_multi_session_chat_file_reads_its_gold_answer() -> None:
    definition = get_scenario("ltm.multi_session_chat").generate("ltm", {}, 0, 1)
    payload = json.dumps(
        {
            "name": "Speaker 2",
            "persona": "- I keep bees.",
            "gold_answer": "The bees are thriving!",
            "conversation": "…",
        }
    )
    again = get_scenario("ltm.multi_session_chat").from_goodai(
        goodai_raw(definition, [payload]), "0", "goodai", 1
    )  # type: ignore[attr-defined]
    assert again.expected == {"fact": "The bees are thriving!", "gold": "The bees are thriving!"}
    assert again.script == definition.script
