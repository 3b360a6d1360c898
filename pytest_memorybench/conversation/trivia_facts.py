"""Trivia facts: our own tables (`trivia_tables.py`) as questions, in several phrasings of our own.

Each table becomes (subject, answer) pairs, a family; `FACTS` is every fact `trivia.TriviaSource`
draws from, and `catalogue()` every question in every phrasing, for checks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pytest_memorybench.conversation.trivia_tables import (
    ANIMAL_GROUPS,
    AUTHORS,
    CAPITALS,
    CITY_RIVERS,
    COLOUR_MIXES,
    CONTINENTS,
    CURRENCIES,
    DISCOVERIES,
    ELEMENTS,
    INSTRUMENT_FAMILIES,
    INSTRUMENT_STRINGS,
    INVENTIONS,
    LANGUAGES,
    MONTH_DAYS,
    MONTHS,
    OPPOSITES,
    ORDINAL_WORDS,
    PLANETS,
    PLURALS,
    POLYGON_SIDES,
    RIVER_CONTINENTS,
    SOLID_FACES,
    STANDALONE,
    TEAM_SIZES,
    UNITS,
    WEEKDAYS,
    YOUNG_ANIMALS,
)

# ------------------------------------------------------------------------------------------------
# Families: each table becomes (subject, answer) pairs with several phrasings of our own.
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TriviaItem:
    """One question with its answer; `family` (e.g. "capitals") is for variety checks and logs."""

    question: str
    answer: str
    family: str = ""


@dataclass(frozen=True)
class Fact:
    """One fact; `templates` are its phrasings, each formatted with `subject` as `{x}`."""

    family: str
    templates: tuple[str, ...]
    subject: str
    answer: str

    def phrased(self, choice: int) -> TriviaItem:
        question = self.templates[choice % len(self.templates)].format(x=self.subject)
        return TriviaItem(question[0].upper() + question[1:], self.answer, self.family)


def _bare(name: str) -> str:
    """'the United States' -> 'United States', for when the name is an answer."""
    return name[4:] if name.startswith("the ") else name


def _ordinal(n: int) -> str:
    if n <= len(ORDINAL_WORDS):
        return ORDINAL_WORDS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _family(family: str, templates: tuple[str, ...], pairs: Iterable[tuple[object, object]]) -> list[Fact]:
    return [Fact(family, templates, str(subject), str(answer)) for subject, answer in pairs]


def _capitals_to_languages() -> list[Fact]:
    """The capitals, continents, currencies and languages facts."""
    facts: list[Fact] = []
    facts += _family(
        "capitals",
        (
            "What is the capital of {x}?",
            "Which city is the capital of {x}?",
            "What is the name of the capital city of {x}?",
            "{x} has which city as its capital?",
        ),
        CAPITALS.items(),
    )
    facts += _family(
        "capitals",
        (
            "{x} is the capital of which country?",
            "Which country has {x} as its capital?",
            "Of which country is {x} the capital city?",
        ),
        ((city, _bare(country)) for country, city in CAPITALS.items()),
    )
    facts += _family(
        "continents",
        (
            "On which continent is {x}?",
            "{x} is on which continent?",
            "Which continent is {x} part of?",
        ),
        CONTINENTS.items(),
    )
    facts += _family(
        "currencies",
        (
            "What is the currency of {x}?",
            "Which currency is used in {x}?",
            "What money do people pay with in {x}?",
        ),
        CURRENCIES.items(),
    )
    facts += _family(
        "languages",
        (
            "What is the main language spoken in {x}?",
            "Which language do most people in {x} speak?",
        ),
        LANGUAGES.items(),
    )
    return facts


def _elements_planets_books() -> list[Fact]:
    """The elements, planets and books facts."""
    facts: list[Fact] = []
    facts += _family(
        "elements",
        (
            "What is the chemical symbol for {x}?",
            "Which symbol stands for {x} in the periodic table?",
            "{x} has which chemical symbol?",
        ),
        ((name, symbol) for name, (symbol, _) in ELEMENTS.items()),
    )
    facts += _family(
        "elements",
        (
            "Which element has the chemical symbol {x}?",
            "The chemical symbol {x} stands for which element?",
        ),
        ((symbol, name) for name, (symbol, _) in ELEMENTS.items()),
    )
    facts += _family(
        "elements",
        (
            "What is the atomic number of {x}?",
            "How many protons are in the nucleus of an atom of {x}?",
        ),
        ((name, number) for name, (_, number) in ELEMENTS.items()),
    )
    facts += _family(
        "planets",
        (
            "Which planet is {x} from the Sun?",
            "Counting outward from the Sun, which planet comes {x}?",
        ),
        ((_ordinal(i + 1), planet) for i, planet in enumerate(PLANETS)),
    )
    facts += _family(
        "planets",
        (
            "Counting outward from the Sun, what number planet is {x}?",
            "In order from the Sun, at what position is {x}?",
        ),
        ((planet, i + 1) for i, planet in enumerate(PLANETS)),
    )
    facts += _family(
        "books",
        (
            'Who wrote "{x}"?',
            'Which author wrote "{x}"?',
            '"{x}" was written by whom?',
        ),
        AUTHORS.items(),
    )
    return facts


def _inventors_to_units() -> list[Fact]:
    """The inventors, discoveries, animals and units facts."""
    facts: list[Fact] = []
    facts += _family(
        "inventors",
        (
            "Who invented {x}?",
            "{x} was invented by whom?",
            "Who is credited with inventing {x}?",
        ),
        INVENTIONS.items(),
    )
    facts += _family(
        "discoveries",
        (
            "Who discovered {x}?",
            "Which scientist discovered {x}?",
            "Who was the discoverer of {x}?",
        ),
        DISCOVERIES.items(),
    )
    facts += _family(
        "animals",
        (
            "What is a baby {x} called?",
            "What is the name for a young {x}?",
            "A young {x} is called what?",
        ),
        YOUNG_ANIMALS.items(),
    )
    facts += _family(
        "animals",
        (
            "What is a group of {x} called?",
            "What collective noun is used for a group of {x}?",
        ),
        ANIMAL_GROUPS.items(),
    )
    facts += [
        Fact(
            "units",
            (
                f"How many {small} are there in {big}?",
                f"{big} is made up of how many {small}?",
                f"How many {small} make {big}?",
            ),
            "",
            str(n),
        )
        for small, big, n in UNITS
    ]
    return facts


def _shapes_calendar() -> list[Fact]:
    """The shapes and calendar facts."""
    facts: list[Fact] = []
    facts += _family(
        "shapes",
        (
            "How many sides does a {x} have?",
            "A {x} has how many sides?",
        ),
        POLYGON_SIDES.items(),
    )
    facts += _family(
        "shapes",
        (
            "How many faces does a {x} have?",
            "A {x} has how many faces?",
        ),
        SOLID_FACES.items(),
    )
    facts += _family(
        "calendar",
        (
            "What is the {x} month of the year?",
            "Which month is the {x} of the year?",
        ),
        ((_ordinal(i + 1), month) for i, month in enumerate(MONTHS)),
    )
    facts += _family(
        "calendar",
        (
            "Which month comes after {x}?",
            "What month follows {x}?",
        ),
        ((month, MONTHS[(i + 1) % 12]) for i, month in enumerate(MONTHS)),
    )
    facts += _family(
        "calendar",
        (
            "Which month comes before {x}?",
            "What month comes just before {x}?",
        ),
        ((month, MONTHS[i - 1]) for i, month in enumerate(MONTHS)),
    )
    facts += _family(
        "calendar",
        (
            "How many days are there in {x}?",
            "{x} has how many days?",
        ),
        ((month, days) for month, days in zip(MONTHS, MONTH_DAYS, strict=True) if month != "February"),
    )
    return facts


def _calendar_rivers_music() -> list[Fact]:
    """The calendar, rivers and music facts."""
    facts: list[Fact] = []
    facts += _family(
        "calendar",
        (
            "Which day of the week comes after {x}?",
            "What day follows {x}?",
        ),
        ((day, WEEKDAYS[(i + 1) % 7]) for i, day in enumerate(WEEKDAYS)),
    )
    facts += _family(
        "calendar",
        (
            "Which day of the week comes before {x}?",
            "What day comes just before {x}?",
        ),
        ((day, WEEKDAYS[i - 1]) for i, day in enumerate(WEEKDAYS)),
    )
    facts += _family(
        "rivers",
        (
            "Which river flows through {x}?",
            "{x} stands on which river?",
            "What is the name of the river that runs through {x}?",
        ),
        CITY_RIVERS.items(),
    )
    facts += _family(
        "rivers",
        (
            "On which continent does {x} river flow?",
            "{x} river is on which continent?",
        ),
        RIVER_CONTINENTS.items(),
    )
    facts += _family(
        "music",
        (
            "Which instrument family does the {x} belong to?",
            "Is the {x} a string, woodwind, brass or percussion instrument?",
        ),
        INSTRUMENT_FAMILIES.items(),
    )
    facts += _family(
        "music",
        (
            "How many strings does a standard {x} have?",
            "A standard {x} has how many strings?",
        ),
        INSTRUMENT_STRINGS.items(),
    )
    return facts


def _sports_to_standalone() -> list[Fact]:
    """The sports, words, alphabet, colours and standalone facts."""
    letters = [chr(ord("A") + i) for i in range(26)]
    facts: list[Fact] = []
    facts += _family(
        "sports",
        (
            "How many players does each team have in play at once in {x}?",
            "In {x}, how many players per side are in play at one time?",
        ),
        TEAM_SIZES.items(),
    )
    facts += _family(
        "words",
        (
            'What is the plural of the word "{x}"?',
            'How do you write "{x}" in the plural?',
        ),
        PLURALS.items(),
    )
    facts += _family(
        "words",
        (
            'What is the opposite of "{x}"?',
            'Which word means the opposite of "{x}"?',
        ),
        OPPOSITES.items(),
    )
    facts += _family(
        "alphabet",
        (
            "What is the {x} letter of the English alphabet?",
            "Which letter comes {x} in the English alphabet?",
        ),
        ((_ordinal(i + 1), letter) for i, letter in enumerate(letters)),
    )
    facts += _family(
        "alphabet",
        (
            "At what position in the English alphabet is the letter {x}?",
            "What number is the letter {x} in the English alphabet?",
        ),
        ((letter, i + 1) for i, letter in enumerate(letters)),
    )
    facts += _family(
        "colours",
        (
            "What colour do you get by mixing {x} paint?",
            "Mixing {x} paint gives which colour?",
        ),
        ((f"{a} and {b}", mix) for (a, b), mix in COLOUR_MIXES.items()),
    )
    facts += [Fact(family, (q1, q2), "", answer) for family, q1, q2, answer in STANDALONE]
    return facts


def _build_facts() -> tuple[Fact, ...]:
    return tuple(
        fact
        for family in (
            _capitals_to_languages,
            _elements_planets_books,
            _inventors_to_units,
            _shapes_calendar,
            _calendar_rivers_music,
            _sports_to_standalone,
        )
        for fact in family()
    )


FACTS: tuple[Fact, ...] = _build_facts()


def catalogue() -> tuple[TriviaItem, ...]:
    """Every table question in every phrasing (generated families excluded), for checks."""
    return tuple(fact.phrased(i) for fact in FACTS for i in range(len(fact.templates)))
