"""What a test says to the scheduler: the actions of a test program.

A test is an async generator.  It yields `Say` and receives the agent's reply; yields `Wait` to be
set aside until enough tokens or simulated time have passed; yields `RegisterCallback` to have a
check run after every later turn of the whole conversation; and may yield `Finish` with its own
score (dynamic tests, which decide as they go).  Scripted tests from a TestDefinition are the
common case and are turned into programs by `scripted_program`; a dynamic scenario writes its
program by hand and can choose its next line from the last reply.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass

from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition


@dataclass(frozen=True)
class Say:
    """Send `text` to the agent; the program receives the reply.  `ideal` primes the oracle."""

    text: str
    is_question: bool = False
    ideal: str | None = None


@dataclass(frozen=True)
class Wait:
    """Be set aside until every given condition holds.

    `percentage` is of the memory span and counts from the test's first message: the test waits
    *until* that share of the span has passed since it began (the reading GoodAI settled on in
    PR #49), not *for* that share.  `tokens` counts from now; `seconds` is simulated time.
    """

    tokens: int = 0
    seconds: float = 0.0
    percentage: float = 0.0

    @classmethod
    def from_goodai(cls, wait: dict[str, float]) -> Wait | None:
        """The GoodAI definition-file form: {"tokens", "time" (seconds), "percentage_finished"}."""
        if not any(wait.get(key) for key in ("tokens", "time", "percentage_finished")):
            return None
        return cls(
            tokens=int(wait.get("tokens", 0) or 0),
            seconds=float(wait.get("time", 0) or 0),
            percentage=float(wait.get("percentage_finished", 0) or 0),
        )


@dataclass(frozen=True)
class Exchange:
    """One turn of the conversation as callbacks see it: who spoke for which test, and the reply."""

    test: str | None  # None for filler and the intro
    message: str
    reply: str


@dataclass(frozen=True)
class Verdict:
    """A callback's answer after a turn: keep watching, or stop with a score."""

    done: bool
    score: Score | None = None


Callback = Callable[[Sequence[Exchange]], Verdict]  # sees the exchanges since it was registered


@dataclass(frozen=True)
class RegisterCallback:
    """Watch every later turn with `callback` until it says it is done.

    `oracle_reply` = (n, text) tells the calibration oracle to add `text` to its nth reply after
    registration (1-based), whichever test or filler that reply answers, as prospective-memory
    tests require of a perfect agent.
    """

    callback: Callback
    oracle_reply: tuple[int, str] | None = None


@dataclass(frozen=True)
class Finish:
    """A dynamic test's own verdict; scripted tests are scored by their scenario instead."""

    score: Score


@dataclass(frozen=True)
class ProgramContext:
    """What a dynamic test may consult while it runs: the simulated clock (e.g. to phrase "how
    many hours ago") and the scoring context (profile, and the judge to read a reply with)."""

    clock: SimulatedClock
    scoring: ScoringContext


Action = Say | Wait | RegisterCallback | Finish
TestProgram = AsyncGenerator[Action, "str | None"]
ProgramFactory = Callable[[TestDefinition, ProgramContext], TestProgram]


async def scripted_program(definition: TestDefinition, context: ProgramContext | None = None) -> TestProgram:
    """Say each script line, waiting after it as the definition says, then the reset statement."""
    ideal_answers = iter(definition.ideal_answers)
    for line in definition.script:
        ideal = next(ideal_answers, None) if line.is_question else None
        yield Say(line.text, is_question=line.is_question, ideal=ideal)
        wait = Wait.from_goodai(line.wait)
        if wait is not None:
            yield wait
    if definition.reset_message:
        yield Say(definition.reset_message)
