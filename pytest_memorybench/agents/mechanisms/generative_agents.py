"""`generative-agents`: Park et al.'s (2023) memory stream, retrieval and reflection.

Every message heard is an observation in the memory stream, with the time it was made, the time
it was last retrieved and an importance the model rates from 1 (mundane) to 10 (poignant).  A
query scores every memory by recency (`decay` to the power of the hours since its last retrieval;
0.995 in the paper), importance and relevance (similarity to the query), each min–max normalised
over the stream and summed with equal weights; the top `k` are retrieved and their last-retrieval
time set to now.  When the importance of the memories since the last reflection adds up past
`reflect_threshold` (150), the agent reflects: the model asks `questions` (3) salient questions
about the 100 newest memories, each retrieves memories, and the model draws up to `insights` (5)
insights from them, which join the stream (rated like any memory).  The prompt holds the retrieved
memories and the last `recent` messages.  An importance reply without a number counts as 5.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem
from pytest_memorybench.agents.mechanisms.index import top
from pytest_memorybench.agents.mechanisms.model import Phase
from pytest_memorybench.agents.mechanisms.prompt import section, system_prompt
from pytest_memorybench.agents.mechanisms.settings import positive, require

IMPORTANCE = """On the scale of 1 to 10, where 1 is purely mundane (e.g. greetings, small talk) and 10 is
extremely poignant (e.g. a life event, a promise, a fact to remember for later), rate the likely
poignancy of this memory.
Memory: {memory}
Reply with the number only."""

QUESTIONS = """{memories}

Given only the information above, what are the {count} most salient high-level questions we can answer
about the subjects in the statements? One question per line."""

INSIGHTS = """Statements:
{memories}

What {count} high-level insights can you infer from the above statements? One insight per line."""

DEFAULT_IMPORTANCE = 5.0
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass
class Observation:
    """One entry of the memory stream: what was observed or concluded, its times and its importance."""

    text: str
    made: datetime | None
    last_access: datetime | None
    importance: float
    insight: bool = False


@dataclass(frozen=True)
class GenerativeAgentsSettings:
    """Park et al.'s parameters: memories retrieved, recency decay per hour, the importance that triggers a
    reflection, questions and insights per reflection, recent turns in the prompt.
    """

    k: int = 10
    decay: float = 0.995
    reflect_threshold: float = 150.0
    questions: int = 3
    insights: int = 5
    recent: int = 4

    def __post_init__(self) -> None:
        positive(
            k=self.k,
            reflect_threshold=self.reflect_threshold,
            questions=self.questions,
            insights=self.insights,
        )
        require(0 < self.decay <= 1, f"decay must be above 0 and at most 1, got {self.decay:g}")
        require(self.recent >= 0, f"recent must be 0 or more, got {self.recent}")


class GenerativeAgents(MemorySystem):
    """`generative-agents`: a memory stream ranked by recency, importance and relevance, with reflections."""

    name = "generative-agents"
    settings_type = GenerativeAgentsSettings
    answer_changes_memory = True  # retrieval refreshes last access

    def start(self) -> None:
        self.stream: list[Observation] = []
        self.index = self.new_index()
        self.unreflected = 0.0
        self.reflections = 0

    async def write(self, entries: Sequence[Entry]) -> None:
        for entry in entries:
            await self._observe(entry.line, entry.time)
        if self.unreflected > self.settings.reflect_threshold:
            await self.reflect(entries[-1].time if entries else None)

    async def _observe(self, text: str, moment: datetime | None, *, insight: bool = False) -> None:
        rated = await self.model.work(IMPORTANCE.format(memory=text), "write")
        number = _NUMBER.search(rated)
        importance = min(max(float(number.group()), 1.0), 10.0) if number else DEFAULT_IMPORTANCE
        self.stream.append(Observation(text, moment, moment, importance, insight))
        await self.index.add([text], "write")
        self.unreflected += importance

    async def reflect(self, now: datetime | None) -> None:
        newest = "\n".join(observation.text for observation in self.stream[-100:])
        asked = await self.model.work(
            QUESTIONS.format(memories=newest, count=self.settings.questions), "write"
        )
        questions = [line.strip(" -*0123456789.)") for line in asked.splitlines() if line.strip()][
            : self.settings.questions
        ]
        for question in questions:
            found = await self.retrieved(question, self.settings.k, now, "write")
            statements = "\n".join(f"{n}. {self.stream[i].text}" for n, i in enumerate(found, 1))
            drawn = await self.model.work(
                INSIGHTS.format(memories=statements, count=self.settings.insights), "write"
            )
            for line in [line.strip(" -*0123456789.)") for line in drawn.splitlines() if line.strip()][
                : self.settings.insights
            ]:
                await self._observe(line, now, insight=True)
        self.unreflected = 0.0
        self.reflections += 1

    async def scores(self, query: str, now: datetime | None, phase: Phase = "read") -> np.ndarray:
        """Recency + importance + relevance, each min–max normalised over the stream."""
        hours = np.array(
            [
                max((now - o.last_access).total_seconds(), 0.0) / 3600
                if now is not None and o.last_access is not None
                else 0.0
                for o in self.stream
            ]
        )
        recency = self.settings.decay**hours
        importance = np.array([o.importance for o in self.stream])
        relevance = await self.index.relevance(query, phase)
        combined: np.ndarray = _normalised(recency) + _normalised(importance) + _normalised(relevance)
        return combined

    async def retrieved(self, query: str, k: int, now: datetime | None, phase: Phase = "read") -> list[int]:
        if not self.stream:
            return []
        found = top(await self.scores(query, now, phase), k)
        for i in found:
            self.stream[i].last_access = now
        return found

    async def answer(self, entry: Entry) -> str:
        found = await self.retrieved(entry.text, self.settings.k, entry.time)
        room = self.room(entry)
        memories = room.newest([self.stream[i].text for i in sorted(found)])
        turns = self.turns_in(room, self.settings.recent)
        return await self.reply_with(system_prompt(section("Relevant memories", memories)), entry, turns)

    async def search(self, query: str, k: int) -> list[str]:
        if not self.stream:
            return []
        now = self.log[-1].time if self.log else None
        return [self.stream[i].text for i in top(await self.scores(query, now), k)]


def _normalised(values: np.ndarray) -> np.ndarray:
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.zeros_like(values, dtype=float)
