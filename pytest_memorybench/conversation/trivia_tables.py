"""The facts filler asks about: short tables of common public knowledge, written for this project.

GoodAI's reference took its questions from TriviaQA, which we may not redistribute.  These tables
are our own (facts are not anyone's property), plain ASCII so token counts and JSON stay simple;
anything debatable was left out on purpose, since an answer the agent could reasonably dispute
would make the filler noisier than it needs to be.  `trivia.py` phrases them as questions.
"""

from __future__ import annotations

from pytest_memorybench.core.package_data import frozen, package_json

_DATA = package_json("pytest_memorybench.conversation", "data/trivia_tables.json")

# ------------------------------------------------------------------------------------------------
# Fact tables (our own; plain ASCII so token counts and JSON stay simple).  A leading "the " on a
# name is kept for questions and dropped when the name is itself the answer.
# ------------------------------------------------------------------------------------------------

CAPITALS: dict[str, str] = frozen(_DATA["CAPITALS"])

# Transcontinental countries (Russia, Turkey, Egypt), Oceania and the Caribbean are left out: each
# has more than one defensible answer.
CONTINENTS: dict[str, str] = frozen(_DATA["CONTINENTS"])

CURRENCIES: dict[str, str] = frozen(_DATA["CURRENCIES"])

LANGUAGES: dict[str, str] = frozen(_DATA["LANGUAGES"])

# name -> (symbol, atomic number)
ELEMENTS: dict[str, tuple[str, int]] = frozen(_DATA["ELEMENTS"])

PLANETS: tuple[str, ...] = frozen(_DATA["PLANETS"])

# Title -> author.  Titles shared by several well-known works are left out.
AUTHORS: dict[str, str] = frozen(_DATA["AUTHORS"])

# Only inventions with one uncontested name attached.
INVENTIONS: dict[str, str] = frozen(_DATA["INVENTIONS"])

DISCOVERIES: dict[str, str] = frozen(_DATA["DISCOVERIES"])

YOUNG_ANIMALS: dict[str, str] = frozen(_DATA["YOUNG_ANIMALS"])

ANIMAL_GROUPS: dict[str, str] = frozen(_DATA["ANIMAL_GROUPS"])

# (smaller unit, larger unit with its article, how many of the first make one of the second)
UNITS: tuple[tuple[str, str, int], ...] = frozen(_DATA["UNITS"])

POLYGON_SIDES: dict[str, int] = frozen(_DATA["POLYGON_SIDES"])

SOLID_FACES: dict[str, int] = frozen(_DATA["SOLID_FACES"])

MONTHS: tuple[str, ...] = frozen(_DATA["MONTHS"])
MONTH_DAYS: tuple[int, ...] = frozen(_DATA["MONTH_DAYS"])  # common year
WEEKDAYS: tuple[str, ...] = frozen(_DATA["WEEKDAYS"])

# City -> the river it stands on (cities on two rivers of similar note are left out).
CITY_RIVERS: dict[str, str] = frozen(_DATA["CITY_RIVERS"])

RIVER_CONTINENTS: dict[str, str] = frozen(_DATA["RIVER_CONTINENTS"])

INSTRUMENT_FAMILIES: dict[str, str] = frozen(_DATA["INSTRUMENT_FAMILIES"])

INSTRUMENT_STRINGS: dict[str, int] = frozen(_DATA["INSTRUMENT_STRINGS"])

# Players per side in play at one time.
TEAM_SIZES: dict[str, int] = frozen(_DATA["TEAM_SIZES"])

PLURALS: dict[str, str] = frozen(_DATA["PLURALS"])

OPPOSITES: dict[str, str] = frozen(_DATA["OPPOSITES"])

COLOUR_MIXES: dict[tuple[str, str], str] = {
    (first, second): mix for (first, second), mix in _DATA["COLOUR_MIXES"]
}

# Stand-alone facts: (family, first phrasing, second phrasing, answer).
STANDALONE: tuple[tuple[str, str, str, str], ...] = frozen(_DATA["STANDALONE"])

ORDINAL_WORDS: tuple[str, ...] = frozen(_DATA["ORDINAL_WORDS"])
