"""The words and sentences the BEAM-shaped generator writes with (all written for this project).

A generated chat follows one user through a project in one domain, over dated sessions, as
BEAM's chats do (paper §2.2, App. B.3): a profile, people around them, a project with phases, and
the user's questions answered at length by the assistant.  Facts for the ten abilities are planted
into that chat (`generator.py`); everything else is filler written from the pools below.

A domain (`Domain`) supplies what its planted facts and filler talk about; the profile pools,
life events, instructions and preferences are shared by every domain.  Planted facts must never be
echoed by filler, so filler draws only on `topics` and `advice`, which name no phase, number or
person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_memorybench.core.package_data import frozen, package_json


@dataclass(frozen=True)
class Phase:
    """A stage of the project: its short label (event ordering), what the user says when it
    starts, and the clause a summary should contain."""

    label: str
    said: str
    summary: str


@dataclass(frozen=True)
class Measure:
    """A number the user states about the project: `unit` formats it ("{n} euros")."""

    name: str
    unit: str
    low: int
    high: int


@dataclass(frozen=True)
class Domain:
    """A project domain of our generated BEAM chats: its phases, measures and milestones."""

    key: str
    project: str  # "{name}" is the project's name
    names: tuple[str, ...]
    phases: tuple[Phase, ...]
    measures: tuple[Measure, ...]
    tally: tuple[str, str]  # (the question about a count, how a part of it is said: "{n}" is the number)
    kinds: tuple[str, tuple[str, ...]]  # (a category, its members) for the multi-session list
    tool: tuple[str, str]  # (a tool, what the user once used it for) for the contradiction
    milestones: tuple[str, str]  # two events for the days-between question, in order
    deadline: str  # what must be done by a date
    plan_task: str  # what a plan is asked for (instruction following)
    costly: str  # what a price is asked for
    options: tuple[str, str]  # two options to compare
    topics: tuple[str, ...]  # filler: things the user asks about
    advice: tuple[str, ...]  # filler: sentences the assistant builds answers from ("{topic}")


@dataclass(frozen=True)
class LifeEvent:
    """Something in the user's life outside the project ({friend}, {partner}, {pet}, {place})."""

    label: str
    said: str
    summary: str


@dataclass(frozen=True)
class Standing:
    """A standing instruction or a stated preference, the later request it governs, the rubric a
    reply to that request is judged by, and a compliant reply (what the calibration oracle says).
    In instructions {plan_task}, {costly}, {option_a} and {option_b} fill in; in preferences
    {project_short}."""

    said: str
    request: str
    rubric: tuple[str, ...]
    answer: str


_DATA = package_json("pytest_memorybench.scenarios.beam", "data/content.json")

FIRST_NAMES: tuple[str, ...] = frozen(_DATA["FIRST_NAMES"])
LAST_NAMES: tuple[str, ...] = frozen(_DATA["LAST_NAMES"])
CITIES: tuple[str, ...] = frozen(_DATA["CITIES"])
PROFESSIONS: tuple[str, ...] = frozen(_DATA["PROFESSIONS"])
PET_NAMES: tuple[str, ...] = frozen(_DATA["PET_NAMES"])
PLACES: tuple[str, ...] = frozen(_DATA["PLACES"])
# Never-versus-did pairs for the second contradiction question ({place} fills in).
CONTRADICTIONS: tuple[tuple[str, str, str, str], ...] = frozen(_DATA["CONTRADICTIONS"])
# Topics the chats never touch: abstention questions ask about them.
NEVER_DISCUSSED: tuple[tuple[str, str], ...] = frozen(_DATA["NEVER_DISCUSSED"])


def _domain(raw: dict[str, Any]) -> Domain:
    """A domain as the data file holds it: its phases and measures records of their own."""
    fields = frozen(raw)
    fields["phases"] = tuple(Phase(**phase) for phase in fields["phases"])
    fields["measures"] = tuple(Measure(**measure) for measure in fields["measures"])
    return Domain(**fields)


DOMAINS: tuple[Domain, ...] = tuple(_domain(raw) for raw in _DATA["DOMAINS"])
LIFE_EVENTS: tuple[LifeEvent, ...] = tuple(LifeEvent(**raw) for raw in _DATA["LIFE_EVENTS"])
INSTRUCTIONS: tuple[Standing, ...] = tuple(Standing(**frozen(raw)) for raw in _DATA["INSTRUCTIONS"])
PREFERENCES: tuple[Standing, ...] = tuple(Standing(**frozen(raw)) for raw in _DATA["PREFERENCES"])

# Filler: how the user opens a question, and how the assistant opens and closes an answer.
USER_OPENERS: tuple[str, ...] = frozen(_DATA["USER_OPENERS"])
USER_ASKS: tuple[str, ...] = frozen(_DATA["USER_ASKS"])
ANSWER_OPENERS: tuple[str, ...] = frozen(_DATA["ANSWER_OPENERS"])
ANSWER_CLOSERS: tuple[str, ...] = frozen(_DATA["ANSWER_CLOSERS"])
ACKNOWLEDGEMENTS: tuple[str, ...] = frozen(_DATA["ACKNOWLEDGEMENTS"])
