"""`generative-agents`: Park et al.'s (2023) memory stream, retrieval and reflection.

Every message heard is an observation in the memory stream, with the time it was made, the time
it was last retrieved and an importance the model rates from 1 (mundane) to 10 (poignant).  A
query scores every memory by recency, importance and relevance (similarity to the query), each
min–max normalised over the stream, and sums them; the top `k` are retrieved and their
last-retrieval time set to now.  When the importance of the memories since the last reflection
adds up past `reflect_threshold` (150), the agent reflects: the model asks `questions` (3) salient
questions about the 100 newest memories, each retrieves memories, and the model draws up to
`insights` (5) insights from them, each citing the statements it rests on ("(because of 1, 5,
3)"); an insight joins the stream (rated like any memory) with pointers to those memories.  The
prompt holds the retrieved memories and the last `recent` messages.

Paper and released code (reverie's `retrieve.py`) score differently; `variant` chooses:
  paper  recency = `decay` (0.995) to the power of the hours since the last retrieval; weights
         1 / 1 / 1 (recency / relevance / importance)
  code   recency = `decay` (0.99) to the power of the memory's rank among all memories sorted by
         last retrieval, oldest first (so the memory retrieved longest ago ranks first, as the code
         does); weights 0.5 / 3 / 2; a signal equal for every memory normalises to 0.5
A rating reply is read past any "1 to 10" or "out of 10" it repeats: the first other number, 5
when there is none.  Questions and insights lose only a leading list marker ("3.", "-").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem
from pytest_memorybench.agents.mechanisms.index import normalised, top
from pytest_memorybench.agents.mechanisms.model import Phase
from pytest_memorybench.agents.mechanisms.prompt import section, system_prompt
from pytest_memorybench.agents.mechanisms.settings import one_of, positive, require

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

What {count} high-level insights can you infer from the above statements? One insight per line, ending with
the numbers of the statements it rests on, as: insight (because of 1, 5, 3)"""

DEFAULT_IMPORTANCE = 5.0
VARIANTS = ("paper", "code")
PAPER_DECAY = 0.995  # per hour since the last retrieval
CODE_DECAY = 0.99  # per place in the order of last retrieval
CODE_WEIGHTS = (0.5, 3.0, 2.0)  # recency, relevance, importance: reverie's `gw`
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SCALE = re.compile(r"\b(?:1|one)\s*(?:-|–|to)\s*(?:10|ten)\b|(?:\bout of|/)\s*(?:10|ten)\b", re.IGNORECASE)
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]+|\d{1,2}[.)]|\(\d{1,2}\))\s*")
_BECAUSE = re.compile(r"\s*\(\s*because of\s*([\d,\sand]*)\)\s*\.?\s*$", re.IGNORECASE)


def rating(reply: str) -> float:
    """The importance a rating reply gives, from 1 to 10: its first number that is not part of the
    scale it restates ("On a scale of 1 to 10, this is an 8" is 8); 5 when it gives none."""
    number = _NUMBER.search(_SCALE.sub(" ", reply))
    return min(max(float(number.group()), 1.0), 10.0) if number else DEFAULT_IMPORTANCE


def listed(reply: str, count: int) -> list[str]:
    """The first `count` lines of a reply, each without its list marker ("2.", "-"), and only that:
    "3. The user moved to Paris in 2019" keeps its year."""
    lines = (_LIST_MARKER.sub("", line, count=1).strip() for line in reply.splitlines())
    return [line for line in lines if line][:count]


def cited(insight: str) -> tuple[str, list[int]]:
    """An insight without its "(because of 1, 5, 3)", and the statement numbers it cites."""
    found = _BECAUSE.search(insight)
    if found is None:
        return insight, []
    return insight[: found.start()].strip(), [int(n) for n in re.findall(r"\d+", found.group(1))]


@dataclass
class Observation:
    """One entry of the memory stream: what was observed or concluded, its times and its importance."""

    text: str
    made: datetime | None
    last_access: datetime | None
    importance: float
    insight: bool = False
    evidence: tuple[int, ...] = ()  # an insight's pointers: the stream positions it was drawn from


@dataclass(frozen=True)
class GenerativeAgentsSettings:
    """Park et al.'s parameters: memories retrieved, the scoring `variant` (paper or code) and its recency
    decay (default: the variant's), the importance that triggers a reflection, questions and insights per
    reflection, recent turns in the prompt.
    """

    k: int = 10
    variant: str = "paper"
    decay: float = 0.0  # 0: the variant's own (paper 0.995 per hour, code 0.99 per rank)
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
        one_of("variant", self.variant, VARIANTS)
        require(0 <= self.decay <= 1, f"decay must be from 0 (the variant's own) to 1, got {self.decay:g}")
        require(self.recent >= 0, f"recent must be 0 or more, got {self.recent}")

    @property
    def recency_decay(self) -> float:
        return self.decay or (PAPER_DECAY if self.variant == "paper" else CODE_DECAY)


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

    async def _observe(
        self, text: str, moment: datetime | None, *, insight: bool = False, evidence: Sequence[int] = ()
    ) -> None:
        importance = rating(await self.model.work(IMPORTANCE.format(memory=text), "write"))
        self.stream.append(Observation(text, moment, moment, importance, insight, tuple(evidence)))
        await self.index.add([text], "write")
        self.unreflected += importance

    async def reflect(self, now: datetime | None) -> None:
        newest = "\n".join(observation.text for observation in self.stream[-100:])
        asked = await self.model.work(
            QUESTIONS.format(memories=newest, count=self.settings.questions), "write"
        )
        for question in listed(asked, self.settings.questions):
            found = await self.retrieved(question, self.settings.k, now, "write")
            statements = "\n".join(f"{n}. {self.stream[i].text}" for n, i in enumerate(found, 1))
            drawn = await self.model.work(
                INSIGHTS.format(memories=statements, count=self.settings.insights), "write"
            )
            for line in listed(drawn, self.settings.insights):
                text, numbers = cited(line)
                evidence = [found[n - 1] for n in numbers if 0 < n <= len(found)]
                if text:
                    await self._observe(text, now, insight=True, evidence=evidence)
        self.unreflected = 0.0
        self.reflections += 1

    async def scores(self, query: str, now: datetime | None, phase: Phase = "read") -> np.ndarray:
        """Recency, importance and relevance, each min–max normalised over the stream, weighted
        as the `variant` says."""
        relevance = await self.index.relevance(query, phase)
        importance = np.array([o.importance for o in self.stream])
        if self.settings.variant == "code":
            weights, flat = CODE_WEIGHTS, 0.5
            recency = self._rank_recency()
        else:
            weights, flat = (1.0, 1.0, 1.0), 0.0
            recency = self.settings.recency_decay ** self._hours_since_access(now)
        combined: np.ndarray = (
            weights[0] * normalised(recency, flat)
            + weights[1] * normalised(relevance, flat)
            + weights[2] * normalised(importance, flat)
        )
        return combined

    def _hours_since_access(self, now: datetime | None) -> np.ndarray:
        return np.array(
            [
                max((now - o.last_access).total_seconds(), 0.0) / 3600
                if now is not None and o.last_access is not None
                else 0.0
                for o in self.stream
            ]
        )

    def _rank_recency(self) -> np.ndarray:
        """The released code's recency: memories sorted by last retrieval, oldest first (newer
        first among equals, as its stream is kept), the n-th scoring decay ** n."""

        def accessed(i: int) -> tuple[float, int]:
            moment = self.stream[i].last_access
            return (moment.timestamp() if moment is not None else float("-inf"), -i)

        recency = np.zeros(len(self.stream))
        for rank, i in enumerate(sorted(range(len(self.stream)), key=accessed), 1):
            recency[i] = self.settings.recency_decay**rank
        return recency

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
        system = system_prompt(section("Relevant memories", memories))
        return await self.reply_with(system, entry, turns, memories=memories)

    async def stored(self) -> list[str]:
        """What it holds, for what it wrote (`conversation/written.py`): the memory stream: observations and
        insights."""
        return [observation.text for observation in self.stream]

    async def search(self, query: str, k: int) -> list[str]:
        if not self.stream:
            return []
        now = self.log[-1].time if self.log else None
        return [self.stream[i].text for i in top(await self.scores(query, now), k)]
