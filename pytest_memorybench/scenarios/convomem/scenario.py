"""`convomem.*`: ConvoMem's six evidence kinds, each question asked after a history of conversations.

A history holds `conversations` conversations (2, 4, 6, 10, 20, 30, 50, 70, 100, 150, 200 or 300
in the paper; every evidence conversation is kept when there are more), delivered in order, one
conversation a day; then the question.  Where it comes from (`loader.py`):

- ConvoMem's pre-mixed test cases, as given: the published history, and every question the case
  asks of it (a batched case asks several);
- an evidence question mixed here: its evidence conversations placed at seeded positions among
  filler conversations of the same person (`StandardTestCasesGenerator.scala`), the published
  filler, or our generator's where the data has too little (the load report says so);
- without data, our generator's items and filler.

Scoring, through the run's judge as ConvoMem's code judges (an LLM's right or wrong against the
answer): the answer contains the fact (user and assistant facts), the newest value (changing
facts), a refusal when nothing was said (abstention), the rubric (preferences and implicit
connections).  Evidence recall (agents with `retrieve`) counts the evidence messages found, the
multi-evidence recall of the README; the evidence messages are located by ConvoMem's own rule
(`matching.py`), and those found nowhere are counted.  What a load read and could not use is its
contexts' report, which the run's header says (`folders.LoadCounts.report`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from pytest_memorybench.contract.probes import FamilyPart, ProbeContext, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.contract.stale import expected_superseded
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.readers import reading
from pytest_memorybench.core.records import Message, Role, Score, TestDefinition
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.convomem.data import KINDS, MAX_MESSAGES, RULES, Conversation, EvidenceItem
from pytest_memorybench.scenarios.convomem.generator import ABSTAIN, evidence_items, filler_conversations
from pytest_memorybench.scenarios.convomem.loader import CASES, load_convomem
from pytest_memorybench.scenarios.convomem.matching import locate
from pytest_memorybench.scenarios.convomem.premixed import PremixedCase
from pytest_memorybench.scenarios.params import at_least, read_params
from pytest_memorybench.scoring.judged import score_answer

FAMILY = "convomem"
SCORER = "convomem"
START = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)
TURN = timedelta(seconds=40)
IDS = MAX_MESSAGES  # a message's id: its conversation's number × IDS + its place (`_message_ids`)
HEADER = "Here are our earlier conversations, one a day. Remember them; I will ask about them later."


@dataclass(frozen=True)
class ConvomemParams:
    """Where the data is, how many conversations a question's history holds, and generated items."""

    data_path: str = ""
    conversations: int = 10
    generated: int = 2  # without data: items of each kind
    limit: int = 0  # published data: at most this many questions of each kind (0: all)
    cases: str = "auto"  # published data: premixed (the test cases as given), evidence (mixed here), auto

    def __post_init__(self) -> None:
        at_least("conversations", self.conversations, 1, 1000)
        at_least("generated", self.generated, 1, 100)
        at_least("limit", self.limit, 0)
        if self.cases not in CASES:
            raise ValueError(f"cases must be one of {', '.join(CASES)}, got {self.cases!r}")


class ConvomemScenario(FamilyPart):
    """One of ConvoMem's evidence kinds."""

    family = FAMILY

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        settings = read_params(ConvomemParams, self.name, params)
        size = settings.conversations
        if not settings.data_path:
            items = evidence_items(self.part, seed, settings.generated)
            return [_mixed_context(suite, self.name, seed, item, {}, size, "generated") for item in items]
        with reading(f"convomem data {settings.data_path}", "give ConvoMem's Hugging Face download"):
            loaded = load_convomem(settings.data_path, self.part, size, settings.cases, settings.limit)
        names = _Names()
        if loaded.cases:
            found = [
                _premixed_context(suite, self.name, seed, case, loaded.roles, names) for case in loaded.cases
            ]
        else:
            found = [
                _mixed_context(
                    suite, self.name, seed, item, loaded.filler, size, "published", loaded.roles, names
                )
                for item in loaded.items
            ]
        report = loaded.report.report()
        return [replace(context, report=report) for context in found]

    def superseded(self, definition: TestDefinition) -> list[str]:
        """The earlier values of a changing fact, from our generator's items (`contract/stale.py`);
        none from the published data, whose records do not name them (`EvidenceItem.superseded`)."""
        return expected_superseded(definition)

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        expected = definition.expected
        return await score_answer(
            context.judge or LocalJudge(),
            question=str(definition.params["question"]),
            expected=expected["answer"],
            answer=responses[-1] if responses else "",
            rule=expected["rule"],
            scorer=SCORER,
        )


class _Names(Counter[str]):
    """Item names made unique within a scenario: ConvoMem reuses an evidence item in a second test
    case of the same size when it has too few (`BatchedTestCasesGenerator`)."""

    def __call__(self, name: str) -> str:
        self[name] += 1
        return name if self[name] == 1 else f"{name}-{self[name]}"


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


def _definition(
    suite: str,
    scenario: str,
    seed: int,
    item: EvidenceItem,
    context: str,
    name: str,
    evidence_ids: list[int],
    missing: int,
    params: JsonObject,
) -> TestDefinition:
    ideal = (
        item.answer if item.category != "abstention" or ABSTAIN in item.answer else f"{ABSTAIN} {item.answer}"
    )
    expected: JsonObject = {
        "answer": item.answer,
        "rule": RULES[item.category],
        "evidence_ids": evidence_ids,
        "evidence_count": item.evidence_count,
    }
    if missing:
        expected["evidence_missing"] = missing  # evidence messages found in no conversation
    if item.superseded:
        expected["superseded"] = list(item.superseded)  # our generator's earlier values
    return probe_definition(
        suite=suite,
        scenario=scenario,
        seed=seed,
        context=context,
        probe_id=name,
        question=item.question,
        ideal_answer=ideal,
        expected=expected,
        category=f"{item.evidence_count} evidence",
        skills=(item.category,),
        markers=(item.category,),
        params={**params, "question": item.question},
    )


def _person(item: EvidenceItem, roles: Mapping[str, str]) -> JsonObject:
    role = roles.get(item.person or "")
    return {"person": item.person, "role": role} if role else {}


def _mixed_context(
    suite: str,
    scenario: str,
    seed: int,
    item: EvidenceItem,
    filler: Mapping[str, list[Conversation]],
    size: int,
    source: str,
    roles: Mapping[str, str] | None = None,
    names: _Names | None = None,
) -> ProbeContext:
    """An evidence item mixed here: its history built from its conversations and the filler."""
    history = mixed(item, filler, size, seed)
    ids = _message_ids(item, history)
    places, missing = locate(item.evidence, item.conversations)
    name = names(item.id) if names is not None else item.id
    definition = _definition(
        suite,
        scenario,
        seed,
        item,
        name,  # the same definition at every size: runs of other sizes pair with it
        name,
        [number * IDS + place for number, place in places],
        missing,
        {"source": source, **_person(item, roles or {})},
    )
    return ProbeContext(name, (definition,), _stream(lambda: (history, ids)), header=HEADER, sessions=size)


def _premixed_context(
    suite: str, scenario: str, seed: int, case: PremixedCase, roles: Mapping[str, str], names: _Names
) -> ProbeContext:
    """A published test case as given: its history, then each of its questions."""
    definitions = tuple(
        _definition(
            suite,
            scenario,
            seed,
            item,
            case.id,
            names(item.id),
            [number * IDS + place for number, place in case.evidence[item.id]],
            case.missing[item.id],
            {"source": "premixed", **_person(item, roles)},
        )
        for item in case.items
    )

    def history() -> tuple[Sequence[Conversation], list[int]]:
        conversations = case.history()
        return conversations, [number * IDS for number in range(len(conversations))]

    return ProbeContext(case.id, definitions, _stream(history), header=HEADER, sessions=case.size)


def _message_ids(item: EvidenceItem, history: list[Conversation]) -> list[int]:
    """Each conversation's first message id: an evidence conversation's by its place in the item
    (the same at every size, so the definition is too), a filler's after them."""
    evidence = {conversation.id: index for index, conversation in enumerate(item.conversations)}
    fillers = iter(range(len(item.conversations), len(history) + len(item.conversations)))
    return [(evidence[c.id] if c.id in evidence else next(fillers)) * IDS for c in history]


def _stream(
    history: Callable[[], tuple[Sequence[Conversation], list[int]]],
) -> Callable[[], Iterator[Message]]:
    """The history's messages, one conversation a day; `history` gives the conversations and each
    one's first message id (read again at each delivery: a pre-mixed history is not held)."""

    def turns() -> Iterator[Message]:
        conversations, ids = history()
        for position, conversation in enumerate(conversations):
            for place, turn in enumerate(conversation.turns):
                role: Role = "assistant" if turn.speaker.lower() == "assistant" else "user"
                when = START + position * DAY + place * TURN
                yield Message(turn.text, when, role, ids[position] + place, f"conversation_{position + 1}")

    return turns


SCENARIOS = tuple(ConvomemScenario(category) for category in KINDS.values())

__all__ = ["FAMILY", "SCENARIOS", "ConvomemParams", "ConvomemScenario", "mixed"]
