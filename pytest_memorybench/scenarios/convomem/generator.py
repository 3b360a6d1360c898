"""ConvoMem's six evidence kinds, written by us, so the suite runs with no data.

Each persona (an invented person at work) has evidence items of every kind, each item's evidence
said in one or two conversations of a few messages among small talk, and filler conversations of
its own: trivia asked of the assistant, from our trivia tables (`conversation/trivia.py`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from pytest_memorybench.conversation.trivia import TriviaSource
from pytest_memorybench.scenarios.convomem.data import Conversation, EvidenceItem, Turn

ABSTAIN = "That was never mentioned in our conversations."
_PEOPLE = ("Imogen Hartwell", "Dev Raghunathan", "Solveig Brandt", "Tomasz Wierzbicki", "Adaeze Okafor")
_COLLEAGUES = ("Priya Lund", "Marcus Feld", "Hana Sato", "Oskar Bell", "Lucía Ferro", "Idris Kane")
_PETS = (("dog", "Biscuit"), ("cat", "Juniper"), ("parrot", "Mango"), ("tortoise", "Sheldon"))
_TEAMS = (("procurement", "Ariba"), ("field sales", "Pipedrive"), ("support", "Zendesk"), ("design", "Figma"))
_BOOKS = ("The Salt Path", "Piranesi", "The Overstory", "Klara and the Sun")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
_ROOMS = ("B2", "Harbour", "4.11", "Atrium")
_SMALL_TALK = (
    ("User", "Morning! Busy day ahead, I think."),
    ("Assistant", "Good morning. Happy to help you get through it."),
    ("User", "Let's start with something small."),
    ("Assistant", "Sure, what do you need first?"),
    ("User", "Thanks, that's all for now."),
    ("Assistant", "Anytime. Talk soon."),
)


def _wrap(rng: random.Random, conversation_id: str, said: list[Turn]) -> Conversation:
    """Evidence messages inside a conversation of small talk."""
    opening = [Turn(s, t) for s, t in _SMALL_TALK[:4]]
    closing = [Turn(s, t) for s, t in _SMALL_TALK[4:]]
    middle = []
    for turn in said:
        middle.append(turn)
        middle.append(
            Turn(
                "Assistant" if turn.speaker == "User" else "User", rng.choice(("Noted.", "Got it.", "Okay."))
            )
        )
    return Conversation(conversation_id, tuple(opening + middle + closing))


# A builder gives the question, its answer, the evidence said in each conversation, and the values
# the answer replaced (changing facts: the earlier budgets; `contract/stale.py`).
Built = tuple[str, str, list[list[Turn]], tuple[str, ...]]
Builder = Callable[[random.Random, str, str], Built]


def _user_facts(rng: random.Random, person: str, _: str) -> Built:
    kind, name = rng.choice(_PETS)
    boss = rng.choice(_COLLEAGUES)
    said = [
        [Turn("User", f"My {kind} {name} kept me up all night again.")],
        [Turn("User", f"My manager is {boss}, by the way.")],
    ]
    return f"What is my {kind} called, and who is my manager?", f"{name}; {boss}", said, ()


def _assistant_facts(rng: random.Random, person: str, _: str) -> Built:
    day, room, book = rng.choice(_DAYS), rng.choice(_ROOMS), rng.choice(_BOOKS)
    said = [
        [
            Turn(
                "Assistant",
                f"Your quarterly review is on {day} in room {room}; for the train I'd suggest {book}.",
            )
        ]
    ]
    return "Which book did you suggest for my train ride?", book, said, ()


def _changing_facts(rng: random.Random, person: str, _: str) -> Built:
    first, second, third = rng.sample(range(4, 30), 3)
    said = [
        [Turn("User", f"The budget for the team offsite is ${first}k.")],
        [Turn("User", f"Update: finance moved the offsite budget to ${second}k.")],
        [Turn("User", f"Final word on the offsite: the budget is now ${third}k.")],
    ]
    return "What is the offsite budget now?", f"${third}k", said, (f"${first}k", f"${second}k")


def _abstention(rng: random.Random, person: str, _: str) -> Built:
    colleague = rng.choice(_COLLEAGUES)
    said = [[Turn("User", f"{colleague} will present the project timeline at Friday's meeting.")]]
    return f"What is {colleague}'s phone number?", ABSTAIN, said, ()


def _preferences(rng: random.Random, person: str, _: str) -> Built:
    said = [[Turn("User", "I only drink green tea these days; coffee leaves me jittery.")]]
    answer = "Suggests green tea or another tea for the user, not coffee."
    return (
        "I'm ordering drinks for tomorrow's early workshop. What should I get for myself?",
        answer,
        said,
        (),
    )


def _implicit(rng: random.Random, person: str, _: str) -> Built:
    colleague = rng.choice(_COLLEAGUES)
    team, tool = rng.choice(_TEAMS)
    said = [
        [Turn("User", f"{colleague} now leads the {team} team.")],
        [Turn("User", f"The {team} team does everything in {tool}.")],
    ]
    answer = f"Names {tool} as the tool of {colleague}'s team."
    return f"Which software will {colleague}'s team expect our report in?", answer, said, ()


BUILDERS: dict[str, Builder] = {
    "user_facts": _user_facts,
    "assistant_facts": _assistant_facts,
    "changing_facts": _changing_facts,
    "abstention": _abstention,
    "preferences": _preferences,
    "implicit_connections": _implicit,
}


def evidence_items(category: str, seed: int, count: int) -> list[EvidenceItem]:
    """`count` items of a kind, each of its own persona (round the five), in a fixed order."""
    items = []
    for number in range(count):
        person = _PEOPLE[number % len(_PEOPLE)]
        rng = random.Random(f"convomem|{seed}|{category}|{number}")
        item_id = f"{category}-{number}"
        question, answer, said, superseded = BUILDERS[category](rng, person, item_id)
        conversations = tuple(_wrap(rng, f"{item_id}-c{index}", turns) for index, turns in enumerate(said))
        evidence = tuple(turn for turns in said for turn in turns)
        if category == "abstention":
            evidence = ()
        items.append(
            EvidenceItem(
                item_id, category, len(said), question, answer, evidence, conversations, person, superseded
            )
        )
    return items


def filler_conversations(seed: int, person: str, count: int, start: int = 0) -> list[Conversation]:
    """`count` conversations of trivia asked of the assistant, the person's own, numbered from `start`."""
    trivia = TriviaSource(seed)
    offset = _PEOPLE.index(person) * 10_000 if person in _PEOPLE else 0
    conversations = []
    for number in range(start, start + count):
        turns = []
        for index in range(4):
            item = trivia.item(offset + number * 4 + index)
            turns += [Turn("User", item.question), Turn("Assistant", item.answer)]
        conversations.append(Conversation(f"filler-{person.split()[0].lower()}-{number}", tuple(turns)))
    return conversations


__all__ = ["ABSTAIN", "BUILDERS", "evidence_items", "filler_conversations"]
