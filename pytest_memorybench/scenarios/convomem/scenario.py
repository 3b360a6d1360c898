"""`convomem.*`: ConvoMem's six evidence kinds, each item's evidence conversations mixed with filler.

Each evidence item is a context: its evidence conversations placed at seeded positions among
filler conversations of the same person (`StandardTestCasesGenerator.scala`), `conversations` in
all (2, 4, 6, 10, 20, 30, 50, 70, 100, 150, 200 or 300 in the paper; every evidence conversation is
kept when there are more than that), delivered in order, one conversation a day; then its question.

Scoring, through the run's judge as ConvoMem's code judges (an LLM's right or wrong against the
answer): the answer contains the fact (user and assistant facts), the newest value (changing
facts), a refusal when nothing was said (abstention), the rubric (preferences and implicit
connections).  Evidence recall (agents with `retrieve`) counts the evidence messages found, the
multi-evidence recall of the README.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from pytest_memorybench.core.readers import reading
from pytest_memorybench.core.records import Message, Role, Score, TestDefinition
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.base import ScoringContext
from pytest_memorybench.scenarios.convomem.data import KINDS, RULES, Conversation, EvidenceItem, load_convomem
from pytest_memorybench.scenarios.convomem.generator import ABSTAIN, evidence_items, filler_conversations
from pytest_memorybench.scenarios.params import at_least, read_params
from pytest_memorybench.scenarios.probes import FamilyPart, ProbeContext, probe_definition
from pytest_memorybench.scoring.judged import score_answer

FAMILY = "convomem"
SCORER = "convomem"
START = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)
TURN = timedelta(seconds=40)
IDS = 1000  # a message's id: its conversation's number × IDS + its place (`_message_ids`)


@dataclass(frozen=True)
class ConvomemParams:
    """Where the data is, how many conversations a question's history holds, and generated items."""

    data_path: str = ""
    conversations: int = 10
    generated: int = 2  # without data: items of each kind
    limit: int = 0  # published data: at most this many items of each kind (0: all)

    def __post_init__(self) -> None:
        at_least("conversations", self.conversations, 1, 1000)
        at_least("generated", self.generated, 1, 100)
        at_least("limit", self.limit, 0)


class ConvomemScenario(FamilyPart):
    """One of ConvoMem's evidence kinds."""

    family = FAMILY

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        settings = read_params(ConvomemParams, self.name, params)
        if settings.data_path:
            with reading(f"convomem data {settings.data_path}", "give ConvoMem's evidence folders"):
                loaded = load_convomem(settings.data_path)
            items = [item for item in loaded.items if item.category == self.part]
            items = items[: settings.limit] if settings.limit else items
            filler = loaded.filler
            source = "published"
        else:
            items = evidence_items(self.part, seed, settings.generated)
            filler = {}
            source = "generated"
        return [
            _context(suite, self.name, seed, item, filler, settings.conversations, source) for item in items
        ]

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        expected = definition.expected
        return await score_answer(
            context.judge or LocalJudge(),
            question=definition.params["question"],
            expected=expected["answer"],
            answer=responses[-1] if responses else "",
            rule=expected["rule"],
            scorer=SCORER,
        )


def mixed(
    item: EvidenceItem, filler: Mapping[str, list[Conversation]], size: int, seed: int
) -> list[Conversation]:
    """The item's evidence conversations, in their order, at seeded positions among `size` in all:
    filler of the same person (our generator's when the data has none for it)."""
    rng = random.Random(f"convomem-mix|{seed}|{item.id}|{size}")
    wanted = max(size - len(item.conversations), 0)
    pool = list(filler.get(item.person or "", []))
    if len(pool) < wanted:
        pool += filler_conversations(seed, item.person or "", wanted - len(pool), start=len(pool) + 1000)
    chosen = rng.sample(pool, wanted)
    total = wanted + len(item.conversations)
    positions = sorted(rng.sample(range(total), len(item.conversations)))
    evidence = iter(item.conversations)
    others = iter(chosen)
    return [next(evidence) if index in positions else next(others) for index in range(total)]


def _context(
    suite: str,
    scenario: str,
    seed: int,
    item: EvidenceItem,
    filler: Mapping[str, list[Conversation]],
    size: int,
    source: str,
) -> ProbeContext:
    history = mixed(item, filler, size, seed)
    ids = _message_ids(item, history)
    said = {turn.text for turn in item.evidence}
    evidence_ids = [
        ids[position] + place
        for position, conversation in enumerate(history)
        for place, turn in enumerate(conversation.turns)
        if turn.text in said
    ]
    ideal = (
        item.answer if item.category != "abstention" or ABSTAIN in item.answer else f"{ABSTAIN} {item.answer}"
    )
    definition = probe_definition(
        suite=suite,
        scenario=scenario,
        seed=seed,
        context=item.id,
        probe_id=item.id,  # the same definition at every size: runs of other sizes pair with it
        question=item.question,
        ideal_answer=ideal,
        expected={
            "answer": item.answer,
            "rule": RULES[item.category],
            "evidence_ids": evidence_ids,
            "evidence_count": item.evidence_count,
        },
        category=f"{item.evidence_count} evidence",
        skills=(item.category,),
        markers=(item.category,),
        params={"source": source, "question": item.question},
    )
    header = "Here are our earlier conversations, one a day. Remember them; I will ask about them later."
    return ProbeContext(item.id, (definition,), _stream(history, ids), header=header, sessions=size)


def _message_ids(item: EvidenceItem, history: list[Conversation]) -> list[int]:
    """Each conversation's first message id: an evidence conversation's by its place in the item
    (the same at every size, so the definition is too), a filler's after them."""
    evidence = {conversation.id: index for index, conversation in enumerate(item.conversations)}
    fillers = iter(range(len(item.conversations), len(history) + len(item.conversations)))
    return [(evidence[c.id] if c.id in evidence else next(fillers)) * IDS for c in history]


def _stream(history: list[Conversation], ids: list[int]) -> Callable[[], Iterator[Message]]:
    def turns() -> Iterator[Message]:
        for position, conversation in enumerate(history):
            for place, turn in enumerate(conversation.turns):
                role: Role = "assistant" if turn.speaker.lower() == "assistant" else "user"
                when = START + position * DAY + place * TURN
                yield Message(turn.text, when, role, ids[position] + place, f"conversation_{position + 1}")

    return turns


SCENARIOS = tuple(ConvomemScenario(category) for category in KINDS.values())

__all__ = ["FAMILY", "SCENARIOS", "ConvomemParams", "ConvomemScenario", "mixed"]
