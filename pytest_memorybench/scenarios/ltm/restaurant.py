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
seeded (`random.Random(f"{NAME}|{seed}|{repetition}")`, with the replies they depend on), so a
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
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from rapidfuzz import fuzz, process

from pytest_memorybench.conversation.clock import SimulatedClock
from pytest_memorybench.conversation import program as actions  # a module: it imports the registry that imports us
from pytest_memorybench.judges.base import Judge, JudgeTask
from pytest_memorybench.judges.local import LocalJudge, analyse, clean
from pytest_memorybench.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.scenarios.base import ScoringContext
from pytest_memorybench.scenarios.params import read_params
from pytest_memorybench.scoring.judged import score_reference
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
    "Let's play a scene. When I speak as the waiter (like 'Waiter: Are you ready to order?'), you answer "
    "as a guest dining at the restaurant would. Answer the waiter directly and stay in the scene. Is that clear?"
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

NOTICE_SENTENCE = "This is not what I ordered."
_MIXUP = re.compile(
    r"\b(?:not\s+what\s+i\s+(?:ordered|asked\s+for|wanted|requested)"
    r"|(?:didn'?t|did\s+not|never)\s+(?:order|ask\s+for|request)"
    r"|wrong\s+(?:dish|order|plate|meal|food|item|one)"
    r"|mix-?\s?up|mixed\s+up|(?:a|some)\s+mistake|mistaken"
    r"|i\s+(?:actually\s+|originally\s+|had\s+)?(?:ordered|asked\s+for|requested)\s+(?:the|a|an)\b"
    r"|(?:that|this|it)(?:'s|\s+is|\s+was)?\s+(?:not|isn'?t|wasn'?t)\s+(?:the|my|mine|what)\b"
    r"|(?:isn'?t|is\s+not|wasn'?t|was\s+not)\s+(?:mine|my\s+order|what\s+i)"
    r"|(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:the\s+)?wrong"
    r"|where(?:'s|\s+is)\s+my\b)"
)
_STAGE_DIRECTION = re.compile(r"\*[^*\n]{1,300}\*|\[[^\]\n]{1,300}\]")
_BOLD = re.compile(r"\*\*([^*\n]+)\*\*|__([^_\n]+)__")
_WAITER_TURN = re.compile(r"^\s*(?:the\s+)?(?:waiter|server|waitress)\s*:", re.IGNORECASE | re.MULTILINE)
_DINER_LABEL = re.compile(r"^\s*(?:the\s+)?(?:diner|customer|guest|me|you)\s*:\s*", re.IGNORECASE | re.MULTILINE)
_ITEM_NUMBER = re.compile(r"(?:\bnumber|\bno\.|\bnr\.?|#)\s*(\d{1,2})\b", re.IGNORECASE)
_EPOCH = datetime(2026, 1, 1, 19, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class RestaurantParams:
    """The paper gives the Restaurant test no parameters; the menu and the flow are fixed."""


@dataclass(frozen=True)
class Menu:
    sections: tuple[tuple[str, tuple[str, ...]], ...]
    drinks: tuple[str, ...]

    @property
    def dishes(self) -> list[str]:
        return [dish for _, dishes in self.sections for dish in dishes]

    def numbered(self) -> list[str]:
        """Every item in menu order: dishes first, then drinks (item n is numbered[n - 1])."""
        return [*self.dishes, *self.drinks]

    def section_of(self, dish: str) -> tuple[str, ...]:
        return next((dishes for _, dishes in self.sections if dish in dishes), ())

    def text(self) -> str:
        number = 0
        blocks = []
        for section, dishes in (*self.sections, ("Drinks", self.drinks)):
            lines = [f"{section}:"]
            for item in dishes:
                number += 1
                lines.append(f"{number}. {item}")
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    @classmethod
    def from_expected(cls, expected: Mapping[str, Any]) -> Menu:
        sections = tuple((str(name), tuple(dishes)) for name, dishes in expected["menu"])
        return cls(sections, tuple(expected["drinks"]))


DEFAULT_MENU = Menu(MENU, DRINKS)


@dataclass(frozen=True)
class Order:
    dishes: list[str]
    drinks: list[str]
    off_menu: list[str]
    error: str | None = None


def enumerate_items(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def diner_part(reply: str) -> tuple[str, bool]:
    """The diner's own words, and whether the reply goes on to speak for the waiter.

    Stage directions in asterisks or brackets are dropped (bold text is kept), a "Diner:" label is
    removed, and everything from a "Waiter:" turn on is cut.
    """
    text = _BOLD.sub(lambda match: match.group(1) or match.group(2), reply or "")
    text = _STAGE_DIRECTION.sub(" ", text)
    waiter = _WAITER_TURN.search(text)
    if waiter:
        text = text[: waiter.start()]
    text = _DINER_LABEL.sub("", text)
    return " ".join(text.split()), waiter is not None


def resolve_numbers(text: str, menu: Menu) -> str:
    """"number 17" / "#17" → "number 17 (<item 17>)", so a judge reading names sees the item."""
    items = menu.numbered()

    def name(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return f"{match.group(0)} ({items[index - 1]})" if 1 <= index <= len(items) else match.group(0)

    return _ITEM_NUMBER.sub(name, text)


def _on_list(name: str, known: Sequence[str]) -> str | None:
    if name in known:
        return name
    found = process.extractOne(name, list(known), scorer=fuzz.token_set_ratio, processor=clean, score_cutoff=85)
    return found[0] if found else None


async def read_order(judge: Judge, text: str, menu: Menu) -> Order:
    """What the diner's words order, as menu dishes, drinks and off-menu things (judge `restaurant`)."""
    verdict = await judge.judge(
        JudgeTask("restaurant", {"reply": resolve_numbers(text, menu), "menu": menu.dishes, "drinks": list(menu.drinks)}, NAME)
    )
    if not verdict.ok:
        return Order([], [], [], verdict.error or "the judge gave no verdict")
    data = verdict.data or {}
    dishes: list[str] = []
    drinks: list[str] = []
    off_menu: list[str] = [str(data["other"])] if data.get("other") else []
    for name in data.get("dishes", []):
        dish = _on_list(str(name), menu.dishes)
        if dish is None:
            off_menu.append(str(name))
        elif dish not in dishes:
            dishes.append(dish)
    for name in data.get("drinks", []):
        drink = _on_list(str(name), menu.drinks)
        if drink is not None and drink not in drinks:
            drinks.append(drink)
    return Order(dishes, drinks, _not_fragments(off_menu, [*dishes, *drinks]))


def _not_fragments(pieces: Sequence[str], found: Sequence[str]) -> list[str]:
    """Off-menu pieces that are not just part of an item already found ("the lemon" of "Lemon and
    Thyme Roast Chicken", which a judge splitting at "and" may report apart)."""
    words = [set(analyse(name).content) for name in found]
    kept = []
    for piece in (part.strip() for text in pieces for part in text.split(",")):
        content = set(analyse(piece).content)
        if piece and content and not any(content <= name for name in words):
            kept.append(piece)
    return kept


async def noticed_mixup(judge: Judge, text: str, ordered: str, served: str) -> tuple[bool, str]:
    """Whether the diner points out that `served` came instead of `ordered`, and how we know."""
    cue = _MIXUP.search(clean(text))
    if cue:
        return True, f"the diner notices the mix-up ({cue.group(0)!r})"
    verdict = await judge.judge(JudgeTask("sentence", {"answer": text, "sentence": NOTICE_SENTENCE}, NAME))
    if verdict.ok and (verdict.data or {}).get("present"):
        return True, f"the diner says the dish is not what they ordered (judge {judge.name})"
    reference = await score_reference(
        judge,
        question=f"The waiter served the {served} instead of the {ordered}. Which dish does the diner say they ordered?",
        expected=ordered,
        answer=text,
        scorer=NAME,
    )
    if reference.value == 1.0:
        return True, f"the diner asks for the {ordered} they ordered (judge {judge.name})"
    return False, f"the diner does not notice that the {served} was served instead of the {ordered}"


class Restaurant:
    name = NAME
    skills = SKILLS

    def generate(
        self, suite: str, params: Mapping[str, Any], seed: int, repetition: int
    ) -> TestDefinition:
        settings = read_params(RestaurantParams, NAME, params)
        return _definition(suite, seed, repetition, asdict(settings))

    def from_goodai(self, raw: dict[str, Any], example_id: str, suite: str, repetition: int) -> TestDefinition:
        """A GoodAI Restaurant definition is empty (the scene is made live): ours, for seed 0."""
        return _definition(suite, 0, repetition, {"goodai_example": example_id})

    async def program(self, definition: TestDefinition, context: ProgramContext) -> TestProgram:
        """The scene, stage by stage; it ends with the reset statement and its own score."""
        judge: Judge = context.scoring.judge or LocalJudge()
        official = context.scoring.profile == OFFICIAL
        expected = definition.expected
        menu = Menu.from_expected(expected)
        rng = random.Random(f"{NAME}|{definition.seed}|{definition.repetition}")
        ideal_drink, ideal_dishes = expected["ideal_drink"], list(expected["ideal_dishes"])
        reasons: list[str] = []

        def verdict() -> actions.Finish:
            passed = sum(1 for reason in reasons if reason.startswith("passed"))
            return actions.Finish(Score(passed / STAGES, (f"{passed} of {STAGES} stages passed", *reasons)))

        yield actions.Say(SETUP)
        yield actions.Wait(percentage=WAITS[0])

        # 1: a drink, and (paper) nothing to eat yet.
        reply = yield actions.Say(GREETING.format(menu=menu.text()), is_question=True, ideal=f"I'd like a {ideal_drink.lower()}, please.")
        text, plays_waiter = diner_part(reply or "")
        order = await read_order(judge, text, menu)
        failure = None
        if plays_waiter:
            failure = "the reply also speaks for the waiter instead of keeping to the diner's role"
        elif order.error:
            failure = order.error
        elif not order.drinks:
            failure = "the diner orders no drink from the list"
        elif order.dishes and not official:
            failure = f"the diner orders food ({enumerate_items(order.dishes)}) before being asked for it"
        if failure:
            reasons.append(f"failed stage 1 (drink): {failure}")
            yield actions.Say(RESET_MESSAGE)
            yield verdict()
            return
        drinks = order.drinks
        reasons.append(f"passed stage 1 (drink): the diner orders {enumerate_items(drinks)}")
        yield actions.Wait(percentage=WAITS[1])

        # 2: food from the menu.
        reply = yield actions.Say(
            FOOD.format(drinks=enumerate_items(drinks)), is_question=True,
            ideal=f"I'll have the {' and the '.join(dish.lower() for dish in ideal_dishes)}, please.",
        )
        text, _ = diner_part(reply or "")
        order = await read_order(judge, text, menu)
        failure = order.error
        if not failure and order.off_menu:
            failure = f"the diner orders something not on the menu ({'; '.join(order.off_menu)})"
        elif not failure and not order.dishes:
            failure = "the diner orders no dish from the menu"
        if failure:
            reasons.append(f"failed stage 2 (food): {failure}")
            yield actions.Say(RESET_MESSAGE)
            yield verdict()
            return
        ordered = list(order.dishes)
        reasons.append(f"passed stage 2 (food): the diner orders {enumerate_items(ordered)}")
        yield actions.Say(CONFIRM.format(order=_capitalised(enumerate_items(ordered))))
        yield actions.Wait(percentage=WAITS[2])

        # 3: the kitchen is out of one dish; order something else.
        unavailable = rng.choice(ordered)
        choices = [dish for dish in menu.section_of(unavailable) if dish not in ordered] or [
            dish for dish in menu.dishes if dish not in ordered
        ]
        alternative = rng.choice(choices)
        reply = yield actions.Say(
            UNAVAILABLE.format(dish=unavailable), is_question=True,
            ideal=f"In that case, I'll have the {alternative.lower()}, please.",
        )
        text, _ = diner_part(reply or "")
        order = await read_order(judge, text, menu)
        fresh = [dish for dish in order.dishes if dish not in ordered]
        repeated = [dish for dish in order.dishes if dish in ordered]
        failure = order.error
        if not failure and order.off_menu:
            failure = f"the diner orders something not on the menu ({'; '.join(order.off_menu)})"
        elif not failure and official and repeated:
            failure = f"the diner orders again what was already ordered ({enumerate_items(repeated)})"
        elif not failure and not fresh:
            failure = (
                f"the diner orders only what was already ordered ({enumerate_items(repeated)})" if repeated
                else "the diner orders no other dish from the menu"
            )
        if failure:
            reasons.append(f"failed stage 3 (alternative to the {unavailable}): {failure}")
            yield actions.Say(RESET_MESSAGE)
            yield verdict()
            return
        reasons.append(f"passed stage 3 (alternative to the {unavailable}): the diner orders {enumerate_items(fresh)}")
        ordered = [dish for dish in ordered if dish != unavailable] + fresh
        yield actions.Say(RECONFIRM.format(order=_capitalised(enumerate_items(fresh))))
        yield actions.Wait(percentage=WAITS[3])

        # 4: one dish is swapped for another of its section; the diner must notice.
        true_dish, wrong_dish = _swap(rng, ordered, unavailable, menu)
        served = [wrong_dish if dish == true_dish else dish for dish in ordered]
        reply = yield actions.Say(
            SERVE.format(order=enumerate_items(served)), is_question=True,
            ideal=f"Sorry, that's not what I ordered: I asked for the {true_dish.lower()}, not the {wrong_dish.lower()}.",
        )
        text, _ = diner_part(reply or "")
        noticed, why = await noticed_mixup(judge, text, true_dish, wrong_dish)
        if not noticed:
            reasons.append(f"failed stage 4 (wrong dish): {why}")
            yield actions.Say(RESET_MESSAGE)
            yield verdict()
            return
        reasons.append(f"passed stage 4 (wrong dish): {why}")
        yield actions.Say(APOLOGY)
        yield actions.Wait(percentage=WAITS[4])

        # 5: a free drink: what was it?
        drinks_text = enumerate_items(drinks)
        reply = yield actions.Say(
            FREE_DRINK.format(dish=true_dish), is_question=True, ideal=f"I was having the {drinks_text.lower()}.",
        )
        text, _ = diner_part(reply or "")
        recall = await score_reference(
            judge, question="What was the diner drinking before the meal?", expected=drinks_text, answer=text, scorer=NAME,
        )
        if recall.value == 1.0:
            reasons.append(f"passed stage 5 (free drink): the diner recalls the {drinks_text}")
        else:
            reasons.append(f"failed stage 5 (free drink): the diner does not recall the {drinks_text}")
        yield actions.Say(RESET_MESSAGE)
        yield verdict()

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


def _definition(suite: str, seed: int, repetition: int, params: dict[str, Any]) -> TestDefinition:
    rng = random.Random(f"{NAME}|{seed}|{repetition}|plan")
    menu = DEFAULT_MENU
    drink = rng.choice(menu.drinks)
    sections = dict(menu.sections)
    dishes = [rng.choice(sections[rng.choice(STARTER_SECTIONS)]), rng.choice(sections[rng.choice(MAIN_SECTIONS)])]
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

if TYPE_CHECKING:
    from pytest_memorybench.conversation.program import ProgramContext, TestProgram
