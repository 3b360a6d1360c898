"""`longmemeval.questions`: LongMemEval's questions, each with its own history, each a pytest item.

Every question is a context of its own: its history's sessions are delivered in order, every turn
dated at its session's timestamp (user and assistant turns as they were), then the question is
asked at its `question_date` on the simulated clock.  Items are named `<question_id>::<category>`
(the question type, or `abstention` for `_abs` questions), marked with it (`-m temporal_reasoning`).

Scoring is the paper's evaluation (`src/evaluation/evaluate_qa.py`): a yes/no judge verdict with a
prompt per question type, here the judge task `answer` with the matching rule: `days` for
temporal reasoning (a count off by one is accepted), `update` for knowledge updates (the updated
value counts even beside the old one), `preference` for single-session preference (the answer
is a rubric), `abstention` for `_abs` questions, `contains` for the rest.  The paper and its code
agree, so `paper` and `official` score alike.  Evidence recall (agents with `retrieve`) is turn-
level, over the turns flagged `has_answer`, and session-level: an evidence session counts as found
when one of its evidence turns is among what the agent retrieves (the paper ranks whole sessions;
our agents retrieve what they stored, so the session level is read from the turns).

Where the questions come from: `data_path` (`--mb-data longmemeval=PATH`: `longmemeval_s*.json`,
`_m*.json` or `_oracle.json`, read a question at a time: a history is held only while it is
delivered), or `generated` sets of our generator (seven questions each).  500 questions of 115k
tokens are a large bill: `--mb-estimate` prices it first, `--mb-sample N` runs a stratified subset.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pytest_memorybench.contract.probes import ProbeContext, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.contract.stale import expected_superseded
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.records import Message, Role, Score, TestDefinition
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.longmemeval.data import (
    ABSTENTION,
    TYPES,
    Entry,
    entries_from,
    is_abstention,
    load_entries,
)
from pytest_memorybench.scenarios.longmemeval.generator import generate_questions
from pytest_memorybench.scenarios.longmemeval.summary import summarize
from pytest_memorybench.scenarios.params import at_least, read_params
from pytest_memorybench.scoring.judged import score_answer

NAME = "longmemeval.questions"
SCORER = "longmemeval"
TURN_GAP = timedelta(seconds=20)
SESSION_IDS = 10_000  # a turn's Message.id: session number × this + its position
HEADER = "Here is our chat history, each message dated. Remember it; I will ask you about it later."
RULES = {
    "temporal-reasoning": "days",
    "knowledge-update": "update",
    "single-session-preference": "preference",
}
ABSTAINING = "That was never mentioned in our conversations."


@dataclass(frozen=True)
class LongMemEvalParams:
    """Where LongMemEval's data is, or how many generated sets to ask, and the generated histories' size."""

    data_path: str = ""
    generated: int = 1  # without data: how many sets of seven generated questions
    filler_sessions: int = 3  # generated histories: sessions beside the evidence

    def __post_init__(self) -> None:
        at_least("generated", self.generated, 1)
        at_least("filler_sessions", self.filler_sessions, 2)


def rule_for(entry_type: str, abstention: bool) -> str:
    """The judge rule of a question type (abstention questions have their own)."""
    return "abstention" if abstention else RULES.get(entry_type, "contains")


class LongMemEvalQuestions:
    """`longmemeval.*`: each question asked on its date after its own history."""

    name = NAME
    skills = (*TYPES.values(), ABSTENTION)

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        settings = read_params(LongMemEvalParams, NAME, params)
        report = None
        superseded: dict[str, tuple[str, ...]] = {}  # our generator's; LongMemEval's files name none
        if settings.data_path:
            tally = LoadTally()
            entries = load_entries(settings.data_path, tally)
            source, report = "published", tally.report()
        else:
            made = [
                question
                for number in range(1, settings.generated + 1)
                for question in generate_questions(seed, number, settings.filler_sessions)
            ]
            superseded = {str(raw["question_id"]): values for raw, values in made}
            entries, source = entries_from([raw for raw, _ in made]), "generated"
        return [
            ProbeContext(
                entry.question_id,
                (_definition(suite, seed, entry, source, superseded.get(entry.question_id, ())),),
                _stream(entry),
                header=HEADER,
                report=report,
            )
            for entry in entries
        ]

    def evidence_ids(self, definition: TestDefinition) -> list[int]:
        return list((definition.expected or {}).get("evidence_ids") or ())

    def evidence_groups(self, definition: TestDefinition) -> dict[int, str]:
        """Each evidence turn's session: session-level recall counts the evidence sessions found."""
        return {turn: f"session {turn // SESSION_IDS}" for turn in self.evidence_ids(definition)}

    def summarize(self, records: Sequence[Mapping[str, Any]]) -> JsonObject:
        return summarize(records)

    def superseded(self, definition: TestDefinition) -> list[str]:
        """A knowledge update's old value, from our generator's questions (`contract/stale.py`); none
        from LongMemEval's files, which give the new answer and flag the evidence turns, old and new
        alike, without saying which value the update replaced."""
        return expected_superseded(definition)

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        expected = definition.expected
        reply = responses[-1] if responses else ""
        return await score_answer(
            context.judge or LocalJudge(),
            question=str(definition.params["question"]),
            expected=expected["answer"],
            answer=reply,
            rule=expected["rule"],
            scorer=SCORER,
        )


def _stream(entry: Entry) -> Callable[[], Iterator[Message]]:
    """The question's history, as a fresh stream of dated messages each time it is called."""

    def turns() -> Iterator[Message]:
        for number, session in enumerate(entry.sessions()):
            for position, turn in enumerate(session.turns):
                role: Role = "assistant" if turn.role == "assistant" else "user"
                yield Message(
                    turn.content,
                    session.when + position * TURN_GAP,
                    role,
                    number * SESSION_IDS + position,
                    f"session_{number}",
                )

    return turns


def _definition(
    suite: str, seed: int, entry: Entry, source: str, superseded: Sequence[str] = ()
) -> TestDefinition:
    return question_definition(
        suite,
        seed,
        entry.question_id,
        entry.question_type,
        entry.question,
        entry.answer,
        source=source,
        asked_at=entry.question_date,
        evidence=[number * SESSION_IDS + position for number, position in entry.evidence],
        answer_session_ids=entry.answer_session_ids,
        superseded=superseded,
    )


def question_definition(
    suite: str,
    seed: int,
    question_id: str,
    question_type: str,
    question: str,
    answer: str,
    *,
    source: str,
    asked_at: datetime | None = None,
    evidence: Sequence[int] = (),
    answer_session_ids: Sequence[str] = (),
    superseded: Sequence[str] = (),
) -> TestDefinition:
    """One question as an item: from the data, or as another harness's answers file gives it
    (question type and all, no history: `--mb-rescore`).  `question_type` is one of `TYPES`;
    `superseded`, the values the answer replaced, where the generator knows them."""
    abstention = is_abstention(question_id)
    category = ABSTENTION if abstention else TYPES[question_type]
    params: JsonObject = {"source": source, "question": question}
    if asked_at is not None:
        params["asked_at"] = asked_at.isoformat()
    expected: JsonObject = {
        "answer": answer, "rule": rule_for(question_type, abstention), "type": question_type,
        "evidence_ids": list(evidence), "answer_session_ids": list(answer_session_ids),
    }  # fmt: skip
    if superseded:
        expected["superseded"] = list(superseded)
    return probe_definition(
        suite=suite,
        scenario=NAME,
        seed=seed,
        context=question_id,
        probe_id=f"{question_id}::{category}",
        question=question,
        ideal_answer=f"{ABSTAINING} {answer}" if abstention else answer,
        expected=expected,
        category=category,
        skills=(category,),
        markers=(category,),
        params=params,
    )  # fmt: skip


SCENARIO = LongMemEvalQuestions()

__all__ = ["NAME", "SCENARIO", "LongMemEvalParams", "LongMemEvalQuestions", "question_definition", "rule_for"]
