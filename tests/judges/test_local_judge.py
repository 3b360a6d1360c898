"""The offline `local` judge: concrete cases for every task kind, and its helpers."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_memorybench.judges.base import TASK_KINDS, JudgeTask
from pytest_memorybench.judges.local import (
    VERSION,
    LocalJudge,
    abstains,
    analyse,
    normalise,
    parse_number,
    rouge_l,
)
from pytest_memorybench.judges.local.stance import stance
from pytest_memorybench.judges.replies import validate

JUDGE = LocalJudge()


def verdict(kind: str, **payload: Any) -> dict[str, Any]:
    result = JUDGE.judge_now(JudgeTask(kind, payload))
    assert result.ok, result.error
    assert result.data is not None
    assert validate(kind, result.data, payload) == result.data  # the local judge keeps the contract
    return result.data


# -- helpers ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The  Blue-Green, café!", "blue green cafe"),
        ("It's £68,000.", "it 68000"),
        ("An apple & THE pear", "apple and pear"),
    ],
)
def test_normalise(text: str, expected: str) -> None:
    assert normalise(text) == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12", 12),
        ("twelve", 12),
        ("twenty-five", 25),
        ("12k", 12_000),
        ("$68,000", 68_000),
        ("1.5 million", 1.5e6),
        ("a hundred and five", 105),
        ("two dozen", 24),
        ("3 km", 3),
        ("12 eggs", None),
        ("blue", None),
        ("April 9", None),
    ],
)
def test_parse_number(text: str, value: float | None) -> None:
    assert parse_number(text) == value


def test_dates_are_read_in_several_spellings() -> None:
    assert analyse("on April 09, 2026").dates == {(2026, 4, 9)}
    assert analyse("the 9th of April 2026").dates == {(2026, 4, 9)}
    assert analyse("2026-04-09").dates == {(2026, 4, 9)}
    assert analyse("2026-04-09").numbers == ()  # a date is not three numbers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I don't know.", True),
        ("I'm not sure which one it was.", True),
        ("There is no information about that in our conversation.", True),
        ("You haven't told me about any concerts.", True),
        ("None.", True),
        ("It was blue.", False),
        ("I know it was blue, no doubt.", False),
    ],
)
def test_abstention(text: str, expected: bool) -> None:
    assert abstains(text) is expected


def test_rouge_l() -> None:
    assert rouge_l("a b c d".split(), "a b c d".split()) == (1.0, 1.0, 1.0)
    precision, recall, f1 = rouge_l("a x b y".split(), "a b".split())
    assert (precision, recall) == (0.5, 1.0) and f1 == pytest.approx(2 / 3)
    assert rouge_l([], ["a"]) == (0.0, 0.0, 0.0)


# -- reference ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "answer", "refers", "is_number"),
    [
        ("Blue", "Your favourite colour is blue.", True, False),
        ("12", "twelve", True, True),
        ("twelve", "You have 12 of them.", True, True),
        ("$68,000", "The budget was 68k.", True, True),
        ("12", "It was 13.", False, True),
        ("Blue", "I don't know", False, False),
        ("Blue", "It is not blue, it is red.", False, False),
        ("Blue", "Red", False, False),
        (
            "Why did the chicken cross the road? To get to the other side.",
            "You told me the joke about the chicken that crossed the road to get to the other side.",
            True,
            False,
        ),
        ("Bartholomew", "His name is Bartolomew.", True, False),
        ("April 9, 2026", "That was on the 9th of April 2026.", True, False),
        ("April 9, 2026", "That was on the 10th of April 2026.", False, False),
    ],
)
def test_reference(expected: str, answer: str, refers: bool, is_number: bool) -> None:
    data = verdict("reference", question="?", expected=expected, answer=answer)
    assert (data["refers"], data["expected_is_number"]) == (refers, is_number)
    assert data["numbers_match"] == (refers if is_number else None)


# -- sentence -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "sentence", "extracted"),
    [
        (
            "Sure! I can hardly wait to hear the weather forecast. Anything else?",
            "I can hardly wait to hear the weather forecast.",
            "I can hardly wait to hear the weather forecast.",
        ),
        (
            "As you asked, here it is: the early bird catches the worm, my friend, always remember that",
            "The early bird catches the worm",
            "the early bird catches the worm",
        ),
        (
            "Okay.\nI can't wait to hear the weather forecast!\nWhat else?",
            "I can hardly wait to hear the weather forecast.",
            "I can't wait to hear the weather forecast!",
        ),
        ("Hello there, how can I help you today?", "The early bird catches the worm", None),
        ("", "The early bird catches the worm", None),
    ],
)
def test_sentence(answer: str, sentence: str, extracted: str | None) -> None:
    data = verdict("sentence", answer=answer, sentence=sentence)
    assert data["present"] is (extracted is not None)
    assert data["extracted"] == extracted


# -- directions -----------------------------------------------------------------------------------------

PLACES = ["Library", "Museum", "Central Park", "North Station", "Old Mill"]


def hop(origin: str, km: int, direction: str, destination: str) -> dict[str, Any]:
    return {"origin": origin, "kilometers": km, "direction": direction, "destination": destination}


@pytest.mark.parametrize(
    ("answer", "hops"),
    [
        (
            "From the Library, go 2km East to the Museum. From the Museum, go 3 km north to Central Park.",
            [hop("Library", 2, "east", "Museum"), hop("Museum", 3, "north", "Central Park")],
        ),
        (
            (
                "To get from the Library to the Old Mill: go 3 km north to the Museum, then 1 kilometre west"
                " to the Old Mill."
            ),
            [hop("Library", 3, "north", "Museum"), hop("Museum", 1, "west", "Old Mill")],
        ),
        (
            (
                "Start at the Library. Walk two kilometres west until you reach the Museum, then head south"
                " for 4 km to get to North Station."
            ),
            [hop("Library", 2, "west", "Museum"), hop("Museum", 4, "south", "North Station")],
        ),
        (
            "1. Library -> 2 km east -> central park\n2. Central Park -> 1 km north -> Old Mill",
            [hop("Library", 2, "east", "Central Park"), hop("Central Park", 1, "north", "Old Mill")],
        ),
        ("I'm sorry, I don't remember the points of interest you told me about.", []),
    ],
)
def test_directions(answer: str, hops: list[dict[str, Any]]) -> None:
    assert verdict("directions", answer=answer, places=PLACES)["hops"] == hops


# -- restaurant -----------------------------------------------------------------------------------------

MENU = [
    "Grilled Salmon with Lemon Butter",
    "Tomato Soup",
    "Steak Frites",
    "Chicken Caesar Salad",
    "Chicken Curry",
]
DRINKS = ["Lemonade", "Iced Tea", "Sparkling Water", "Red Wine"]


@pytest.mark.parametrize(
    ("reply", "dishes", "drinks", "other"),
    [
        (
            "I'll have the grilled salmon and a lemonade, no soup please",
            ["Grilled Salmon with Lemon Butter"],
            ["Lemonade"],
            None,
        ),
        ("Thank you for the iced tea! Could I get the steak frites?", ["Steak Frites"], [], None),
        ("I'd like the chicken curry, not the salad.", ["Chicken Curry"], [], None),
        ("Just a glass of red wine for now, please.", [], ["Red Wine"], None),
        ("Is the tomato soup vegetarian?", [], [], None),
        (
            "This isn't what I ordered. I asked for the salmon, not the steak.",
            ["Grilled Salmon with Lemon Butter"],
            [],
            None,
        ),
        ("I'd like to order the chicken tikka, please.", [], [], "chicken tikka"),
        (
            "I'll go with the steak frites instead of the salmon, and a sparkling water.",
            ["Steak Frites"],
            ["Sparkling Water"],
            None,
        ),
    ],
)
def test_restaurant(reply: str, dishes: list[str], drinks: list[str], other: str | None) -> None:
    data = verdict("restaurant", reply=reply, menu=MENU, drinks=DRINKS)
    assert (data["dishes"], data["drinks"], data["other"]) == (dishes, drinks, other)


# Where the offline reading parted from GoodAI's judge on published scenes (issue 35), one rule per class,
# on our own menu: a drink inside a dish's name, a "Selection of …" item, a dish with its sides.
RULES_MENU = [
    "Seared Duck Breast with Cherry Port Sauce, served with Fondant Potatoes",
    "Mussels in White Wine and Garlic Broth",
    "Selection of Cheeses",
    "Charred Leek Tart",
    "Pork Belly with Cider Glaze and Apple Slaw",
]
RULES_DRINKS = ["White Wine (Glass or Bottle)", "Selection of Herbal Teas", "Cider", "Still Water"]
DUCK, MUSSELS, CHEESES, TART, PORK = RULES_MENU


@pytest.mark.parametrize(
    ("reply", "dishes", "drinks", "other"),
    [
        # a reply that orders nothing: the agent plays the waiter, offers help, praises the house's food
        (
            (
                "Good evening and welcome! I'd be glad to help you with our selection. What would you like to"
                " drink?"
            ),
            [],
            [],
            None,
        ),
        ("Can I tempt you with the mussels tonight? They are very popular.", [], [], None),
        ("Good evening! Our leek tart is a house favourite.", [], [], None),
        ("Lovely to see the selection here.", [], [], None),
        ("Cheeses, please.", [CHEESES], [], None),
        # a dish with other sides or another sauce than the menu lists is not the menu's dish
        (
            "I'll have the duck breast, but with mashed potatoes instead of the fondant potatoes.",
            [DUCK],
            [],
            "mashed potatoes",
        ),
        ("Could I get the leek tart with a side of fries?", [TART], [], "fries"),
        ("I'll take the pork belly. Can I swap the slaw for a green salad?", [PORK], [], "slaw green"),
        ("I'll have the duck breast with the cherry port sauce and fondant potatoes.", [DUCK], [], None),
        # a dish named in full with its sides is the menu's dish, and what its name holds is not ordered apart
        (
            "I'll have the Seared Duck Breast with Cherry Port Sauce, served with Fondant Potatoes.",
            [DUCK],
            [],
            None,
        ),
        ("I'll have the mussels in white wine and garlic broth, please.", [MUSSELS], [], None),
        ("The Pork Belly with Cider Glaze and Apple Slaw for me.", [PORK], [], None),
        ("A glass of the white wine and the pork belly, please.", [PORK], [RULES_DRINKS[0]], None),
        # ordering again is ordering; pointing back at the order already given is not
        ("In that case the leek tart, and I'd still like the pork belly.", [TART, PORK], [], None),
        ("The leek tart then. Please bring the pork belly as originally planned.", [TART], [], None),
        ("I'll have the leek tart, and the pork belly to follow, as originally planned.", [TART], [], None),
        ("A still water, please.", [], ["Still Water"], None),
    ],
)
def test_restaurant_rules(reply: str, dishes: list[str], drinks: list[str], other: str | None) -> None:
    data = verdict("restaurant", reply=reply, menu=RULES_MENU, drinks=RULES_DRINKS)
    assert (data["dishes"], data["drinks"], data["other"]) == (dishes, drinks, other)


# -- items -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ground_truth", "answer", "identified", "matching"),
    [
        (
            ["Tech Hackathon", "Theater Show"],
            "There was a tech hackathon, and later a theatre show.",
            ["Tech Hackathon", "Theater Show"],
            [1, 1],
        ),
        (
            ["Tech Hackathon", "Book Fair"],
            "- Book fair\n- Tech hackathon\n- Poetry slam",
            ["Book Fair", "Tech Hackathon", "Poetry slam"],
            [1, 1],
        ),
        (["Tech Hackathon"], "I don't have any information about a Tech Hackathon happening there.", [], [0]),
        (["Tech Hackathon", "Book Fair"], "There is none.", [], [0, 0]),
        (
            ["Tech Hackathon", "Book Fair"],
            "The events were: Jazz Night, Book Fair, Food Festival.",
            ["Jazz Night", "Book Fair", "Food Festival"],
            [0, 1],
        ),
        (
            ["Ice Preservation Workshop"],
            "There was an ice preservation talk.",
            ["Ice Preservation Workshop"],
            [0.5],
        ),
        (
            ["Tech Hackathon"],
            "I don't remember the date, but it was a tech hackathon.",
            ["Tech Hackathon"],
            [1],
        ),
        (["April 09, 2026"], "It happened on 9 April 2026.", ["April 09, 2026"], [1]),
        (["April 09, 2026", "May 3, 2026"], "Only in April 2026, I believe.", ["April 09, 2026"], [0.5, 0]),
        (["Snug Harbor Cultural Center"], "At the Snug Harbor center.", ["Snug Harbor Cultural Center"], [1]),
    ],
)
def test_items(ground_truth: list[str], answer: str, identified: list[str], matching: list[float]) -> None:
    data = verdict(
        "items", question="What happened?", retrieval_type="events", ground_truth=ground_truth, answer=answer
    )
    assert data["matching"] == matching
    assert data["identified"] == identified


def test_items_ignores_words_an_abstention_repeats_from_the_question() -> None:
    data = verdict(
        "items",
        question="Which events took place at the Book Fair grounds?",
        retrieval_type="events",
        ground_truth=["Book Fair"],
        answer="I have no information about the Book Fair grounds.",
    )
    assert data == {"identified": [], "matching": [0], "reason": "the answer abstains"}


# -- order ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("predicted", "ground_truth", "indexes"),
    [
        (["Book Fair", "Tech Hackathon"], ["Tech Hackathon", "Book Fair"], [1, 0]),
        (
            ["tech hackathons", "Jazz Night", "Ice Preservation Talks"],
            ["Ice Preservation Discussions", "Theater Show", "Tech Hackathon"],
            [2, -1, 0],
        ),
        (["Book Fair", "Book Fair", "Book Fair"], ["Book Fair", "Parkour", "Book Fair"], [0, 2, -1]),
        (
            ["Theater Show"],
            ["Theater Show Rehearsal", "Theater Show"],
            [0],
        ),  # the earliest match, not the best
        ([], ["A"], []),
    ],
)
def test_order(predicted: list[str], ground_truth: list[str], indexes: list[int]) -> None:
    assert verdict("order", predicted=predicted, ground_truth=ground_truth)["predicted_indexes"] == indexes


# -- nugget --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nugget", "answer", "score"),
    [
        ("Mentions that the budget is $68,000", "Your budget is 68k.", 1),
        (
            "States that the user's sister is called Ana and lives in Lisbon",
            "Your sister Ana lives in Lisbon.",
            1,
        ),
        ("States that the user's sister is called Ana and lives in Lisbon", "Your sister is Ana.", 0.5),
        ("States that the user's sister is called Ana and lives in Lisbon", "I recommend a trip to Rome.", 0),
        (
            "Mentions that the meeting was moved to 3 pm",
            "The meeting is now at 4 pm.",
            0,
        ),  # another time earns nothing
        ("States that the commute is 25 km", "Your old commute was 12 km.", 0),
        ("States that the commute is 25 km", "It's not 25 km any more since you moved again.", 0),
        ("States that the commute is 25 km", "Your commute is twenty-five kilometres each way now.", 1),
        ("Does not mention the user's old job at the bank", "Update your CV and apply to startups.", 1),
        (
            "Does not mention the user's old job at the bank",
            "Given your old job at the bank, try fintechs.",
            0,
        ),
        ("Avoids recommending peanuts", "Try almonds or cashews as a snack.", 1),
        ("Avoids recommending peanuts", "Peanuts are a great snack.", 0),
        ("Does not mention the user's old job at the bank", "I don't know.", 0),  # not responsive
        (
            "States that there is no information about the user's wife",
            "I don't have any information about your wife.",
            1,
        ),
        ("States that there is no information about the user's wife", "Your wife is called Maria.", 0),
        ("Mentions the budget", "", 0),
    ],
)
def test_nugget(nugget: str, answer: str, score: float) -> None:
    assert verdict("nugget", question="?", nugget=nugget, answer=answer)["score"] == score


# -- equivalence
# -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "equivalent"),
    [
        ("I started learning Python in January", "In January, I began learning Python", True),
        ("The user adopted a cat named Tom.", "the user adopted a cat named tom", True),
        ("The meeting is on 3 May", "The meeting is on 4 May", False),
        ("Budget set to $68,000", "The budget was set to 68k", True),
        ("Budget set to $68,000", "The budget was set to $70,000", False),
        ("The user moved to Berlin", "The user bought a new bicycle", False),
        (
            "User ran a marathon",
            "The user ran a marathon in 2023 with friends from work",
            True,
        ),  # more detail
        # a short event label inside a long list item (BEAM's event ordering)
        (
            "Core functionality",
            "Setting up the core functionality including user login, search and the cart",
            True,
        ),
        (
            "Core",
            "Setting up the core functionality including user login, search and the cart",
            False,
        ),  # one word
        ("Core functionality tests", "Setting up the core functionality including user login", False),
    ],
)
def test_equivalence(first: str, second: str, equivalent: bool) -> None:
    assert verdict("equivalence", first=first, second=second)["equivalent"] is equivalent


# -- the judge object
# ------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_local_judge_is_a_judge_with_stats() -> None:
    judge = LocalJudge()
    verdict_ = await judge.judge(JudgeTask("equivalence", {"first": "a cat", "second": "a cat"}))
    assert verdict_.ok and not verdict_.cached
    assert judge.name == "local"
    assert (judge.stats.usage.calls, judge.stats.cache_hits, judge.stats.usage.cost_usd) == (1, 0, 0.0)
    assert judge.stats.prompt_hashes == {"equivalence": VERSION}


def test_every_kind_is_answered() -> None:
    payloads: dict[str, dict[str, Any]] = {
        "reference": {"question": "", "expected": "", "answer": ""},
        "sentence": {"answer": "", "sentence": ""},
        "directions": {"answer": "", "places": []},
        "restaurant": {"reply": "", "menu": [], "drinks": []},
        "items": {"question": "", "retrieval_type": "", "ground_truth": [], "answer": ""},
        "order": {"predicted": [], "ground_truth": []},
        "nugget": {"question": "", "nugget": "", "answer": ""},
        "equivalence": {"first": "", "second": ""},
        "interpretation": {"statement": "", "keywords": [], "answer": ""},
        "answer": {"question": "", "expected": "", "answer": "", "rule": "generous"},
    }
    for kind in TASK_KINDS:
        result = JUDGE.judge_now(JudgeTask(kind, payloads[kind]))
        assert result.ok, (kind, result.error)


# -- stance: whether an answer asserts what it mentions -------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "mention", "why"),
    [
        ("your cat is called mochi.", "mochi", None),
        ("i think your cat is called mochi.", "mochi", None),
        ("your cat is definitely not called mochi.", "mochi", "negated"),
        ("neither tomás nor aiko could make it.", "aiko", "negated"),
        ("you skipped the pottery workshop and the quiz night.", "quiz", "negated"),
        ("tomás didn't come to the party.", "tomás", "negated"),
        ("it's one of mochi, miso or maple.", "mochi", "hedged"),
        ("maybe it was mochi.", "mochi", "hedged"),
        ("bring lock picks or other quiet tools.", "lock", None),
        ("was it porto?", "porto", "asked"),
        ("your cat is mochi, right?", "mochi", None),
        ("i can't recall whether you said mochi.", "mochi", "doubted"),
        ("i don't remember much, but your cat is mochi.", "mochi", None),
    ],
)
def test_stance(answer: str, mention: str, why: str | None) -> None:
    start = answer.index(mention)
    assert stance(answer, start, start + len(mention)) == why
