"""The model behind a memory system, and where each of its calls goes: *write* or *read*.

MemBench reports a memory's efficiency as the time it takes to take a message in (write) and to
answer from memory (read); we count every model call of a mechanism the same way, with tokens and
cost as well, so any benchmark shows what a memory costs beside what it scores.  One model answers
the questions and, unless a second one is named (`--mb-memory-model`), also does the mechanism's
own work: extraction, summaries, importance ratings, relevance checks, function calls.

A call whose reply must be JSON is asked again once when it is not; if it still is not, the
mechanism gets `None` and carries on as its paper's code does with a reply it cannot read (an
empty extraction, a default rating), so a weak model lowers the score and never crashes the item.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any, Literal

from pytest_memorybench.core.json_reply import extract_json
from pytest_memorybench.core.records import Usage
from pytest_memorybench.models.llm import Completion, LLMChatAgent, Turn

Phase = Literal["write", "read"]
PHASES: tuple[Phase, ...] = ("write", "read")
WORK_SYSTEM = "You are the memory module of a conversational assistant. Follow the instructions exactly."
JSON_AGAIN = "Your last reply could not be read as JSON. Reply again with the JSON only."
_WORD = re.compile(r"[a-z]+")


def first_word(reply: str) -> str:
    """A yes/no verdict's word, however it is set ("Yes.", "**No**"), lower-cased: "Noted" is not "no"."""
    found = _WORD.search(reply.lower())
    return found.group() if found else ""


class MemoryModel:
    """The answering model and the working model, with their calls counted by phase."""

    def __init__(self, answerer: LLMChatAgent, worker: LLMChatAgent | None = None) -> None:
        self.answerer = answerer
        self.worker = worker or answerer
        self.phase_usage: dict[str, Usage] = {phase: Usage() for phase in PHASES}
        self.usage = Usage()  # both phases: what the harness reports as the agent's spending

    @property
    def context_tokens(self) -> int:
        """The answering model's window, as `--mb-context` or the model's known size sets it."""
        from pytest_memorybench.models.prices import context_window_for

        return self.answerer.context_tokens or context_window_for(self.answerer.model)

    @property
    def output_tokens(self) -> int:
        return self.answerer.max_output_tokens

    async def answer(self, system: str, turns: Sequence[Turn], **options: Any) -> Completion:
        """The reply the user gets: always the answering model, always *read*."""
        return await self._call(self.answerer, "read", system, turns, **options)

    async def step(self, system: str, turns: Sequence[Turn], **options: Any) -> tuple[Completion, Usage]:
        """An answering-model call left for the caller to charge, once it knows what the call did
        (MemGPT's function calls are writes or reads by the function chosen)."""
        return await self.answerer.ask(system, list(turns), **options)

    async def work(self, prompt: str, phase: Phase, *, system: str = WORK_SYSTEM, **options: Any) -> str:
        """The mechanism's own work: one prompt, the reply's text."""
        completion = await self._call(
            self.worker, phase, system, [{"role": "user", "content": prompt}], **options
        )
        return completion.text

    async def work_json(self, prompt: str, phase: Phase, *, system: str = WORK_SYSTEM) -> Any:
        """The JSON the model replies with, asked again once; None when neither reply holds any."""
        turns: list[Turn] = [{"role": "user", "content": prompt}]
        for attempt in range(2):
            completion = await self._call(self.worker, phase, system, turns)
            try:
                return extract_json(completion.text)
            except ValueError:
                if attempt == 0:
                    turns = [
                        *turns,
                        {"role": "assistant", "content": completion.text},
                        {"role": "user", "content": JSON_AGAIN},
                    ]
        return None

    def charge(self, phase: Phase, spent: Usage) -> None:
        """Count a call made elsewhere (an embeddings request) in `phase`."""
        self.phase_usage[phase].add(spent)
        self.usage.add(spent)

    def fork(self) -> MemoryModel:
        """A model for a forked memory: the same clients, its own counts from zero."""
        twin = copy.copy(self)
        twin.phase_usage = {phase: Usage() for phase in PHASES}
        twin.usage = Usage()
        return twin

    async def _call(
        self, agent: LLMChatAgent, phase: Phase, system: str, turns: Sequence[Turn], **options: Any
    ) -> Completion:
        completion, spent = await agent.ask(system, list(turns), **options)
        self.charge(phase, spent)
        return completion

    async def aclose(self) -> None:
        await self.answerer.aclose()
        if self.worker is not self.answerer:
            await self.worker.aclose()
