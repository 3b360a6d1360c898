"""Shopping (GoodAI App. A.6): generator rules, three-part scorer, engine calibration, GoodAI files."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.scenarios.ltm.shopping import (
    ADD_TEMPLATES,
    ITEMS,
    QUESTION,
    REMOVE_TEMPLATES,
    RESET_MESSAGE,
    SCENARIO,
    score_shopping,
)
from tests.support.ltm import generator, needs_goodai, published, stored_agreement

generate = generator(SCENARIO)


def _pattern(template: str) -> re.Pattern[str]:
    pattern = re.escape(template)
    for field, group in (
        (r"\{another\}", "(?P<another>another )?"), (r"\{number\}", r"(?P<number>\d+)"),
        (r"\{item\}", "(?P<item>[a-z ]+?)"), (r"\{them\}", "(?P<them>it|them)"),
    ):  # fmt: skip
        pattern = pattern.replace(field, group)
    return re.compile(pattern + "$")


ADDS = [_pattern(t) for t in ADD_TEMPLATES]
REMOVES = [_pattern(t) for t in REMOVE_TEMPLATES]
NOUNS = {form.lower(): singular for singular, plural in ITEMS for form in (singular, plural)}


def replay(definition: TestDefinition) -> tuple[dict[str, int], int, int, int]:
    """Apply the statements, checking the reference's rules.

    Returns the final cart, #removals, #changes made while the list was not empty, #items emptied.
    """
    cart: dict[str, int] = {}
    removals = chances = emptied = 0
    for line in definition.script[:-1]:
        add = next((m for p in ADDS if (m := p.match(line.text))), None)
        remove = next((m for p in REMOVES if (m := p.match(line.text))), None)
        assert (add is None) != (remove is None), line.text
        match = add or remove
        number, noun = int(match["number"]), match["item"]
        item = NOUNS[noun]
        assert noun == (item if number == 1 else dict(ITEMS)[item]).lower(), (
            "singular for one, plural otherwise"
        )
        chances += bool(cart)
        if add:
            assert 1 <= number <= 3
            assert bool(add["another"]) == (item in cart), "'another' exactly when the item is already listed"
            cart[item] = cart.get(item, 0) + number
        else:
            removals += 1
            assert item in cart and 1 <= number <= cart[item], "only what is on the list can be removed"
            assert remove.groupdict().get("them") in (None, "it" if number == 1 else "them")
            cart[item] -= number
            if cart[item] == 0:
                del cart[item]
                emptied += 1
    return cart, removals, chances, emptied


# -- generator ------------------------------------------------------------------------------------


def test_seeds_and_repetitions_give_different_lists() -> None:
    scripts = {
        tuple(line.text for line in generate(seed, rep).script) for seed in range(5) for rep in (1, 2, 3)
    }
    assert len(scripts) == 15


def test_changes_follow_the_reference_rules() -> None:
    removals = chances = emptied = 0
    for seed in range(300):
        definition = generate(seed=seed)
        cart, removed, could, gone = replay(definition)
        removals, chances, emptied = removals + removed, chances + could, emptied + gone
        assert len(definition.script) == 7 and definition.script[-1].text == QUESTION
        assert definition.script[-1].is_question and not any(
            line.is_question for line in definition.script[:-1]
        )
        assert definition.expected == [[item.lower(), count] for item, count in cart.items()]
        assert json.loads(definition.ideal_answers[0]) == [
            {"item": i, "quantity": c} for i, c in cart.items()
        ]
    assert 0.12 < removals / chances < 0.22, "removal with probability 1/6 when the list is not empty"
    assert emptied > 0, "an item removed down to zero leaves the list"


def test_shape_and_params_follow_the_paper() -> None:
    definition = generate()
    assert definition.test_id == "shopping[rep1]"
    assert definition.skills == ("recall", "conflicting_information", "information_integration")
    assert definition.params == {"item_changes": 6}
    assert definition.reset_message == RESET_MESSAGE
    assert "`item`" in QUESTION and "`quantity`" in QUESTION and "JSON list" in QUESTION
    assert len(ITEMS) == 12
    names = [singular.lower() for singular, _ in ITEMS]
    assert not any(a != b and a in b for a in names for b in names), "no item name inside another"
    waits = [line.wait for line in definition.script]
    assert waits == [{"percentage_finished": p} for p in (15.0, 30.0, 45.0, 60.0, 75.0, 90.0)] + [{}]
    assert len(generate(item_changes=2).script) == 3
    with pytest.raises(UsageError, match="'item_changes' must be of type int"):
        SCENARIO.generate("ltm", {"item_changes": 6.0}, 0, 1)
    with pytest.raises(UsageError, match="unknown parameter 'changes'"):
        SCENARIO.generate("ltm", {"changes": 6}, 0, 1)


# -- scorer ---------------------------------------------------------------------------------------

EXPECTED = [["lemon", 3], ["apple", 2], ["light bulb", 1]]


def entries(*pairs: tuple[object, object]) -> str:
    return json.dumps([{"item": item, "quantity": quantity} for item, quantity in pairs])


RIGHT = (("Lemon", 3), ("Apple", 2), ("Light Bulb", 1))


@pytest.mark.parametrize(
    ("reply", "paper", "official", "why"),
    [
        (entries(*RIGHT), 1, 1, "the ideal list"),
        (entries(("Lemons", 3), ("apples", 2), ("light bulbs", 1)), 1, 1, "plural names"),
        ("Here you go:\n```json\n" + entries(*RIGHT) + "\n```\nAnything else?", 1, 1, "verbose, fenced"),
        (
            (
                '[{"item": "lemon", "quantity": 3}, {"item": "apple", "quantity": 2}, {"item": "light bulb",'
                ' "quantity": 1},]'
            ),
            1,
            1,
            "trailing comma",
        ),
        (
            (
                '[{"item": "lemon", "quantity": 3, "unit": "pieces"}, {"item": "apple", "quantity": 2},'
                ' {"item": "light bulb", "quantity": 1}]'
            ),
            1,
            1,
            "an extra property is tolerated",
        ),
        (
            json.dumps({"shopping_list": json.loads(entries(*RIGHT))}),
            1,
            0,
            "wrapper object (App. B.3): paper reads its list, official rejects it",
        ),
        (entries(("Lemon", 2), ("Apple", 2), ("Light Bulb", 1)), 8 / 9, 8 / 9, "one wrong quantity"),
        (entries(("Apple", 2), ("Light Bulb", 1)), 7 / 9, 7 / 9, "one item missing"),
        (entries(*RIGHT, ("Candle", 2)), 2 / 3, 2 / 3, "an item of an older repetition is still listed"),
        (entries(("Candle", 2), ("Sponge", 1)), 0, 0, "only an older repetition's list"),
        (
            entries(("Lemon", 3), ("Lemon", 3), ("Apple", 2), ("Light Bulb", 1)),
            2 / 3,
            1,
            (
                "not consolidated: paper counts the repeat as an unexpected entry; official counts it twice"
                " (capped)"
            ),
        ),
        (
            entries(("Lemon", 2), ("Lemon", 1), ("Apple", 2), ("Light Bulb", 1)),
            5 / 9,
            1,
            "not consolidated, split quantities",
        ),
        (
            entries(("Lemon", 3), ("Pineapple", 2), ("Light Bulb", 1)),
            4 / 9,
            1,
            "'pineapple' names apple only as a substring",
        ),
        (entries(("Lemon", "3"), ("Apple", 2), ("Light Bulb", 1)), 1, 0, "quantity as a digit string"),
        (entries(("Lemon", 3.0), ("Apple", 2), ("Light Bulb", 1)), 1, 0, "quantity as an integral float"),
        (
            entries(("Lemon", 3), ("Apple", 2), ("Light Bulb", True)),
            0,
            1,
            "true as a quantity: the reference's int check",
        ),
        (entries(("Lemon", "a few"), ("Apple", 2)), 0, 0, "quantity in words"),
        ('[{"name": "lemon", "count": 3}]', 0, 0, "wrong property names"),
        ('["lemon", "apple", "light bulb"]', 0, 0, "a list of strings"),
        ("You need 3 lemons, 2 apples and a light bulb.", 0, 0, "prose, no JSON"),
        ("[]", 1 / 3, 1 / 3, "an empty list: nothing hallucinated, nothing found"),
        ("I don't know.", 0, 0, "abstention"),
        ("", 0, 0, "no reply"),
    ],
)
def test_scorer_verdicts_under_both_profiles(reply: str, paper: float, official: float, why: str) -> None:
    assert score_shopping(EXPECTED, reply, "paper").value == pytest.approx(paper), why
    assert score_shopping(EXPECTED, reply, "official").value == pytest.approx(official), why


def test_scorer_reasons_are_readable() -> None:
    result = score_shopping(EXPECTED, entries(("Lemons", 2), ("Apple", 2), ("Candle", 1)), "paper")
    assert result.reasons == (
        "wrong quantity for 'lemons': 2 instead of 3",
        "missing from the reply: 'light bulb'",
        "unexpected entries: 'candle'",
        "items present 2/3, right quantities 1/3, nothing unexpected no: score 0.333",
        "paper profile",
    )
    wrapped = score_shopping(EXPECTED, json.dumps({"shopping_list": []}), "paper")
    assert wrapped.reasons[0] == "read the list under the property 'shopping_list' of a JSON object"
    rejected = score_shopping(EXPECTED, json.dumps({"shopping_list": []}), "official")
    assert rejected.reasons[0] == "not in the correct format: the reply parses to a JSON object, not a list"
    twice = score_shopping(
        EXPECTED, entries(("Lemon", 3), ("Lemon", 3), ("Apple", 2), ("Light Bulb", 1)), "official"
    )
    assert twice.reasons[-2] == "repeated entries counted more than once, as the reference does: capped at 1"
    assert (
        "not consolidated"
        in score_shopping(EXPECTED, entries(("Lemon", 3), ("Lemon", 3)), "paper").reasons[0]
    )
    assert "not JSON" in score_shopping(EXPECTED, "I don't know.", "paper").reasons[0]
    with pytest.raises(ValueError, match="unknown scoring profile"):
        score_shopping(EXPECTED, "[]", "strict")


def test_an_emptied_list() -> None:
    for profile in ("paper", "official"):
        assert score_shopping([], "[]", profile).value == 1
        assert score_shopping([], entries(("Lemon", 1)), profile).value == pytest.approx(2 / 3)
        assert score_shopping([], "I don't know.", profile).value == 0


# -- GoodAI definitions and results ---------------------------------------------------------------


@needs_goodai
def test_from_goodai_reads_the_published_definitions() -> None:
    pairs = published(SCENARIO, "Shopping")
    assert len(pairs) == 3
    for raw, definition in pairs:
        assert definition.questions == [raw["script"][-1]]
        assert definition.expected == raw["expected_responses"]
        assert definition.script[0].wait == {"percentage_finished": 15.0} and definition.script[-1].wait == {}
        assert definition.reset_message == RESET_MESSAGE
        assert TestDefinition.from_dict(json.loads(definition.to_json())) == definition
        for profile in ("paper", "official"):
            assert score_shopping(definition.expected, definition.ideal_answers[0], profile).value == 1
            assert score_shopping(definition.expected, "I don't know.", profile).value == 0


@needs_goodai
def test_agreement_with_the_stored_verdicts() -> None:
    """The 9 stored Shopping results of Benchmark 3 (gpt-4o 1k and 32k isolated, Mixtral 1k).

    official 9/9 and paper 9/9 (none carries a hand correction; none uses a wrapper object, a
    repeated item or a substring-only name, where the profiles differ).  The stored scores are
    the reference's raw score / max_score, e.g. Mixtral's invented list that gets only milk right,
    with the wrong quantity: (1/5 + 0 + 0) / 3 = 0.067.
    """

    def verdict(stored: dict[str, Any], profile: str) -> float:
        assert "auto_score" not in stored
        return score_shopping(stored["expected_responses"], stored["actual_responses"][-1], profile).value

    assert stored_agreement("Shopping", verdict) == (9, {"paper": 9, "official": 9})
