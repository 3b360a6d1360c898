"""Restaurant (GoodAI App. A.8): the dynamic scene, its five gates under both profiles, the offline
judge on the oracle's diner lines, and calibration through the engine."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_memorybench.agents.reference.null import NullAgent
from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.program import Finish, ProgramContext, Say, Wait
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message, Score, TestDefinition
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.scenarios.ltm.restaurant import DEFAULT_MENU, RESET_MESSAGE, SCENARIO, SETUP
from pytest_memorybench.scenarios.ltm.restaurant_reading import diner_part, read_order
from tests.support.engine import converse
from tests.support.ltm import goodai_definitions, needs_goodai


def generate(seed: int = 0, repetition: int = 1) -> TestDefinition:
    return SCENARIO.generate("ltm", {}, seed, repetition)


async def play(
    definition: TestDefinition, diner, profile: str = "paper"
) -> tuple[Score, list[tuple[object, str | None]]]:
    """Run the program by hand; `diner(say)` answers questions.  Returns the score and the actions."""
    program = SCENARIO.program(definition, ProgramContext(SimulatedClock(), ScoringContext(profile=profile)))
    reply: str | None = None
    log: list[tuple[object, str | None]] = []
    while True:
        action = await program.asend(reply)
        reply = None
        if isinstance(action, Say):
            reply = diner(action) if action.is_question else "Noted."
        elif isinstance(action, Finish):
            await program.aclose()
            return action.score, log
        log.append((action, reply))


def score(replies: Sequence[str], profile: str = "paper", definition: TestDefinition | None = None) -> Score:
    return asyncio.run(
        SCENARIO.score(definition or generate(), list(replies), ScoringContext(profile=profile))
    )


def test_registered_under_its_name() -> None:
    assert get_scenario("ltm.restaurant") is SCENARIO and hasattr(SCENARIO, "program")
    assert SCENARIO.skills == ("conflicting_information", "information_integration")


def test_our_menu_has_sections_numbers_and_drinks() -> None:
    definition = generate()
    menu_text = definition.script[1].text
    assert definition.script[0].text == SETUP and definition.script[1].is_question
    assert menu_text.startswith("Waiter: ") and menu_text.rstrip().endswith("?")
    assert (
        len(DEFAULT_MENU.sections) >= 5 and len(DEFAULT_MENU.dishes) >= 20 and len(DEFAULT_MENU.drinks) >= 5
    )
    assert len(set(DEFAULT_MENU.dishes)) == len(DEFAULT_MENU.dishes)
    for number, item in enumerate(DEFAULT_MENU.numbered(), 1):
        assert f"\n{number}. {item}\n" in menu_text + "\n"
    assert definition.reset_message == RESET_MESSAGE
    with pytest.raises(UsageError, match="unknown parameter"):
        SCENARIO.generate("ltm", {"dishes": 3}, 0, 1)


def test_the_scene_follows_the_reference_flow() -> None:
    score_, log = asyncio.run(play(generate(), lambda say: say.ideal))
    assert score_.value == 1.0 and score_.reasons[0] == "5 of 5 stages passed"
    waits = [action.percentage for action, _ in log if isinstance(action, Wait)]
    assert waits == [20.0, 40.0, 60.0, 80.0, 90.0]
    says = [action for action, _ in log if isinstance(action, Say)]
    assert says[0].text == SETUP and says[-1].text == RESET_MESSAGE
    questions = [say.text for say in says if say.is_question]
    assert len(questions) == 5 and all(text.startswith("Waiter: ") for text in questions)
    assert "drink" in questions[0] and "eat" in questions[1] and "not available" in questions[2]
    assert "Here you are" in questions[3] and "What were you having?" in questions[4]
    statements = [say.text for say in says if not say.is_question]
    assert [text.split(" ")[1] for text in statements[1:4]] == ["Excellent", "Spinach", "My"]


@pytest.mark.parametrize(("seed", "repetition"), [(seed, rep) for seed in range(12) for rep in (1, 2, 3)])
def test_the_oracle_passes_every_stage_and_null_none(seed: int, repetition: int) -> None:
    definition = generate(seed, repetition)
    for profile in ("paper", "official"):
        assert asyncio.run(play(definition, lambda say: say.ideal, profile))[0].value == 1.0
        assert asyncio.run(play(definition, lambda say: "I don't know.", profile))[0].value == 0.0


def test_the_offline_judge_reads_every_ideal_order() -> None:
    """Every dish, pair of dishes and drink, said as the oracle says it, is read exactly."""
    judge = LocalJudge()
    for first, second in itertools.permutations(DEFAULT_MENU.dishes, 2):
        order = asyncio.run(
            read_order(
                judge,
                f"I'll have the {first.lower()} and the {second.lower()}, please.",
                DEFAULT_MENU,
                scorer="test",
            )
        )
        assert (set(order.dishes), order.drinks, order.off_menu) == ({first, second}, [], []), (first, second)
    for drink in DEFAULT_MENU.drinks:
        order = asyncio.run(
            read_order(judge, f"I'd like a {drink.lower()}, please.", DEFAULT_MENU, scorer="test")
        )
        assert (order.dishes, order.drinks, order.off_menu) == ([], [drink], [])


def test_replies_are_read_without_stage_directions_or_invented_waiter_turns() -> None:
    assert diner_part("*closes the menu* I'd like a lemonade. [smiles]") == ("I'd like a lemonade.", False)
    assert diner_part("Diner: **Ginger beer**, please.") == ("Ginger beer, please.", False)
    assert diner_part("A lemonade.\nWaiter: Certainly!\nDiner: Thanks.") == ("A lemonade.", True)


# Seed 0, repetition 1: the waiter declares the Wild Mushroom Risotto unavailable, then serves the
# Linguine with Prawns and Chilli instead of the Spinach and Ricotta Ravioli; see the reasons asserted.
DRINK = "I'd like a ginger beer, please."
FOOD = "I'll have the nicoise salad with seared tuna and the wild mushroom risotto, please."
OTHER = "In that case I'll have the ravioli, please."
NOTICE = "Excuse me, I asked for the spinach and ricotta ravioli, not the linguine."
RECALL = "I was drinking a ginger beer."


@pytest.mark.parametrize(
    ("replies", "paper", "official", "why"),
    [
        ([DRINK, FOOD, OTHER, NOTICE, RECALL], 1.0, 1.0, "a perfect diner"),
        (
            ["*looks over the menu* Could I get number 33?", FOOD, OTHER, NOTICE, "Ginger beer."],
            1.0,
            1.0,
            "a stage direction is ignored; 'number 33' is the Ginger Beer",
        ),
        (
            ["I'll have a lemonade and the wild mushroom risotto."],
            0.0,
            0.2,
            "food ordered with the drink: the paper wants no meal yet, the reference keeps the drink",
        ),
        (
            ["A homemade lemonade, please.\nWaiter: Right away!\nDiner: Thanks."],
            0.0,
            0.0,
            "the diner invents the waiter's lines (App. D: Mixtral)",
        ),
        (["A cappuccino, please."], 0.0, 0.0, "no drink from the list"),
        (["I don't know."], 0.0, 0.0, "the null agent"),
        (
            [
                DRINK,
                "Thank you for the ginger beer! I'll have the wild mushroom risotto.",
                OTHER,
                NOTICE,
                RECALL,
            ],
            1.0,
            1.0,
            "'Thank you for the <drink>' is not an order (PR #92)",
        ),
        ([DRINK, "I'll have a pepperoni pizza."], 0.2, 0.2, "off the menu"),
        ([DRINK, "What do you recommend?"], 0.2, 0.2, "a question orders nothing"),
        (
            [
                DRINK,
                FOOD,
                "I'll keep the nicoise salad with seared tuna and have the ravioli instead.",
                NOTICE,
                RECALL,
            ],
            1.0,
            0.4,
            "mentioning a dish already ordered: the paper tolerates it, the reference reads it as a re-order",
        ),
        (
            [
                DRINK,
                FOOD,
                (
                    "Thanks for the nicoise salad with seared tuna! Instead of the risotto, I'll have the"
                    " ravioli."
                ),
                NOTICE,
                RECALL,
            ],
            1.0,
            1.0,
            "a dish thanked for or replaced is not a re-order, under either profile",
        ),
        (
            [DRINK, FOOD, "Then I'll have the wild mushroom risotto anyway."],
            0.4,
            0.4,
            "re-orders the unavailable dish",
        ),
        ([DRINK, FOOD, "No problem."], 0.4, 0.4, "orders nothing instead"),
        (
            ["Good evening! Our iced peach tea is very popular tonight. What can I get you?"],
            0.0,
            0.0,
            "the agent plays the waiter: it orders nothing, whatever it names",
        ),
        (
            [DRINK, "I'll have the ribeye steak, but with chips instead of the peppercorn sauce."],
            0.2,
            0.2,
            "a dish with other sides than the menu lists is not on the menu",
        ),
        (
            [
                DRINK,
                FOOD,
                "In that case I'll have the ravioli, and I'd still like the nicoise salad with seared tuna.",
                NOTICE,
                RECALL,
            ],
            1.0,
            0.4,
            "ordering again: the reference fails it, the paper tolerates it",
        ),
        (
            [
                DRINK,
                FOOD,
                "In that case I'll have the ravioli. Please bring the nicoise salad as originally planned.",
                NOTICE,
                RECALL,
            ],
            1.0,
            1.0,
            "pointing back at the order already given is no new order",
        ),
        (
            ["I'd like the Tagliatelle with Slow-Cooked Beef Ragu and a House Red Wine."],
            0.0,
            0.2,
            "a meal with the drink: the paper wants no meal yet, the reference keeps the drink",
        ),
        (
            [DRINK, FOOD, OTHER, "Thank you, it all looks delicious!"],
            0.6,
            0.6,
            "the enthusiastic thank-you (Fig. 34)",
        ),
        (
            [DRINK, FOOD, OTHER, "Where is my ravioli? This isn't what I ordered.", RECALL],
            1.0,
            1.0,
            "a plain complaint",
        ),
        (
            [DRINK, FOOD, OTHER, "Hmm, this is not the spinach and ricotta ravioli in sage butter.", RECALL],
            1.0,
            1.0,
            "noticing without complaining",
        ),
        ([DRINK, FOOD, OTHER, NOTICE, "I had a homemade lemonade."], 0.8, 0.8, "recalls the wrong drink"),
        ([DRINK, FOOD, OTHER, NOTICE, "I don't remember, sorry."], 0.8, 0.8, "forgets the drink"),
        ([DRINK, FOOD, OTHER, NOTICE], 0.8, 0.8, "no reply to the last question"),
    ],
)
def test_stage_verdicts_under_both_profiles(
    replies: list[str], paper: float, official: float, why: str
) -> None:
    assert score(replies, "paper").value == pytest.approx(paper), why
    assert score(replies, "official").value == pytest.approx(official), why


def test_reasons_name_each_stage() -> None:
    result = score([DRINK, FOOD, OTHER, "Lovely, thanks!"])
    assert result.reasons == (
        "3 of 5 stages passed",
        "passed stage 1 (drink): the diner orders Ginger Beer",
        "passed stage 2 (food): the diner orders Nicoise Salad with Seared Tuna and Wild Mushroom Risotto",
        (
            "passed stage 3 (alternative to the Wild Mushroom Risotto): the diner orders Spinach and Ricotta"
            " Ravioli in Sage Butter"
        ),
        (
            "failed stage 4 (wrong dish): the diner does not notice that the Linguine with Prawns and Chilli "
            "was served instead of the Spinach and Ricotta Ravioli in Sage Butter"
        ),
    )


class ScriptedJudge:
    """A stand-in for an LLM judge: fixed verdicts per task kind, and a record of the tasks."""

    name = "scripted"

    def __init__(self, verdicts: dict[str, list[dict]]) -> None:
        from pytest_memorybench.judges.base import JudgeStats

        self.stats = JudgeStats()
        self.verdicts = {kind: list(items) for kind, items in verdicts.items()}
        self.tasks: list[object] = []

    async def judge(self, task):  # type: ignore[no-untyped-def]
        from pytest_memorybench.judges.base import JudgeVerdict

        self.tasks.append(task)
        return JudgeVerdict(task.kind, self.verdicts[task.kind].pop(0))


def test_the_runs_judge_is_used_and_its_names_are_mapped_to_the_menu() -> None:
    judge = ScriptedJudge(
        {
            "restaurant": [
                {"dishes": [], "drinks": ["ginger beer"], "other": None},
                {"dishes": ["wild mushroom risotto", "Nicoise salad"], "drinks": [], "other": None},
                {"dishes": ["Ravioli with spinach and ricotta"], "drinks": [], "other": None},
            ],
            "sentence": [{"present": False, "extracted": None}],
            "reference": [{"refers": True, "expected_is_number": False, "numbers_match": None}] * 2,
        }
    )
    context = ScoringContext(judge=judge)
    result = asyncio.run(SCENARIO.score(generate(), ["a", "b", "c", "d", "e"], context))
    assert result.value == 1.0, result.reasons
    assert [task.kind for task in judge.tasks] == ["restaurant"] * 3 + ["sentence", "reference", "reference"]
    assert (
        "Wild Mushroom Risotto" in result.reasons[2] and "Nicoise Salad with Seared Tuna" in result.reasons[2]
    )
    unknown = ScriptedJudge(
        {
            "restaurant": [
                {"dishes": [], "drinks": ["Ginger Beer"], "other": None},
                {"dishes": ["Truffle Pizza"], "drinks": [], "other": None},
            ]
        }
    )
    result = asyncio.run(SCENARIO.score(generate(), ["a", "b"], ScoringContext(judge=unknown)))
    assert result.value == 0.2 and "not on the menu (Truffle Pizza)" in result.reasons[-1]


# -- calibration through the engine -------------------------------------------------------------


class Recording:
    def __init__(self, agent: object) -> None:
        self.agent = agent
        self.sent: list[str] = []

    async def prime_answer(self, ideal: str) -> None:
        await self.agent.prime_answer(ideal)  # type: ignore[attr-defined]

    async def reply(self, message: Message) -> str:
        self.sent.append(message.text)
        return await self.agent.reply(message)  # type: ignore[attr-defined]


def run_engine(
    definitions: list[TestDefinition], agent: object, span: int | None, tmp_path: Path
) -> dict[str, Score]:
    outcomes = converse(definitions, agent, span=span, tmp_path=tmp_path)
    return {key: outcome.score for key, outcome in outcomes.items()}


@pytest.mark.parametrize("span", [None, 2000])
def test_calibration_oracle_scores_one_and_null_zero(span: int | None, tmp_path: Path) -> None:
    definitions = [generate(7, repetition) for repetition in (1, 2, 3)]
    oracle = Recording(OracleAgent())
    assert {score.value for score in run_engine(definitions, oracle, span, tmp_path).values()} == {1.0}
    assert oracle.sent.count(RESET_MESSAGE) == 3
    assert {score.value for score in run_engine(definitions, NullAgent(), span, tmp_path).values()} == {0.0}


@needs_goodai
def test_from_goodai_definitions_run_our_scene(tmp_path: Path) -> None:
    """GoodAI's Restaurant definitions are empty (the scene is made live): each becomes our scene."""
    definitions = []
    for repetition, path in enumerate(goodai_definitions("Restaurant"), 1):
        raw = json.loads(path.read_text())
        assert raw["script"] == [] and raw["expected_responses"] == []
        definition = SCENARIO.from_goodai(raw, path.name.removesuffix(".def.json"), "goodai", repetition)
        assert definition.params == {"goodai_example": path.name.removesuffix(".def.json")}
        assert definition.expected == generate(0, repetition).expected
        definitions.append(definition)
    assert len(definitions) == 3
    assert {score.value for score in run_engine(definitions, OracleAgent(), None, tmp_path).values()} == {1.0}
