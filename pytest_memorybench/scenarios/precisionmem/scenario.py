"""`precisionmem.retrieval` and `precisionmem.session`: the seed beliefs written into the memory under
test, each case's query asked of it, and what came back scored as PrecisionMemBench scores it.

Each user's beliefs are one probe context, a belief a message (its seeded text, `belief_text`), one
add per belief as the harness adds them: a memory store gets them in a namespace of that user's own
(the harness's `user_id` filter: one user never searches another's beliefs), an agent with `observe`
observes them, any other agent is told them.  Each case is then asked on a fork: its query goes to
the agent's `retrieve(query, k)` with k the case's `maxBeliefs` (20 unless its budget says), and the
memories it returns are what is scored (`scoring.py`); a store returns its `--mb-k` hits (upstream
asks for 20: `--mb-k 20` matches it), which the budget then cuts to distinct beliefs.  An agent that
cannot retrieve is scored on its reply, each line a memory.  The reply is asked either way (the
transcript shows what the agent would say with that memory), but never scored when retrieval was.

The session cases are one context more: the same seed, then each turn's user message asked in order,
a belief the session creates written after the turn that creates it and an enriched belief written
again (with its new aliases) after the turn that enriches it, as the session runner does for a store
without an update call.  Turns are items of their own, as the runner counts them.

Where the cases come from: `data_path` (`--mb-data precisionmem=DIR`: a clone of the repository or its
`fixtures/`) or our generator (`generator.py`), the same shape in words of our own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from pytest_memorybench.contract.probes import FamilyPart, ProbeContext, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.json_values import JsonMapping, JsonObject
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.records import Message, Score, TestDefinition
from pytest_memorybench.scenarios.params import read_params
from pytest_memorybench.scenarios.precisionmem.data import (
    DEFAULT_MAX_BELIEFS,
    DEFAULT_MAX_QUESTIONS,
    DEFAULT_USER,
    Belief,
    Case,
    Corpus,
    SessionCase,
    load_corpus,
)
from pytest_memorybench.scenarios.precisionmem.generator import generate
from pytest_memorybench.scenarios.precisionmem.scoring import (
    ACTIVE,
    SESSION_CATEGORY,
    Checked,
    catalogue_entry,
    check_case,
    check_turn,
    pass_type,
    wanted_beliefs,
)
from pytest_memorybench.scenarios.precisionmem.summary import summarize

FAMILY = "precisionmem"
START = datetime(2026, 9, 1, 9, 0, tzinfo=timezone.utc)
SEED_GAP = timedelta(minutes=1)
UNIVERSAL = "user:universal"
NOTHING_TO_RETRIEVE = "abstention"  # the skill of a case whose right relevant tier is empty


@dataclass(frozen=True)
class PrecisionMemParams:
    """Where the published fixtures are; without them, our generator's corpus for the seed."""

    data_path: str = ""


class PrecisionMemScenario(FamilyPart):
    """The single-turn cases (`retrieval`) or the session turns (`session`) of PrecisionMemBench."""

    family = FAMILY

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        settings = read_params(PrecisionMemParams, self.name, params)
        corpus = load_corpus(settings.data_path) if settings.data_path else generate(seed)
        report = None
        if corpus.source == "published":
            tally = LoadTally()
            tally.held("beliefs", len(corpus.beliefs))
            tally.held("cases", len(corpus.cases))
            tally.held("session turns", sum(len(session.turns) for session in corpus.sessions))
            report = tally.report()
        if self.part == "retrieval":
            made = _retrieval_contexts(suite, self.name, seed, corpus)
        else:
            made = [_session_context(suite, self.name, seed, corpus)] if corpus.sessions else []
        return [replace(context, report=report) for context in made]

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
        expected: JsonMapping = definition.expected
        retrieved = context.retrieved[-1] if context.retrieved else None
        asked = bool(definition.params.get("retrieve_k"))
        if retrieved is not None or not asked:
            returned: Sequence[str] | None = retrieved if asked else None
        else:  # an agent that cannot retrieve: what it said, a line a memory
            reply = responses[-1] if responses else ""
            returned = [line for line in reply.splitlines() if line.strip()]
        checker = check_turn if expected.get("kind") == "turn" else check_case
        checked: Checked = checker(returned, expected, context.profile)
        reasons = checked.failures[:4] or [f"pass ({checked.details['pass_type']})"]
        if len(checked.failures) > 4:
            reasons.append(f"… {len(checked.failures) - 4} more")
        relevant = checked.details["relevant"]
        if returned is not None:  # what was scored, which the reply shown beside it is not
            shown = ", ".join(map(str, relevant)) if isinstance(relevant, list) and relevant else "nothing"
            reasons.append(f"relevantBeliefs: {shown} (from {len(returned)} memories returned)")
        return Score(0.0 if checked.failures else 1.0, tuple(reasons), checked.details)

    def summarize(self, records: Sequence[Mapping[str, Any]]) -> JsonObject:
        return summarize(records)


# -- the contexts -----------------------------------------------------------------------------------


def _retrieval_contexts(suite: str, scenario: str, seed: int, corpus: Corpus) -> list[ProbeContext]:
    users = list(dict.fromkeys(case.user for case in corpus.cases))
    contexts = []
    for user in users:
        beliefs = [belief for belief in corpus.beliefs if belief.user == user]
        memory = _Memory(corpus.beliefs)
        for belief in beliefs:
            memory.write(belief)
        context_id = f"{FAMILY}-{user}"
        probes = tuple(
            _case_definition(suite, scenario, seed, context_id, case, memory)
            for case in corpus.cases
            if case.user == user
        )
        contexts.append(
            ProbeContext(
                context_id,
                probes,
                _stream(memory.messages),
                header="Here is what I have told you about myself and my work. Remember it.",
                observe_batch=1,
            )
        )
    return contexts


def _session_context(suite: str, scenario: str, seed: int, corpus: Corpus) -> ProbeContext:
    memory = _Memory(corpus.beliefs)
    for belief in corpus.beliefs:
        if belief.user == DEFAULT_USER:
            memory.write(belief)
    context_id = f"{FAMILY}-session"
    probes: list[TestDefinition] = []
    for session in corpus.sessions:
        probes.extend(_session_definitions(suite, scenario, seed, context_id, session, memory))
    return ProbeContext(
        context_id,
        tuple(probes),
        _stream(memory.messages),
        header="Here is what I have told you about myself and my work. Remember it.",
        observe_batch=1,
    )


class _Memory:
    """The beliefs as they stand at a point of the context: what was written, and in which messages."""

    def __init__(self, every: Sequence[Belief]) -> None:
        self.every = {belief.id: belief for belief in every}  # the catalogue: every belief known
        self.texts: dict[str, list[str]] = {}
        self.current: dict[str, Belief] = {}
        self.messages: list[tuple[str, str]] = []  # (belief id, text), in the order written

    def write(self, belief: Belief) -> None:
        self.every[belief.id] = belief
        self.current[belief.id] = belief
        self.texts.setdefault(belief.id, [])
        if belief.text not in self.texts[belief.id]:
            self.texts[belief.id].append(belief.text)
        self.messages.append((belief.id, belief.text))

    def tiers(self, user: str, scope: Sequence[str], max_beliefs: int, max_questions: int) -> JsonObject:
        """The tiers the harness builds from its own index, not the memory (baseAdapter's listings)."""
        mine = [belief for belief in self.current.values() if belief.user == user]
        pinned = [
            b.id
            for b in mine
            if b.pinned
            and b.type != "open_question"
            and not b.superseded_by
            and not b.resolved_at
            and b.in_scope(scope)
        ]
        questions = [
            b.id
            for b in mine
            if b.type == "open_question" and b.pinned and not b.resolved_at and b.in_scope(scope)
        ]
        expansions: JsonObject = {}
        official: JsonObject = {}
        for relation in (b for b in mine if b.type == "relation"):
            joined = [
                self.current[p]
                for p in relation.participants
                if p in self.current and self.current[p].user == user
            ]
            joined = [b for b in joined if not scope or b.in_scope(scope)]
            official[relation.id] = [b.id for b in joined]
            expansions[relation.id] = [b.id for b in joined if b.type != "open_question"]
        universal = [
            b.content for b in mine if b.pinned and UNIVERSAL in b.scope and b.type != "open_question"
        ]
        return {
            "max_beliefs": max_beliefs,
            "pinned": pinned[:max_beliefs],
            "pinned_all": pinned,
            "questions": questions[:max_questions],
            "prelude": " ".join(universal),
            "expansions": expansions,
            "expansions_official": official,
            "pinned_in_seed": self.pinned_in_seed(),
        }

    def pinned_in_seed(self) -> list[str]:
        """The default user's pinned beliefs: a `mustInclude` of one is no relevant-tier reference."""
        return [b.id for b in self.every.values() if b.user == DEFAULT_USER and b.pinned]

    def catalogue(self) -> JsonObject:
        return {
            belief.id: catalogue_entry(
                self.texts.get(belief.id) or [belief.text], (belief.name, *belief.aliases), belief.content
            )
            for belief in self.every.values()
        }


def _stream(messages: Sequence[tuple[str, str]]) -> Callable[[], Iterator[Message]]:
    frozen = list(messages)

    def turns() -> Iterator[Message]:
        for number, (belief, text) in enumerate(frozen):
            yield Message(text, START + number * SEED_GAP, "user", number, belief)

    return turns


# -- the definitions ----------------------------------------------------------------------------------


def _definition(
    suite: str,
    scenario: str,
    seed: int,
    context: str,
    probe_id: str,
    question: str,
    category: str,
    expect: JsonMapping,
    expected: JsonObject,
    memory: _Memory,
    params: JsonObject,
) -> TestDefinition:
    wanted = wanted_beliefs(expect, memory.pinned_in_seed())
    expected["catalogue"] = memory.catalogue()
    kind = pass_type(expect, set(wanted), None, category, "paper")
    skills = (kind,) if kind == ACTIVE else (kind, NOTHING_TO_RETRIEVE)
    return probe_definition(
        suite=suite,
        scenario=scenario,
        seed=seed,
        context=context,
        probe_id=probe_id,
        question=question,
        ideal_answer="\n".join(memory.current[b].text for b in wanted if b in memory.current),
        expected=expected,
        category=category,
        skills=skills,
        params=params,
    )


def _case_definition(
    suite: str, scenario: str, seed: int, context: str, case: Case, memory: _Memory
) -> TestDefinition:
    expected: JsonObject = {
        "kind": "case",
        "category": case.category,
        "expect": case.expect,
        "tiers": memory.tiers(case.user, case.scope, case.max_beliefs, case.max_questions),
    }
    searched = bool(case.query.strip()) and case.max_beliefs > 0
    params: JsonObject = {"retrieve_k": case.max_beliefs} if searched else {}
    params["scope"] = list(case.scope)
    return _definition(
        suite,
        scenario,
        seed,
        context,
        f"{context}::{case.id}",
        case.query,
        case.category,
        case.expect,
        expected,
        memory,
        params,
    )


def _session_definitions(
    suite: str, scenario: str, seed: int, context: str, session: SessionCase, memory: _Memory
) -> Iterator[TestDefinition]:
    drifted: list[str] = []  # beliefs of the drift turns so far: what a later turn must not drag in
    for turn in session.turns:
        expected: JsonObject = {
            "kind": "turn",
            "category": SESSION_CATEGORY,
            "turn": turn.index,
            "expect": turn.expect,
            "tiers": {
                **memory.tiers(DEFAULT_USER, turn.scope, DEFAULT_MAX_BELIEFS, DEFAULT_MAX_QUESTIONS),
                "drift_beliefs": list(drifted),
            },
        }
        params: JsonObject = {
            "retrieve_k": DEFAULT_MAX_BELIEFS,
            "ask_at": len(memory.messages),
            "label": turn.label,
        }
        yield _definition(
            suite,
            scenario,
            seed,
            context,
            f"{context}::{session.id}::t{turn.index}",
            turn.message,
            SESSION_CATEGORY,
            turn.expect,
            expected,
            memory,
            params,
        )
        if turn.label == "drift":
            drifted.extend(b for b in wanted_beliefs(turn.expect, ()) if b not in drifted)
        if turn.created is not None:
            memory.write(turn.created)
            if turn.label == "drift":
                drifted.append(turn.created.id)
        if turn.update is not None and turn.update.belief in memory.current:
            before = memory.current[turn.update.belief]
            added = [alias.strip().lower() for alias in turn.update.add_aliases]
            memory.write(replace(before, aliases=tuple(dict.fromkeys([*before.aliases, *added]))))


SCENARIOS = (PrecisionMemScenario("retrieval"), PrecisionMemScenario("session"))

__all__ = ["FAMILY", "NOTHING_TO_RETRIEVE", "SCENARIOS", "PrecisionMemParams", "PrecisionMemScenario"]
