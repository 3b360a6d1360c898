"""The stale-fact rate: a superseded value reaching what the answer was given, and the answer asserting it.

Per item (`contract/stale.py`) on replies a right and a stale answer give; over a run
(`results/stale.py`) by counting; and a whole LTM colours run with an agent that answers with the
first colour it was told, against `oracle`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.contract.stale import stale_details, superseded_values
from pytest_memorybench.results.stale import stale_lines, stale_rate
from pytest_memorybench.scenarios.ltm.colours import SCENARIO as COLOURS
from pytest_memorybench.scenarios.ltm.conflicting_personal_information import SCENARIO as CONFLICTING
from pytest_memorybench.scenarios.ltm.name_list import SCENARIO as NAME_LIST
from pytest_memorybench.scenarios.ltm.shopping import SCENARIO as SHOPPING
from tests.support.runs import results_in
from tests.support.stale import stuck_agent

pytest_plugins = ["pytester"]


class ChangedAddress:
    """A scenario whose answer replaced one address."""

    name, skills = "mine.address", ()

    def superseded(self, definition: Any) -> list[str]:
        return ["12 Elm Street"]


def test_the_colours_a_question_replaced_are_read_from_its_script() -> None:
    definition = COLOURS.generate("ltm", {"colour_changes": 4}, 3, 0)
    stated = [line.text for line in definition.script if not line.is_question]
    values = superseded_values(COLOURS, definition)
    assert values and definition.expected not in values
    assert all(any(value in line for line in stated[:-1]) for value in values)
    assert superseded_values(object(), definition) == []  # type: ignore[arg-type]


def test_the_facts_a_user_corrected_are_read_from_the_message() -> None:
    definition = CONFLICTING.generate("ltm", {"facts": 8, "changes": 8, "questions": 8}, 1, 0)
    message = definition.script[0].text
    values = superseded_values(CONFLICTING, definition)
    assert len(values) >= 6  # eight corrected, less any "tennis" that became "table tennis"
    assert "scratch that about" in message and all(value in message for value in values)
    assert not set(values) & set(definition.expected), "no corrected value is an answer"


def test_earlier_repetitions_names_are_superseded_for_a_later_one() -> None:
    first, third = NAME_LIST.generate("ltm", {}, 0, 1), NAME_LIST.generate("ltm", {}, 0, 3)
    second = NAME_LIST.generate("ltm", {}, 0, 2)
    assert superseded_values(NAME_LIST, first) == []  # nothing came before the first
    assert superseded_values(NAME_LIST, third) == [*first.expected, *second.expected]


def test_items_taken_off_the_shopping_list_are_superseded_in_both_forms() -> None:
    made = (SHOPPING.generate("ltm", {"item_changes": 10}, seed, 1) for seed in range(40))
    definition = next(one for one in made if superseded_values(SHOPPING, one))  # a removal is 1 in 6
    said = " ".join(line.text for line in definition.script).lower()
    kept = {name for name, _ in definition.expected}
    values = superseded_values(SHOPPING, definition)
    assert values and not set(values) & kept and all(value in said for value in values[1::2])  # plurals said


def test_an_answer_rejecting_the_old_value_does_not_assert_it() -> None:
    def stale(reply: str, evidence: dict[str, Any] | None = None) -> dict[str, Any]:
        details = stale_details(ChangedAddress(), None, [reply], {"evidence": evidence} if evidence else {})  # type: ignore[arg-type]
        return details["stale"]

    assert stale("You live at 4 Oak Lane, not 12 Elm Street.") == {
        "superseded": ["12 Elm Street"],
        "reached": None,  # the agent showed nothing of what it was given
        "asserted": False,
    }
    assert stale("12 Elm Street.") == {
        "superseded": ["12 Elm Street"],
        "reached": None,
        "asserted": True,
        "clause": "12 Elm Street.",
    }
    searched = {"recall": 1.0, "stale_reached": True}
    assert stale("4 Oak Lane.", searched)["reached"] is True
    prompt = {**searched, "context": {"recall": 1.0, "stale_reached": False}}
    assert stale("4 Oak Lane.", prompt)["reached"] is False  # the prompt, when shown, is what counts


def test_a_scenario_without_superseded_values_adds_nothing() -> None:
    assert stale_details(object(), None, ["anything"], {"evidence": {"recall": 1.0}}) == {  # type: ignore[arg-type]
        "evidence": {"recall": 1.0}
    }


def test_the_rate_counts_the_questions_and_those_that_showed_their_context() -> None:
    def item(asserted: bool, reached: bool | None, score: float | None = 1.0) -> Any:
        return {
            "score": score,
            "details": {"stale": {"superseded": ["red"], "asserted": asserted, "reached": reached}},
        }

    rate = stale_rate(
        [item(True, True), item(False, True), item(False, None), item(True, True, None), {"score": 1.0}]
    )
    assert rate == {
        "questions": 3,
        "asserted": 1,
        "asserted_rate": 0.333333,
        "reached_questions": 2,
        "reached": 2,
        "reached_rate": 1.0,
    }
    assert stale_lines(rate) == [
        "stale facts: 1 of 3 answers (33%) assert a superseded value, negation-aware",
        "  one reached what the answer was given in 2 of 2 (100%)",
    ]
    assert stale_rate([{"score": 1.0, "details": {}}]) is None and stale_lines(None) == []  # type: ignore[list-item]


STUCK_AGENT = stuck_agent(
    '"|".join(COLOURS)',
    "Your favourite colour is {}.",
    imports="from pytest_memorybench.scenarios.ltm.colours import COLOURS",
)


@pytest.mark.e2e
@pytest.mark.parametrize(("agent", "asserted"), [("stuck:Stuck", 1.0), ("oracle", 0.0)])
def test_a_run_counts_the_answers_that_gave_an_old_colour(
    pytester: pytest.Pytester, agent: str, asserted: float
) -> None:
    pytester.makepyfile(stuck=STUCK_AGENT)
    run = pytester.path / "run"
    options = ["--span=isolated", "-k", "colours", "-p", "no:cacheprovider", f"--mb-output={run}"]
    result = pytester.runpytest("--memorybench", f"--agent={agent}", *options)
    results = results_in(Path(run))
    stale = results["totals"]["stale_facts"]
    assert stale["questions"] == 3 and stale["asserted_rate"] == asserted, result.stdout.str()
    assert results["scenarios"]["ltm.colours"]["stale_facts"] == stale
    result.stdout.fnmatch_lines(
        [f"stale facts: {int(3 * asserted)} of 3 answers * assert a superseded value*"]
    )
