"""The scoring rules of GoodAI's Benchmarks 1 and 2, applied under the official profile to their files."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.scenarios.ltm.name_list import score_names_v1, score_names_v2
from pytest_memorybench.scenarios.ltm.prospective_memory import score_replies
from pytest_memorybench.scenarios.ltm.sallyanne import SCENARIO as SALLYANNE
from pytest_memorybench.scenarios.ltm.shopping import SCENARIO as SHOPPING
from pytest_memorybench.scenarios.ltm.shopping import score_shopping_older

NAMES = ["Orla", "Benedict", "Sunniva"]


def test_benchmark_1_names_count_every_expected_name_the_reply_mentions() -> None:
    verdict = score_names_v1(NAMES, "You were Orla first, then Benedict; I forget the third.")
    assert verdict.value == pytest.approx(2 / 3)
    assert verdict.reasons == ("2 of 3 names were found in the reply", "missing from the reply: 'Sunniva'")


def test_benchmark_2_names_take_a_point_off_for_every_unexpected_or_repeated_name() -> None:
    assert score_names_v2(NAMES, '["Orla", "Benedict", "Sunniva"]').value == 1.0
    assert score_names_v2(NAMES, '["Orla", "Benedict", "Marek"]').value == pytest.approx(1 / 3)  # 2 − 1
    assert score_names_v2(NAMES, '["Orla", "Orla", "Orla"]').value == 0.0  # 1 − 2, at least 0
    assert score_names_v2(NAMES, "Orla, Benedict and Sunniva").value == 0.0  # not a JSON list


def test_older_shopping_counts_right_quantities_and_benchmark_2_penalises_unknown_items() -> None:
    expected = [["pear", 2], ["rice", 1]]
    reply = (
        '[{"item": "Pears", "quantity": 2}, {"item": "rice", "quantity": 3}, {"item": "soap", "quantity": 1}]'
    )
    assert score_shopping_older(expected, reply, penalise_unknown=False).value == pytest.approx(1 / 2)
    assert score_shopping_older(expected, reply, penalise_unknown=True).value == 0.0


def test_the_older_prospective_memory_rule_also_watches_the_reply_after_the_nth() -> None:
    replies = ["Sure.", "Noted.", "'Tide waits for no one.'", "As I said: 'Tide waits for no one.'"]
    assert score_replies("Tide waits for no one.", 3, replies, "official").value == 1.0
    later = score_replies("Tide waits for no one.", 3, replies, "official", after=1)
    assert later.value == 0.0 and "also in the 4th" in later.reasons[0]


def test_the_profile_and_the_files_benchmark_choose_the_rule() -> None:
    definition = SHOPPING.generate("ltm", {"item_changes": 3}, 0, 1)
    wrong_item = '[{"item": "spanner", "quantity": 1}]'
    official = ScoringContext("official")
    older = dataclasses.replace(definition, params={**definition.params, "goodai_format": 2})
    assert SHOPPING.score(older, [wrong_item], official).reasons[-1] == "official profile, Benchmark 2 rule"
    assert SHOPPING.score(older, [wrong_item], ScoringContext("paper")).reasons[-1] == "paper profile"
    assert SHOPPING.score(definition, [wrong_item], official).reasons[-1] == "official profile"


def test_benchmark_1_sally_anne_is_judged_by_the_checklist_not_by_its_json() -> None:
    definition = SALLYANNE.generate("ltm", {}, 0, 1)
    answer = definition.expected["answer"]
    reply = f"I think they will look in the {answer} first."
    assert SALLYANNE.score(definition, [reply], ScoringContext("official")).value == 0.0  # v3 wants JSON
    older = dataclasses.replace(definition, params={**definition.params, "goodai_format": 1})
    verdict = asyncio.run(SALLYANNE.score(older, [reply], ScoringContext("official")))  # type: ignore[arg-type]
    assert verdict.value == 1.0 and verdict.reasons[0].startswith("question 1: right")
