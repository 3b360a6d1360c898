"""Laying out a generated trajectory: evidence spread evenly among related facts and noise.

MemBench builds each trajectory around its question's evidence: the evidence turns, the other
facts of the user's graph said around them, and (§4) noise inserted until the trajectory reaches
its target size.  "The key evidence rounds in a session are almost evenly distributed" (§3.5):
we cut the trajectory into as many equal stretches as there are evidence units and put each unit
at a seeded random place within its own stretch, so over many questions evidence positions are
uniform and a question's evidence is spread across its whole trajectory, in order (a correction
always follows what it corrects).  Related facts go to seeded random places; noise fills the rest
in its stream's order.

Size.  `target_tokens` is in cl100k tokens, what the run's counter and the paper count.  The
layout counts with `ApproximateCounter` instead, so it is the same on every machine, tiktoken
installed or not; that counter counts our text about 5 % higher (0.948-0.959 cl100k tokens per
approximate token, measured on our noise and statements at 10k and 100k), so noise is added until
the approximate count reaches `approximate_budget(target_tokens)`, the target divided by
`CL100K_PER_APPROXIMATE`: every trajectory then reaches its target in cl100k tokens, overshooting
by about 1 %.  Each observation message also carries its place, "(place: the gym)", counted
too; every place has the same size, so a trajectory overshoots its budget by less than a step.

Time (§3.1).  Steps are grouped in sessions (participation) or in days of messages (observation),
one per day, starting at a seeded hour; within a session turns are a minute apart (the user's
message, then the reply a minute later), observed messages a few minutes apart.  A question that
needs its evidence units in sessions of their own (multi-session recommendations, an emotion's
remarks at a given time of day) gets a session break before each unit; no session is ever cut
inside a unit.  Nothing is rendered until `turns()` is called: the layout holds noise as indices
into its stream, so a 100k-token case costs a few kilobytes until it is delivered.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from pytest_memorybench.core.records import Message
from pytest_memorybench.core.tokens import ApproximateCounter
from pytest_memorybench.scenarios.membench.case import Case, distinctive_texts
from pytest_memorybench.scenarios.membench.graph import build_graph
from pytest_memorybench.scenarios.membench.lists import ACKNOWLEDGEMENTS, WHEREABOUTS
from pytest_memorybench.scenarios.membench.noise import NoiseStream, noise_stream
from pytest_memorybench.scenarios.membench.phrasing import day_text
from pytest_memorybench.scenarios.membench.questions import (
    LETTERS,
    WHEN,
    QuestionSpec,
    Step,
    build_question,
    related_steps,
)

_COUNTER = ApproximateCounter()
NOISE_OFFSETS = 1500  # a trajectory's noise starts at a seeded offset below this in its stream
SESSION_STEPS = {True: (4, 12), False: (8, 24)}  # steps per session: participation, observation
CL100K_PER_APPROXIMATE = 0.945  # just below the lowest ratio measured, so the target is always reached
_PLACE_TOKENS = min(_COUNTER.count(f" (place: {place})") for place in WHEREABOUTS)


def approximate_budget(target_tokens: int) -> int:
    """The approximate-counter size a trajectory is padded to so that it holds `target_tokens` cl100k
    tokens."""
    return math.ceil(target_tokens / CL100K_PER_APPROXIMATE)


def place_suffix(place: str) -> str:
    """How an observation names the place it happens in."""
    return f" (place: {place})"


@cache
def _suffix_tokens(place: str) -> int:
    return _COUNTER.count(place_suffix(place))


@dataclass(frozen=True)
class Layout:
    """Where everything goes: the steps (a core step, or an index into the noise stream) and sessions."""

    steps: tuple[Step | int, ...]
    evidence: tuple[int, ...]  # step ids of the evidence, in order
    sessions: tuple[tuple[int, datetime, str], ...]  # (first step, start time, place)
    minutes: tuple[int, ...]  # per session: minutes between observed messages
    tokens: int  # of the steps' texts (observed messages' places not included)

    def session_of(self, step: int) -> int:
        low, high = 0, len(self.sessions) - 1
        while low < high:  # the last session starting at or before `step`
            middle = (low + high + 1) // 2
            if self.sessions[middle][0] <= step:
                low = middle
            else:
                high = middle - 1
        return low


def generate_case(
    case_id: str,
    kind: str,
    *,
    seed: int,
    dialogue: bool,
    target_tokens: int,
    related: int,
    year: int = 2024,
) -> Case:
    """The case `case_id` of question type `kind`: graph, question, evidence, related facts, noise."""
    key = f"{seed}|{case_id}"
    rng = random.Random(f"membench|case|{key}")
    spec = build_question(kind, build_graph(key, year=year), rng)
    related_facts = related_steps(spec, rng, related)
    if dialogue:
        spec, related_facts = _with_replies(spec, related_facts, rng)
    stream = noise_stream(seed, dialogue)
    layout = lay_out(
        spec,
        related_facts,
        stream,
        rng,
        dialogue=dialogue,
        budget=approximate_budget(target_tokens),
        year=year,
    )
    question = spec.question
    if WHEN in question:
        first_unit_step = layout.evidence[0]
        question = question.replace(
            WHEN, day_text(layout.sessions[layout.session_of(first_unit_step)][1].date())
        )
    core = [step for step in layout.steps if not isinstance(step, int)]
    evidence_texts = distinctive_texts(
        [_texts(step, stream) for step in core],
        [_texts(layout.steps[step], stream) for step in layout.evidence],
    )

    def turns() -> Iterator[Message]:
        return render(layout, stream, dialogue)

    return Case(
        id=case_id,
        type=kind,
        level=spec.level,
        question=question,
        options=spec.options,
        answer=LETTERS[spec.answer],
        evidence=layout.evidence,
        evidence_texts=evidence_texts,
        steps=len(layout.steps),
        messages_per_step=2 if dialogue else 1,
        turns=turns,
        tokens=layout.tokens if dialogue else layout.tokens + _observation_suffixes(layout),
    )


def _observation_suffixes(layout: Layout) -> int:
    """The tokens an observation stream's messages add by naming their place (one suffix per step)."""
    ends = [first for first, _, _ in layout.sessions[1:]] + [len(layout.steps)]
    return sum(
        _suffix_tokens(place) * (end - first)
        for (first, _, place), end in zip(layout.sessions, ends, strict=True)
    )


def _with_replies(
    spec: QuestionSpec, related_facts: list[Step], rng: random.Random
) -> tuple[QuestionSpec, list[Step]]:
    """Participation: every user statement gets a recorded acknowledgement, unless it has its reply."""

    def replied(step: Step) -> Step:
        return step if step.assistant else Step(step.user, rng.choice(ACKNOWLEDGEMENTS))

    evidence = tuple(tuple(replied(step) for step in unit) for unit in spec.evidence)
    return dataclasses.replace(spec, evidence=evidence), [replied(step) for step in related_facts]


def _texts(step: Step | int, stream: NoiseStream) -> tuple[str, ...]:
    resolved = stream.step(step) if isinstance(step, int) else step
    return tuple(text for text in (resolved.user, resolved.assistant) if text)


def _step_tokens(step: Step | int, stream: NoiseStream) -> int:
    if isinstance(step, int):
        return stream.tokens(step)
    return _COUNTER.count(step.user) + (_COUNTER.count(step.assistant) if step.assistant else 0)


def lay_out(
    spec: QuestionSpec,
    related_facts: list[Step],
    stream: NoiseStream,
    rng: random.Random,
    *,
    dialogue: bool,
    budget: int,
    year: int = 2024,
) -> Layout:
    """The trajectory's layout, padded with noise to `budget` approximate tokens."""
    units = [list(unit) for unit in spec.evidence]
    core = [step for unit in units for step in unit] + related_facts
    size = sum(_step_tokens(step, stream) for step in core) + (0 if dialogue else _PLACE_TOKENS * len(core))
    offset = rng.randrange(NOISE_OFFSETS)
    count, noise_tokens = stream.span(offset, budget - size, 0 if dialogue else _PLACE_TOKENS)
    noise = range(offset, offset + count)
    total = len(core) + len(noise)
    tokens = sum(_step_tokens(step, stream) for step in core) + noise_tokens

    # Evidence: unit u somewhere in the u-th of len(units) equal stretches.
    starts: list[int] = []
    stretch = total / len(units)
    for number, unit in enumerate(units):
        room = total - sum(len(u) for u in units[number:])  # the latest start that leaves space for the rest
        low = min(room, max(int(number * stretch), starts[-1] + len(units[number - 1]) if starts else 0))
        high = min(room, max(low, int((number + 1) * stretch) - len(unit)))
        starts.append(rng.randint(low, high))
    slots: list[Step | int | None] = [None] * total
    evidence: list[int] = []
    for start, unit in zip(starts, units, strict=True):
        for position, step in enumerate(unit, start):
            slots[position] = step
            evidence.append(position)
    free = [position for position, value in enumerate(slots) if value is None]
    for position, step in zip(
        sorted(rng.sample(free, len(related_facts))),
        rng.sample(related_facts, len(related_facts)),
        strict=True,
    ):
        slots[position] = step
    filler = iter(noise)
    steps = tuple(next(filler) if value is None else value for value in slots)

    unit_starts = set(starts) if spec.own_sessions else set()
    inside = {
        position
        for start, unit in zip(starts, units, strict=True)
        for position in range(start + 1, start + len(unit))
    }
    return Layout(
        steps, tuple(evidence), *_sessions(total, unit_starts, inside, spec.hour, rng, dialogue, year), tokens
    )


def _sessions(
    total: int,
    breaks: set[int],
    inside: set[int],
    hour: int | None,
    rng: random.Random,
    dialogue: bool,
    year: int,
) -> tuple[tuple[tuple[int, datetime, str], ...], tuple[int, ...]]:
    """Session boundaries, start times and places: one session a day, never cut inside a unit."""
    low, high = SESSION_STEPS[dialogue]
    firsts: list[int] = []
    position = 0
    while position < total:
        firsts.append(position)
        end = position + rng.randint(low, high)
        following = [b for b in breaks if position < b < end]
        if following:
            end = min(following)
        while end in inside:
            end += 1
        position = end
    day = datetime(year, 1, 1) + timedelta(days=rng.randrange(200))
    sessions, minutes = [], []
    for first in firsts:
        start_hour = hour if (first in breaks and hour is not None) else rng.randint(7, 21)
        sessions.append(
            (first, day.replace(hour=start_hour, minute=rng.randrange(0, 60, 5)), rng.choice(WHEREABOUTS))
        )
        minutes.append(rng.randint(2, 9))
        day += timedelta(days=rng.randint(1, 3))
    return tuple(sessions), tuple(minutes)


def render(layout: Layout, stream: NoiseStream, dialogue: bool) -> Iterator[Message]:
    """The trajectory's messages, made as they are delivered."""
    session = 0
    for index, planned in enumerate(layout.steps):
        while session + 1 < len(layout.sessions) and layout.sessions[session + 1][0] <= index:
            session += 1
        first, start, place = layout.sessions[session]
        step = stream.step(planned) if isinstance(planned, int) else planned
        offset = index - first
        if dialogue:
            when = start + timedelta(minutes=2 * offset)
            yield Message(step.user, when, "user")
            yield Message(step.assistant, when + timedelta(minutes=1), "assistant")
        else:
            yield Message(
                step.user + place_suffix(place), start + timedelta(minutes=layout.minutes[session] * offset)
            )
