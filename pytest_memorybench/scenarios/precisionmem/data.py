"""PrecisionMemBench's records and loader: its published fixtures, read as its harness reads them.

The repository (tenurehq/precisionMemBench, MIT) keeps three JSON files under `fixtures/`:

  beliefs.seed.json              the seed corpus: a list of beliefs (`_id`, `user_id`, `type`,
                                 `canonical_name`, `aliases`, `content`, `why_it_matters`, `scope`,
                                 `pinned`, `superseded_by`, `resolved_at`, `created_at`; a relation
                                 also `participants`), every one seeded into the memory under test
  retrieval.cases.json           single-turn cases: `caseId`, `category`, `description`, `scope`,
                                 `query`, optional `userId` and `budget` (`maxBeliefs`, …), and
                                 `expect`, the assertions per tier (`relevantBeliefs`, `pinnedFacts`,
                                 `openQuestions`, `personaPrelude`)
  session-retrieval.cases.json   session cases: `turns`, each with `turnIndex`, `label`, `scope`,
                                 `userMessage` (the query), `topics`, `expect` (the tiers and a
                                 `noiseCheck`), and optionally a belief created after it is asked
                                 (`createBeliefAtTurn`) or a belief's aliases enriched
                                 (`updateBeliefAtTurn`)

Its harness turns a belief into the text it seeds with `beliefToText`: the canonical name, the
aliases, the content and why it matters, joined by spaces (`belief_text`).  Fields the scoring
never reads (confidence, reinforcement, provenance, change logs) are kept out of these records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.json_values import JsonMapping
from pytest_memorybench.core.readers import Malformed, as_list, as_mapping, read_json, reading, require

BELIEFS_FILE = "beliefs.seed.json"
CASES_FILE = "retrieval.cases.json"
SESSIONS_FILE = "session-retrieval.cases.json"
DEFAULT_USER = "test-user"  # the harness's USER_ID: every case without a `userId`
# The context budget the harness applies when a case sets none (baseAdapter's DEFAULT_BUDGET).
DEFAULT_MAX_BELIEFS = 20
DEFAULT_MAX_QUESTIONS = 15
TIERS = ("relevantBeliefs", "pinnedFacts", "openQuestions", "personaPrelude", "noiseCheck")


@dataclass(frozen=True)
class Belief:
    """One belief of the seed corpus (or one a session creates)."""

    id: str
    user: str
    type: str  # entity, relation, preference, open_question, decision
    name: str  # canonical_name
    aliases: tuple[str, ...]
    content: str
    why: str
    scope: tuple[str, ...]
    pinned: bool = False
    superseded_by: str | None = None
    resolved_at: str | None = None
    created_at: str = ""
    participants: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """What the harness seeds (`beliefToText`, its default mode): name, aliases, content, why."""
        return " ".join(part for part in (self.name, *self.aliases, self.content, self.why) if part)

    def in_scope(self, scope: Sequence[str]) -> bool:
        return any(part in scope for part in self.scope)


@dataclass(frozen=True)
class Case:
    """One retrieval case: a query in a scope, and what each tier of the built context must hold."""

    id: str
    category: str
    description: str
    scope: tuple[str, ...]
    query: str
    expect: JsonMapping
    user: str = DEFAULT_USER
    max_beliefs: int = DEFAULT_MAX_BELIEFS
    max_questions: int = DEFAULT_MAX_QUESTIONS


@dataclass(frozen=True)
class AliasUpdate:
    """A belief's aliases enriched after a session turn (the harness re-adds its text)."""

    belief: str
    add_aliases: tuple[str, ...]


@dataclass(frozen=True)
class SessionTurn:
    """One turn of a session case: its user message is the query; after it, what the session writes."""

    index: int
    label: str
    scope: tuple[str, ...]
    message: str
    topics: tuple[str, ...]
    expect: JsonMapping
    created: Belief | None = None
    update: AliasUpdate | None = None


@dataclass(frozen=True)
class SessionCase:
    """A session: turns asked in order of one memory, which the session writes to between them."""

    id: str
    description: str
    turns: tuple[SessionTurn, ...]


@dataclass(frozen=True)
class Corpus:
    """A whole benchmark: the seed beliefs, the single-turn cases and the session cases."""

    beliefs: tuple[Belief, ...]
    cases: tuple[Case, ...]
    sessions: tuple[SessionCase, ...] = ()
    source: str = "generated"


def belief_from(row: Mapping[str, Any]) -> Belief:
    """A belief of the published layout."""
    row = as_mapping(row, "expected each belief as a JSON object")
    for key in ("_id", "user_id", "type", "canonical_name", "content"):
        require(isinstance(row.get(key), str), f"a belief lacks its {key!r} (text)")
    scope = as_list(row.get("scope"), f"belief {row['_id']}: expected 'scope' as a list")
    return Belief(
        id=row["_id"],
        user=row["user_id"],
        type=row["type"],
        name=row["canonical_name"],
        aliases=tuple(str(alias) for alias in row.get("aliases") or ()),
        content=row["content"],
        why=str(row.get("why_it_matters") or ""),
        scope=tuple(str(part) for part in scope),
        pinned=row.get("pinned") is True,
        superseded_by=row.get("superseded_by") or None,
        resolved_at=row.get("resolved_at") or None,
        created_at=str(row.get("created_at") or ""),
        participants=tuple(str(part) for part in row.get("participants") or ()),
    )


def _expect(row: Mapping[str, Any], where: str) -> JsonMapping:
    expect = as_mapping(row.get("expect"), f"{where}: expected 'expect' as a JSON object")
    for tier, asserted in expect.items():
        if tier in TIERS:
            require(isinstance(asserted, dict), f"{where}: expected {tier!r} as a JSON object")
    return expect


def case_from(row: Mapping[str, Any]) -> Case:
    """A single-turn case of the published layout."""
    row = as_mapping(row, "expected each case as a JSON object")
    for key in ("caseId", "category", "query"):
        require(isinstance(row.get(key), str), f"a case lacks its {key!r} (text)")
    where = f"case {row['caseId']}"
    scope = as_list(row.get("scope"), f"{where}: expected 'scope' as a list")
    budget = as_mapping(row.get("budget") or {}, f"{where}: expected 'budget' as a JSON object")
    return Case(
        id=row["caseId"],
        category=row["category"],
        description=str(row.get("description") or ""),
        scope=tuple(str(part) for part in scope),
        query=row["query"],
        expect=_expect(row, where),
        user=str(row.get("userId") or DEFAULT_USER),
        max_beliefs=int(budget.get("maxBeliefs", DEFAULT_MAX_BELIEFS)),
        max_questions=int(budget.get("maxQuestions", DEFAULT_MAX_QUESTIONS)),
    )


def session_from(row: Mapping[str, Any]) -> SessionCase:
    """A session case of the published layout."""
    row = as_mapping(row, "expected each session case as a JSON object")
    require(isinstance(row.get("caseId"), str), "a session case lacks its 'caseId' (text)")
    where = f"session case {row['caseId']}"
    turns: list[SessionTurn] = []
    for turn in as_list(row.get("turns"), f"{where}: expected 'turns' as a list"):
        turn = as_mapping(turn, f"{where}: expected each turn as a JSON object")
        require(isinstance(turn.get("userMessage"), str), f"{where}: a turn lacks its 'userMessage'")
        update = turn.get("updateBeliefAtTurn")
        if update is not None:
            update = as_mapping(update, f"{where}: expected 'updateBeliefAtTurn' as a JSON object")
            require(isinstance(update.get("beliefId"), str), f"{where}: an update lacks its 'beliefId'")
        created = turn.get("createBeliefAtTurn")
        turns.append(
            SessionTurn(
                index=int(turn.get("turnIndex", len(turns))),
                label=str(turn.get("label") or ""),
                scope=tuple(str(part) for part in as_list(turn.get("scope"), f"{where}: expected 'scope'")),
                message=turn["userMessage"],
                topics=tuple(str(topic) for topic in turn.get("topics") or ()),
                expect=_expect(turn, f"{where} turn {len(turns)}"),
                created=belief_from(created) if created is not None else None,
                update=AliasUpdate(update["beliefId"], tuple(map(str, update.get("addAliases") or ())))
                if update is not None
                else None,
            )
        )
    return SessionCase(row["caseId"], str(row.get("description") or ""), tuple(turns))


def fixtures_folder(path: Path) -> Path:
    """The folder holding the fixtures: the one given, or its `fixtures/` (a clone of the repository)."""
    if (path / "fixtures" / BELIEFS_FILE).is_file():
        return path / "fixtures"
    return path


def load_corpus(path: str) -> Corpus:
    """The published fixtures in `path` (a clone of the repository, or its `fixtures/` folder);
    one line naming what is wrong otherwise.  Without the session file the session cases are skipped."""
    hint = f"give the folder holding PrecisionMemBench's {BELIEFS_FILE} and {CASES_FILE} (its fixtures/)"
    with reading(f"precisionmem data {path}", hint):
        folder = fixtures_folder(Path(path))
        if not folder.is_dir():
            raise Malformed("not a folder")
        require((folder / BELIEFS_FILE).is_file(), f"no {BELIEFS_FILE} in it")
        require((folder / CASES_FILE).is_file(), f"no {CASES_FILE} in it")
        with reading(f"precisionmem {BELIEFS_FILE}"):
            beliefs = tuple(map(belief_from, as_list(read_json(folder / BELIEFS_FILE), "expected a list")))
        with reading(f"precisionmem {CASES_FILE}"):
            cases = tuple(map(case_from, as_list(read_json(folder / CASES_FILE), "expected a list")))
        sessions: tuple[SessionCase, ...] = ()
        if (folder / SESSIONS_FILE).is_file():
            with reading(f"precisionmem {SESSIONS_FILE}"):
                rows = as_list(read_json(folder / SESSIONS_FILE), "expected a list")
                sessions = tuple(map(session_from, rows))
        ids = [belief.id for belief in beliefs]
        require(len(ids) == len(set(ids)), "two beliefs share an '_id'")
        return Corpus(beliefs, cases, sessions, "published")


__all__ = [
    "DEFAULT_USER",
    "AliasUpdate",
    "Belief",
    "Case",
    "Corpus",
    "SessionCase",
    "SessionTurn",
    "belief_from",
    "case_from",
    "load_corpus",
    "session_from",
]
