"""The ceiling: an agent that answers every question with its ideal answer.

It exists to validate scorers and the harness end to end: if `oracle` does not score 1.0 on a
scenario, the scenario's generator, its expected answer or its scorer is wrong.  The harness
primes it through `prime_answer` right before each question; every other message gets a short
acknowledgement, as a well-behaved assistant would give.
"""

from __future__ import annotations

from pytest_memorybench.core.records import Message

ACKNOWLEDGEMENT = "Noted."


class OracleAgent:
    """`--agent oracle`: answers each question with the ideal answer the harness primes it with."""

    def __init__(self) -> None:
        self._primed: str | None = None

    async def prime_answer(self, ideal: str) -> None:
        self._primed = ideal

    async def reply(self, message: Message) -> str:
        answer, self._primed = self._primed, None
        return ACKNOWLEDGEMENT if answer is None else answer

    async def reset(self) -> None:
        self._primed = None
