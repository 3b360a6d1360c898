"""Delayed Recall (GoodAI Benchmarks 1 and 2): facts about a fictional world, then a question on each.

GoodAI's dataset: ten facts about an invented world in one message, then ten questions about them
spread over the conversation, each opened by a short reminder that it is about that world; the
score is the share of answers that refer to the expected ones (see `question_set`).  GoodAI had
gpt-3.5-turbo invent each world; ours are built from our own templates: a world name from
syllables, then `facts` of the fact kinds below, each a statement, a question and its answer.
Numbers in one world never repeat, so a number in a reply can only answer one question.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.scenarios.ltm.question_set import QuestionSetScenario
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least

NAME = "ltm.delayed_recall"
SKILLS = ("recall",)
OPENING = "Here are some facts about a fictional world. Please keep them in mind:\n\n{facts}"
REMINDERS = (
    "A question about that fictional world:",
    "Back to the invented world for a moment:",
    "Thinking of the fictional world I described,",
    "About that made-up world:",
)
RESET = "You can forget the facts about the fictional world that I told you earlier."

FIRST_SYLLABLES = ("Var", "Tel", "Os", "Mir", "Quen", "Dal", "Ith", "Bor", "Sel", "Anu", "Cor", "Fen")
LAST_SYLLABLES = ("ora", "endel", "ithar", "aros", "umbra", "esh", "ova", "antis", "ily", "odon")

# Each kind: (statement, question, answer); {w} is the world's name, the rest come from POOLS.
FACTS = {
    "settler": (
        "{w} was first settled by {settler}, who arrived by sea in the year {year}.",
        "Who first settled {w}?",
        "{settler}",
    ),
    "capital": (
        "The capital of {w} is {city}, a walled town built around a {landmark}.",
        "What is the capital of {w}?",
        "{city}",
    ),
    "coins": (
        "People in {w} pay with small coins made of {metal}.",
        "What metal are the coins of {w} made of?",
        "{metal}",
    ),
    "river": (
        "The longest river in {w}, the {river}, freezes over only once every {freeze} years.",
        "How often does the {river} freeze over?",
        "Once every {freeze} years",
    ),
    "festival": (
        "Every spring the people of {w} hold the {festival}, when they {custom}.",
        "What do the people of {w} do during the {festival}?",
        "They {custom}",
    ),
    "animal": (
        "The national animal of {w} is the {animal}, which is said to bring luck to sailors.",
        "What is the national animal of {w}?",
        "The {animal}",
    ),
    "mountain": (
        "The tallest mountain in {w}, Mount {mountain}, is {height} metres high.",
        "How high is Mount {mountain}?",
        "{height} metres",
    ),
    "export": (
        "The main export of {w} is {export}, shipped mostly to the southern islands.",
        "What is the main export of {w}?",
        "{export}",
    ),
    "library": (
        "The oldest library of {w} keeps {books} books, every one of them copied by hand.",
        "How many books does the oldest library of {w} keep?",
        "{books}",
    ),
    "instrument": (
        "Children in {w} learn to play the {instrument} before they learn to read.",
        "Which instrument do children in {w} learn to play before they can read?",
        "The {instrument}",
    ),
    "guard": (
        "The royal guard of {w} wears {colour} cloaks and carries {weapon}.",
        "What colour are the cloaks of the royal guard of {w}?",
        "{colour}",
    ),
    "pass": (
        "Travellers reach {w} through the {pass}, a mountain pass that is open only in {season}.",
        "In which season is the {pass} open?",
        "In {season}",
    ),
    "comet": (
        "A comet called {comet} passes over {w} every {orbit} years, and its return is a public holiday.",
        "How often does the comet {comet} pass over {w}?",
        "Every {orbit} years",
    ),
    "law": (
        "An old law of {w} forbids {forbidden} after sunset.",
        "What does the old law of {w} forbid after sunset?",
        "{forbidden}",
    ),
}

POOLS = {
    "settler": (
        "Queen Marisol the Bold",
        "Captain Oderic Vane",
        "Lady Vessa of the Marsh",
        "the scholar Bram Tolliver",
        "the twin sisters Ailsa and Maren",
        "King Haldor the Quiet",
    ),
    "city": ("Harrowgate", "Solmere", "Quillby", "Ashcombe", "Lantry", "Brevik"),
    "landmark": ("lighthouse", "hot spring", "fallen tower", "giant oak", "stone bridge"),
    "metal": ("copper", "bronze", "tin", "silver", "nickel"),
    "river": ("Ember", "Glass", "Wending", "Ossel", "Sable"),
    "festival": ("Lantern Fair", "Feast of Kites", "Day of Open Doors", "Salt Moon Festival"),
    "custom": (
        "paint their doors blue",
        "float candles down the river",
        "give away their oldest coat",
        "sing from the rooftops at dawn",
        "plant a tree for every child born that year",
    ),
    "animal": ("silver heron", "marsh fox", "white stag", "spotted otter", "horned owl"),
    "mountain": ("Calder", "Ivory", "Thessen", "Brack", "Morrow"),
    "export": ("salted fish", "blue wool", "glass beads", "cedar timber", "dried figs"),
    "instrument": ("bone flute", "hand drum", "twelve-string harp", "brass horn", "fiddle"),
    "colour": ("green", "scarlet", "grey", "amber", "violet"),
    "weapon": ("a long spear", "a curved sword", "a crossbow", "a round shield"),
    "pass": ("Raven Gap", "Needle Pass", "Widow's Stair", "Cold Gate"),
    "season": ("summer", "autumn", "winter", "spring"),
    "comet": ("Halvard's Star", "Greymane", "Orrin's Tail", "Vesper"),
    "forbidden": (
        "whistling in the street",
        "selling bread",
        "crossing the river by boat",
        "ringing the temple bells",
        "lighting fires on the beach",
    ),
}


@dataclass(frozen=True)
class DelayedRecallParams:
    """How many facts of the story are told and asked."""

    facts: int = 10
    questions: int = 10

    def __post_init__(self) -> None:
        at_least("facts", self.facts, 1)
        at_least("questions", self.questions, 1)
        if self.facts > len(FACTS):
            raise ValueError(f"facts must be at most {len(FACTS)}, got {self.facts}")
        if self.questions > self.facts:
            raise ValueError(f"questions ({self.questions}) cannot exceed facts ({self.facts})")


def invent_world(rng: random.Random, kinds: Sequence[str]) -> tuple[str, list[tuple[str, str, str]]]:
    """A world's name and its facts of `kinds` as (statement, question, answer)."""
    world = rng.choice(FIRST_SYLLABLES) + rng.choice(LAST_SYLLABLES)
    numbers = iter(rng.sample(range(3, 40), 3))  # distinct small numbers for the periodic facts
    slots: dict[str, str | int] = {name: rng.choice(pool) for name, pool in POOLS.items()}
    slots.update(
        w=world, year=rng.randint(1100, 1899), freeze=next(numbers), orbit=next(numbers) + 40,
        height=rng.randrange(2100, 5900, 10), books=rng.randrange(1200, 9900, 100),
    )  # fmt: skip
    return world, [tuple(part.format(**slots) for part in FACTS[kind]) for kind in kinds]  # type: ignore[misc]


class DelayedRecall(QuestionSetScenario):
    """`ltm.delayed_recall`: facts of a fictional world, asked about much later."""

    name = NAME
    skills = SKILLS
    reset_message = RESET

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(DelayedRecallParams, NAME, params, seed, repetition)
        kinds = rng.sample(sorted(FACTS), settings.facts)
        _, facts = invent_world(rng, kinds)
        asked = rng.sample(facts, settings.questions)
        cases = [(f"{rng.choice(REMINDERS)} {question}", answer) for _, question, answer in asked]
        content = OPENING.format(facts="\n".join(statement for statement, _, _ in facts))
        return self.definition(suite, repetition, seed, content, cases, asdict(settings))


SCENARIO = DelayedRecall()
