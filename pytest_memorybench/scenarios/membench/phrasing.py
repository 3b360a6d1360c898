"""How a fact of the graph is said, corrected and asked about: our own sentence templates.

MemBench has an LLM rewrite "My <relation>'s <attr> is <value>." into a colloquial sentence
(App. C.3) and asks "What is my <relation>'s <attr>?".  We write the colloquial forms ourselves,
one per attribute kind, so generation stays offline and deterministic.  A fact is a subject (a
person, an event, an item, a place), an attribute kind and a value; `value_text` is how the value
reads both inside a sentence and as a multiple-choice option, so an option is always the exact
words the evidence used.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from pytest_memorybench.scenarios.membench.graph import Event, Item, Person, Place
from pytest_memorybench.scenarios.membench.lists import NUMBER_WORDS

Subject = Person | Event | Item | Place

PERSON_KINDS = (
    "name", "age", "height", "birthday", "hometown", "work_location", "education", "occupation", "position",
    "company", "hobby", "character", "phone", "email",
)  # fmt: skip
EVENT_KINDS = ("location", "start", "scale", "days", "content")


@dataclass(frozen=True)
class Fact:
    """One fact of the graph: its subject, its kind and its value."""

    subject: Subject
    kind: str
    value: Any

    @property
    def text(self) -> str:
        return value_text(self.kind, self.value)


def fact(subject: Subject, kind: str) -> Fact:
    """The graph's own value of `kind` for `subject` (`item` / `place`: its name)."""
    attribute = {"item": "name", "place": "name"}.get(kind, kind)
    return Fact(subject, kind, getattr(subject, attribute))


def subject_key(subject: Subject) -> str:
    """What names a subject within its graph (relations, event names, item and place types are unique)."""
    if isinstance(subject, Person):
        return f"person:{subject.relation}"
    if isinstance(subject, Event):
        return f"event:{subject.name}"
    return f"{type(subject).__name__.lower()}:{subject.type}"


def value_text(kind: str, value: Any) -> str:
    """A fact's value as a sentence says it."""
    if kind == "age":
        return f"{value} years old"
    if kind == "height":
        return f"{value} cm"
    if kind in ("birthday", "start"):
        return day_text(value)
    if kind == "scale":
        return f"{NUMBER_WORDS[value]} people"
    if kind == "days":
        return f"{NUMBER_WORDS[value]} day" + ("" if value == 1 else "s")
    return str(value)


def day_text(day: date) -> str:
    """ "March 4": the way people name a day without its year."""
    return f"{day:%B} {day.day}"


def article(noun: str) -> str:
    """'a' or 'an' for `noun`."""
    return "an" if noun[:1].lower() in "aeiou" else "a"


# (statement about someone else, statement about the user); {s} is the subject, {v} the value.
_PERSON_STATEMENTS: dict[str, tuple[str, str]] = {
    "name": ("{S}'s name is {v}.", "My name is {v}."),
    "age": ("{S} is {v}.", "I am {v}."),
    "height": ("{S} is {v} tall.", "I am {v} tall."),
    "birthday": ("{S}'s birthday is on {v}.", "My birthday is on {v}."),
    "hometown": ("{S} grew up in {v}.", "I grew up in {v}."),
    "work_location": ("{S} works in {v}.", "I work in {v}."),
    "education": ("{S} holds {a} {v}.", "I hold {a} {v}."),
    "occupation": ("{S} works as {a} {v}.", "I work as {a} {v}."),
    "position": ("{S}'s position at work is {v}.", "My position at work is {v}."),
    "company": ("{S} is employed at {v}.", "I am employed at {v}."),
    "hobby": ("{S}'s favourite hobby is {v}.", "My favourite hobby is {v}."),
    "character": ("{S} is a really {v} person.", "People say I am a really {v} person."),
    "phone": ("{S}'s phone number is {v}.", "My phone number is {v}."),
    "email": ("{S}'s email address is {v}.", "My email address is {v}."),
}
# (question about someone else, about the user); {s} is the subject in lower case.
_PERSON_QUESTIONS: dict[str, tuple[str, str]] = {
    "name": ("What is {s}'s name?", "What is my name?"),
    "age": ("How old is {s}?", "How old am I?"),
    "height": ("How tall is {s}?", "How tall am I?"),
    "birthday": ("When is {s}'s birthday?", "When is my birthday?"),
    "hometown": ("Where did {s} grow up?", "Where did I grow up?"),
    "work_location": ("In which city does {s} work?", "In which city do I work?"),
    "education": ("What is {s}'s highest qualification?", "What is my highest qualification?"),
    "occupation": ("What does {s} do for a living?", "What do I do for a living?"),
    "position": ("What position does {s} hold at work?", "What position do I hold at work?"),
    "company": ("Which company employs {s}?", "Which company employs me?"),
    "hobby": ("What is {s}'s favourite hobby?", "What is my favourite hobby?"),
    "character": ("What kind of person is {s}?", "What kind of person am I?"),
    "phone": ("What is {s}'s phone number?", "What is my phone number?"),
    "email": ("What is {s}'s email address?", "What is my email address?"),
}
# What a kind is called, for "What is the <noun> of the person named X?" (multi-hop).
PERSON_NOUNS: dict[str, str] = {
    "age": "age", "height": "height", "birthday": "birthday", "hometown": "hometown",
    "work_location": "city of work", "education": "highest qualification", "occupation": "occupation",
    "position": "position at work", "company": "employer", "hobby": "favourite hobby",
    "character": "character", "phone": "phone number", "email": "email address",
}  # fmt: skip
_EVENT_STATEMENTS = {
    "location": "The {n} takes place in {v}.",
    "start": "The {n} starts on {v}.",
    "scale": "About {v} are expected at the {n}.",
    "days": "The {n} lasts {v}.",
    "content": "The {n} is {a} {k}: {v}.",
}
_EVENT_QUESTIONS = {
    "location": "Where does the {n} take place?",
    "start": "On which day does the {n} start?",
    "scale": "How many people are expected at the {n}?",
    "days": "How long does the {n} last?",
    "content": "What is the {n} about?",
}
CORRECTIONS = (
    "I need to correct something I told you earlier. ",
    "Sorry, I got that wrong before. ",
    "Small update to what I said before. ",
    "Let me fix a mistake I made earlier. ",
)


def subject_phrase(person: Person, *, named: bool = False) -> str:
    """ "my aunt", or with her name "my aunt, Sophie Turner," (never for the user)."""
    return f"my {person.relation}, {person.name}," if named else f"my {person.relation}"


def statement(item: Fact, *, named: bool = False) -> str:
    """The user's sentence telling `item` (a fact about a person, an event, an item or a place)."""
    subject, value = item.subject, item.text
    if isinstance(subject, Person):
        other, own = _PERSON_STATEMENTS[item.kind]
        if subject.relation == "self":
            return own.format(v=value, a=article(value))
        template = other
        if named and template.startswith("{S}'s"):  # "my aunt Sophie Turner's birthday"
            phrase = f"my {subject.relation} {subject.name}"
        else:
            phrase = subject_phrase(subject, named=named)
        return _capitalised(template.format(S=phrase, v=value, a=article(value)))
    if isinstance(subject, Event):
        return _EVENT_STATEMENTS[item.kind].format(
            n=subject.name, v=value, a=article(subject.kind), k=subject.kind
        )
    if isinstance(subject, Item):
        return f"The {subject.type} I use every day is the {value}."
    return f"I spent an afternoon at {value} last month; it is a lovely {subject.type}."


def question(item: Fact) -> str:
    """The question that asks for a fact."""
    subject = item.subject
    if isinstance(subject, Person):
        other, own = _PERSON_QUESTIONS[item.kind]
        return own if subject.relation == "self" else other.format(s=subject_phrase(subject))
    if isinstance(subject, Event):
        return _EVENT_QUESTIONS[item.kind].format(n=subject.name)
    if isinstance(subject, Item):
        return f"Which {subject.type} do I use every day?"
    return f"Which {subject.type} did I spend an afternoon at last month?"


def correction(item: Fact, prefix: str) -> str:
    """A knowledge update: the new value, said as a correction of the old one."""
    return prefix + statement(item)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
