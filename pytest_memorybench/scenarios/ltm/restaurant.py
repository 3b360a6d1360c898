"""Restaurant (skills conflicting information, information integration): a dinner that goes wrong.

GoodAI paper App. A.8 (flowchart Fig. 16) and the reference flow (research/goodai.md §2): a dynamic
test in which the benchmark plays a waiter and the agent a diner.  Each waiter line depends on the
previous reply, so the definition holds only the opening (setup and menu) and the plan's facts;
`program` runs the scene:

  setup   the agent is asked to answer the "Waiter: …" lines as a diner; wait until 20 % of the span.
  1 drink the waiter greets, hands over OUR menu (28 dishes in seven sections, then six drinks,
          numbered globally) and asks for a drink; the diner must order a drink.  Wait until 40 %.
  2 food  "Here is your <drink>. What would you like to eat?"; every dish must be on the menu (an
          item on neither list fails, as an off-menu order does in the reference).  The waiter
          confirms ("Excellent choice! …", not a question).  Wait until 60 %.
  3 again one ordered dish is unavailable; the diner must order an alternative from the menu that
          was not ordered before.  The waiter confirms.  Wait until 80 %.
  4 notice one ordered dish is served swapped for another dish of the same menu section; the diner
          must notice.  The waiter apologises.  Wait until 90 %.
  5 recall the right dish arrives with a free drink on the house: "What were you having?"; the diner
          must recall the first drink order.
Each passed stage earns a point; the first failed stage ends the scene (the paper: "a failure at
any point breaks the narrative"), and the score is points / 5 — the paper's partial credit is this
count of stages passed, never a fraction of a stage.  The reset statement ends every scene.

Reading the replies.  Before any reading, stage directions ("*smiles*", "[looks at the menu]")
and a "Diner:" label are removed, and a reply that goes on to write the waiter's lines is read only
up to the first "Waiter:" turn; "number 17" / "#17" is read as menu item 17.  Orders are read with
the judge's `restaurant` task (what the reply orders, as menu and drink names; things declined,
asked about or thanked for — "Thank you for the lemonade", GoodAI PR #92 — are not orders).
Stage 4 counts as noticed when the reply has a plain mix-up cue ("not what I ordered", "wrong
dish", "I asked for the …", "mix-up"), else when the judge finds the sentence "This is not what I
ordered." (`sentence` task) or a reference to the dish really ordered (`reference` task).  Stage 5
asks the judge whether the reply refers to the drink(s) ordered in stage 1 (`reference` task).
The judge is `context.scoring.judge`, or the offline `LocalJudge` when there is none.

Profiles (the paper's text vs the reference code):
  paper     stage 1 passes only if the reply orders drinks and no dish ("If the agent orders a drink
            (but no meal yet), the test continues"), and the diner must not speak for the waiter
            (App. D: hallucinated waiter turns are failures).  Stage 3 passes when at least one new
            menu dish is ordered; already-ordered dishes that the reply merely mentions again are
            not held against it (App. B.1: such mentions were the judge's most common false failure,
            corrected by hand).
  official  stage 1 keeps the drinks and ignores any food ordered with them (`extract_drink_order`);
            the role check applies too (the reference's `check_role_following`).  Stage 3 fails when
            any already-ordered dish is read as ordered again (`repeated_items`).
Both profiles ignore drinks ordered in stage 2 (the reference skips `is_drink` items there).

Deviations from the reference, all deliberate: our own menu, wording and setup sentence; the
wrong-dish swap never serves the unavailable dish or another ordered one; the waiter's choices are
seeded (`seeded(NAME, seed, repetition)`, with the replies they depend on), so a
scene replays identically — which is also how `score` re-scores stored replies: it runs the scene
again, feeding them in order.

Known limits of the offline judge here (an LLM judge does better; the paper's GPT-4 had them too,
App. D): a dish only talked about ("the risotto sounds great, but first a ginger beer") is read as
ordered, so under the paper profile stage 1 fails; paraphrased complaints without any cue word and
without naming the ordered dish ("Hmm, I'm not sure this is right") are not noticed.

Calibration: the oracle is primed at each waiter question with what a perfect diner says ("I'd
like a homemade lemonade, please.", "I'll have the … and the …, please.", "In that case, I'll
have the …, please.", "Sorry, that's not what I ordered: I asked for the …, not the ….", "I was
having the homemade lemonade."), which passes every stage (1.0); the null agent's "I don't know."
orders nothing and scores 0.
"""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from pytest_memorybench.contract import program as actions
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.program import ProgramContext, TestProgram
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.core.text import fold
from pytest_memorybench.judges.base import Judge
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.ltm.goodai_format import GoodAIDefinitionFile, StoredTest
from pytest_memorybench.scenarios.ltm.restaurant_reading import (
    Menu,
    breaks_role,
    diner_part,
    enumerate_items,
    noticed_mixup,
    read_order,
    recalls_drinks,
)
from pytest_memorybench.scenarios.opening import seeded
from pytest_memorybench.scenarios.params import read_params
from pytest_memorybench.scoring.profiles import OFFICIAL

NAME = "ltm.restaurant"
SKILLS = ("conflicting_information", "information_integration")
STAGES = 5

MENU: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Starters", (
        "Roasted Beetroot and Goat Cheese Tartlet",
        "Smoked Trout Pate with Rye Crackers",
        "Crispy Sesame Cauliflower Bites",
        "Chilled Cucumber Gazpacho",
    )),
    ("Soups", (
        "Velvet Pumpkin Soup",
        "Hearty Minestrone with Parmesan",
        "Spiced Red Lentil Soup",
        "Creamy Leek and Potato Soup",
    )),
    ("Salads", (
        "Warm Halloumi and Watermelon Salad",
        "Chicken Caesar with Garlic Croutons",
        "Quinoa, Kale and Pomegranate Bowl",
        "Nicoise Salad with Seared Tuna",
    )),
    ("From the Grill", (
        "Ribeye Steak with Peppercorn Sauce",
        "Lemon and Thyme Chicken",
        "Grilled Sea Bass with Salsa Verde",
        "Lamb Kofta with Minted Yoghurt",
    )),
    ("Pasta and Risotto", (
        "Wild Mushroom Risotto",
        "Tagliatelle with Slow-Cooked Beef Ragu",
        "Linguine with Prawns and Chilli",
        "Spinach and Ricotta Ravioli in Sage Butter",
    )),
    ("Vegetarian Plates", (
        "Stuffed Aubergine with Feta",
        "Sweet Potato and Chickpea Curry",
        "Black Bean Burger with Chipotle Mayo",
        "Roasted Vegetable Moussaka",
    )),
    ("Desserts", (
        "Sticky Toffee Pudding with Custard",
        "Dark Chocolate Fondant",
        "Passion Fruit Posset with Shortbread",
        "Vanilla Panna Cotta with Berries",
    )),
)  # fmt: skip
DRINKS = (
    "Homemade Lemonade", "Iced Peach Tea", "Sparkling Mineral Water", "Fresh Orange Juice",
    "Ginger Beer", "House Red Wine",
)  # fmt: skip
STARTER_SECTIONS = ("Starters", "Soups", "Salads")
MAIN_SECTIONS = ("From the Grill", "Pasta and Risotto", "Vegetarian Plates")

SETUP = (
    "Let's play a scene. When I speak as the waiter (like 'Waiter: Are you ready to order?'), you answer as a"
    " guest dining at the restaurant would. Answer the waiter directly and stay in the scene. Is that clear?"
)
GREETING = (
    "Waiter: Good evening, and welcome to our restaurant. Here is the menu, take your time with it:\n\n"
    "{menu}\n\nWhile you decide, what can I bring you to drink?"
)
FOOD = "Waiter: Here is your {drinks}. And what would you like to eat?"
CONFIRM = "Waiter: Excellent choice! {order} coming right up."
UNAVAILABLE = (
    "Waiter: I'm terribly sorry, but the kitchen has just told me that the {dish} is not available "
    "tonight. Can I bring you something else instead?"
)
RECONFIRM = "Waiter: {order} it is, then. Sorry again for the trouble."
SERVE = "Waiter: Here you are: {order}. Enjoy your meal!"
APOLOGY = "Waiter: My apologies, I will put that right at once."
FREE_DRINK = (
    "Waiter: Here it is: the {dish}, just as you ordered.\n"
    "To make up for the mix-up, your next drink is on the house. What were you having?"
)
RESET_MESSAGE = "We can stop playing restaurant now. Please also forget everything about that dinner."
WAITS = (20.0, 40.0, 60.0, 80.0, 90.0)

_EPOCH = datetime(2026, 1, 1, 19, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class RestaurantParams:
    """The paper gives the Restaurant test no parameters; the menu and the flow are fixed."""


DEFAULT_MENU = Menu(MENU, DRINKS)


@dataclass(frozen=True)
class Stage:
    """One stage's verdict; `items` are what the diner ordered there (drinks or dishes)."""

    passed: bool
    reason: str
    items: tuple[str, ...] = ()


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


async def drink_stage(judge: Judge, reply: str, menu: Menu, official: bool) -> Stage:
    """Stage 1: a drink, and (paper) nothing to eat yet; never the waiter's lines, never out of role."""
    text, plays_waiter = diner_part(reply)
    order = await read_order(judge, text, menu, scorer=NAME)
    drinks = order.all_drinks if official else order.drinks
    failure = None
    if plays_waiter:
        failure = "the reply also speaks for the waiter instead of keeping to the diner's role"
    elif breaks_role(text):
        failure = "the reply steps out of the diner's role"
    elif order.error:
        failure = order.error
    elif not drinks:
        failure = "the diner orders no drink" if official else "the diner orders no drink from the list"
    elif order.dishes and not official:
        failure = f"the diner orders food ({enumerate_items(order.dishes)}) before being asked for it"
    if failure:
        return Stage(False, f"failed stage 1 (drink): {failure}")
    return Stage(True, f"passed stage 1 (drink): the diner orders {enumerate_items(drinks)}", tuple(drinks))


async def food_stage(judge: Judge, reply: str, menu: Menu) -> Stage:
    """Stage 2: dishes from the menu, and nothing off it (drinks ordered here are ignored)."""
    order = await read_order(judge, diner_part(reply)[0], menu, scorer=NAME)
    failure = order.error
    if not failure and order.off_menu:
        failure = f"the diner orders something not on the menu ({'; '.join(order.off_menu)})"
    elif not failure and not order.dishes:
        failure = "the diner orders no dish from the menu"
    if failure:
        return Stage(False, f"failed stage 2 (food): {failure}")
    return Stage(
        True, f"passed stage 2 (food): the diner orders {enumerate_items(order.dishes)}", tuple(order.dishes)
    )


async def alternative_stage(
    judge: Judge, reply: str, menu: Menu, ordered: Sequence[str], unavailable: str, official: bool
) -> Stage:
    """Stage 3: another dish from the menu instead of the unavailable one; where the waiter took a
    drink for the order and said that was unavailable (GoodAI's waiter does, from a reply that names
    no dish), another drink is an alternative too."""
    order = await read_order(judge, diner_part(reply)[0], menu, scorer=NAME)
    fresh = [dish for dish in order.dishes if dish not in ordered]
    if unavailable not in menu.dishes:
        gone = fold(unavailable)
        fresh += [drink for drink in order.all_drinks if gone not in fold(drink) and fold(drink) not in gone]
    repeated = [dish for dish in order.dishes if dish in ordered]
    failure = order.error
    if not failure and order.off_menu:
        failure = f"the diner orders something not on the menu ({'; '.join(order.off_menu)})"
    elif not failure and official and repeated:
        failure = f"the diner orders again what was already ordered ({enumerate_items(repeated)})"
    elif not failure and not fresh:
        failure = (
            f"the diner orders only what was already ordered ({enumerate_items(repeated)})"
            if repeated
            else "the diner orders no other dish from the menu"
        )
    if failure:
        return Stage(False, f"failed stage 3 (alternative to the {unavailable}): {failure}")
    return Stage(
        True,
        f"passed stage 3 (alternative to the {unavailable}): the diner orders {enumerate_items(fresh)}",
        tuple(fresh),
    )


async def notice_stage(judge: Judge, reply: str, ordered: str, served: str) -> Stage:
    """Stage 4: the diner notices that `served` came instead of `ordered`."""
    noticed, why = await noticed_mixup(judge, diner_part(reply)[0], ordered, served, scorer=NAME)
    return Stage(noticed, f"{'passed' if noticed else 'failed'} stage 4 (wrong dish): {why}")


async def recall_stage(judge: Judge, reply: str, drinks: Sequence[str]) -> Stage:
    """Stage 5: the diner recalls the drink(s) of stage 1."""
    drinks_text = enumerate_items(drinks)
    if await recalls_drinks(judge, diner_part(reply)[0], drinks_text, scorer=NAME):
        return Stage(True, f"passed stage 5 (free drink): the diner recalls the {drinks_text}")
    return Stage(False, f"failed stage 5 (free drink): the diner does not recall the {drinks_text}")


def verdict(stages: Sequence[Stage]) -> Score:
    """Points are the stages passed; the first failure ends the scene (the paper: it breaks the narrative)."""
    passed = sum(stage.passed for stage in stages)
    return Score(
        passed / STAGES, (f"{passed} of {STAGES} stages passed", *(stage.reason for stage in stages))
    )


class Restaurant:
    """`ltm.restaurant`: a restaurant scene acted out stage by stage, the order remembered throughout."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings = read_params(RestaurantParams, NAME, params)
        return _definition(suite, seed, repetition, asdict(settings))

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI Restaurant definition is empty (the scene is made live): ours, for seed 0."""
        return _definition(suite, 0, repetition, {"goodai_example": example_id})

    async def program(self, definition: TestDefinition, context: ProgramContext) -> TestProgram:
        """The scene, stage by stage; it ends with the reset statement and its own score."""
        stages: list[Stage] = []
        scene = self._scene(definition, context, stages)
        reply: str | None = None
        try:
            while True:
                try:
                    action = await scene.asend(reply)
                except StopAsyncIteration:
                    break
                reply = yield action
        finally:
            await scene.aclose()
        yield actions.Say(RESET_MESSAGE)
        yield actions.Finish(verdict(stages))

    async def _scene(
        self, definition: TestDefinition, context: ProgramContext, stages: list[Stage]
    ) -> TestProgram:
        """The waiter's lines up to the first failed stage; each stage's verdict goes to `stages`."""
        judge: Judge = context.scoring.judge or LocalJudge()
        official = context.scoring.profile == OFFICIAL
        expected = definition.expected
        menu = Menu.from_expected(expected)
        rng = seeded(NAME, definition.seed, definition.repetition)
        ideal_drink, ideal_dishes = expected["ideal_drink"], list(expected["ideal_dishes"])

        yield actions.Say(SETUP)
        yield actions.Wait(percentage=WAITS[0])
        reply = yield _ask(GREETING.format(menu=menu.text()), f"I'd like a {ideal_drink.lower()}, please.")
        stage = await drink_stage(judge, reply or "", menu, official)
        stages.append(stage)
        if not stage.passed:
            return
        drinks = list(stage.items)
        yield actions.Wait(percentage=WAITS[1])

        dishes = " and the ".join(dish.lower() for dish in ideal_dishes)
        reply = yield _ask(FOOD.format(drinks=enumerate_items(drinks)), f"I'll have the {dishes}, please.")
        stage = await food_stage(judge, reply or "", menu)
        stages.append(stage)
        if not stage.passed:
            return
        ordered = list(stage.items)
        yield actions.Say(CONFIRM.format(order=_capitalised(enumerate_items(ordered))))
        yield actions.Wait(percentage=WAITS[2])

        unavailable = rng.choice(ordered)
        alternative = _alternative(rng, menu, ordered, unavailable)
        reply = yield _ask(
            UNAVAILABLE.format(dish=unavailable),
            f"In that case, I'll have the {alternative.lower()}, please.",
        )
        stage = await alternative_stage(judge, reply or "", menu, ordered, unavailable, official)
        stages.append(stage)
        if not stage.passed:
            return
        fresh = list(stage.items)
        ordered = [dish for dish in ordered if dish != unavailable] + fresh
        yield actions.Say(RECONFIRM.format(order=_capitalised(enumerate_items(fresh))))
        yield actions.Wait(percentage=WAITS[3])

        true_dish, wrong_dish = _swap(rng, ordered, unavailable, menu)
        served = [wrong_dish if dish == true_dish else dish for dish in ordered]
        complaint = f"I asked for the {true_dish.lower()}, not the {wrong_dish.lower()}."
        reply = yield _ask(
            SERVE.format(order=enumerate_items(served)), f"Sorry, that's not what I ordered: {complaint}"
        )
        stage = await notice_stage(judge, reply or "", true_dish, wrong_dish)
        stages.append(stage)
        if not stage.passed:
            return
        yield actions.Say(APOLOGY)
        yield actions.Wait(percentage=WAITS[4])

        reply = yield _ask(
            FREE_DRINK.format(dish=true_dish), f"I was having the {enumerate_items(drinks).lower()}."
        )
        stages.append(await recall_stage(judge, reply or "", drinks))

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        """Play the scene again with these replies to the waiter's questions, in order."""
        program = self.program(definition, actions.ProgramContext(SimulatedClock(_EPOCH), context))
        answers = iter(responses)
        reply: str | None = None
        try:
            while True:
                action = await program.asend(reply)
                reply = None
                if isinstance(action, actions.Say):
                    reply = next(answers, "") if action.is_question else "Okay."
                elif isinstance(action, actions.Finish):
                    return action.score
        except StopAsyncIteration:
            return Score(0.0, ("the scene ended without a verdict",))
        finally:
            await program.aclose()

    async def rescore_goodai(
        self, definition: TestDefinition, stored: StoredTest, context: ScoringContext
    ) -> Score:
        """A scene GoodAI's runner played: its own menu, waiter lines and the diner's stored replies.

        The stages are judged as in our scene; where the published run stopped earlier than ours
        would (its judge failed a stage ours passes), the stages it never played count as not passed.
        """
        scene = StoredScene.read(stored)
        if scene is None:
            return Score(0.0, ("the stored log does not hold the restaurant scene",))
        judge: Judge = context.judge or LocalJudge()
        official = context.profile == OFFICIAL
        replies = list(stored.responses)
        stages = [await drink_stage(judge, replies[0], scene.menu, official)]
        checks: tuple[Callable[[str], Awaitable[Stage]], ...] = (
            lambda reply: food_stage(judge, reply, scene.menu),
            lambda reply: alternative_stage(
                judge, reply, scene.menu, scene.ordered, scene.unavailable, official
            ),
            lambda reply: notice_stage(judge, reply, scene.true_dish, scene.wrong_dish),
            lambda reply: recall_stage(judge, reply, [scene.drinks]),
        )
        for number, check in enumerate(checks, 2):
            if not stages[-1].passed:
                break
            if number > len(replies):
                stages.append(
                    Stage(False, f"stage {number} not reached: the published run stopped before it")
                )
                break
            stages.append(await check(replies[number - 1]))
        return verdict(stages)


@dataclass(frozen=True)
class StoredScene:
    """What GoodAI's waiter said in a stored scene, read from its lines."""

    menu: Menu
    drinks: str  # as the waiter named them: "Here is your <drinks>."
    ordered: tuple[str, ...]  # the dishes the waiter confirmed
    unavailable: str
    true_dish: str
    wrong_dish: str

    @classmethod
    def read(cls, stored: StoredTest) -> StoredScene | None:
        said = [message for message, _ in stored.exchanges()]
        greeting = next((text for text in said if re.search(r"^\s*\d+\.\s", text, re.MULTILINE)), None)
        if greeting is None:
            return None
        menu = Menu.from_text(greeting)

        def find(pattern: str) -> str:
            match = next((m for text in said if (m := re.search(pattern, text, re.DOTALL))), None)
            return match.group(1).strip() if match else ""

        def dishes(text: str) -> list[str]:
            lowered = text.lower()
            return [dish for dish in menu.dishes if dish.lower() in lowered]

        ordered = dishes(find(r"Excellent choice!\s*(.+?)\s*coming right up"))
        unavailable = find(r"that the (.+?) is currently unavailable")
        replaced = [dish for dish in ordered if dish.lower() != unavailable.lower()] + dishes(
            find(r"^Waiter:\s*(.+?) it is\.")
        )
        served = dishes(find(r"Here you are:\s*(.+?)\.\s*Enjoy"))
        true_dish = find(r"Here it is:\s*(.+?),\s*just as you ordered") or next(
            (dish for dish in replaced if dish not in served), ""
        )
        wrong_dish = next((dish for dish in served if dish not in replaced), "")
        return cls(
            menu,
            find(r"Here is your (.+?)\.\s*What would you like to eat"),
            tuple(ordered),
            unavailable,
            true_dish,
            wrong_dish,
        )


def _ask(text: str, ideal: str) -> actions.Say:
    """The waiter's question, with what a perfect customer would answer."""
    return actions.Say(text, is_question=True, ideal=ideal)


def _alternative(rng: random.Random, menu: Menu, ordered: list[str], unavailable: str) -> str:
    """A dish to order instead: from the unavailable one's section if any is left, else the menu."""
    choices = [dish for dish in menu.section_of(unavailable) if dish not in ordered] or [
        dish for dish in menu.dishes if dish not in ordered
    ]
    return rng.choice(choices)


def _swap(rng: random.Random, ordered: Sequence[str], unavailable: str, menu: Menu) -> tuple[str, str]:
    """(dish ordered, dish served instead): another dish of the same section, never one ordered."""
    candidates = list(ordered)
    rng.shuffle(candidates)
    for dish in candidates:
        others = [other for other in menu.section_of(dish) if other not in ordered and other != unavailable]
        if others:
            return dish, rng.choice(others)
    dish = candidates[0]
    return dish, rng.choice([other for other in menu.dishes if other not in ordered and other != unavailable])


def _definition(suite: str, seed: int, repetition: int, params: JsonObject) -> TestDefinition:
    rng = random.Random(f"{NAME}|{seed}|{repetition}|plan")
    menu = DEFAULT_MENU
    drink = rng.choice(menu.drinks)
    sections = dict(menu.sections)
    dishes = [
        rng.choice(sections[rng.choice(STARTER_SECTIONS)]),
        rng.choice(sections[rng.choice(MAIN_SECTIONS)]),
    ]
    expected = {
        "menu": [[section, list(items)] for section, items in menu.sections],
        "drinks": list(menu.drinks),
        "ideal_drink": drink,
        "ideal_dishes": dishes,
        "stages": [
            "The diner orders a drink (and no food yet).",
            "The diner orders at least one dish from the menu.",
            "The diner orders an alternative dish from the menu.",
            "The diner notices the dish that was served by mistake.",
            "The diner recalls the drink ordered at the start.",
        ],
    }
    greeting = GREETING.format(menu=menu.text())
    return TestDefinition(
        suite=suite,
        scenario=NAME,
        repetition=repetition,
        seed=seed,
        script=(
            ScriptLine(SETUP, wait={"percentage_finished": WAITS[0]}),
            ScriptLine(greeting, is_question=True, wait={"percentage_finished": WAITS[1]}),
        ),
        ideal_answers=(f"I'd like a {drink.lower()}, please.",),
        expected=expected,
        skills=SKILLS,
        params=params,
        reset_message=RESET_MESSAGE,
    )


SCENARIO = Restaurant()
