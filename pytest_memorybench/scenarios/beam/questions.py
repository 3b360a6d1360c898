"""BEAM's probing questions, normalised: one record shape for the ten abilities.

The published `probing_questions.json` is a dict keyed by ability, two questions each (20 per
conversation).  Every question has `question`, `difficulty` and `rubric` (a list of nuggets), but
the reference answer is named differently per ability (`ideal_response` for abstention,
`ideal_answer` for contradiction resolution, `ideal_summary` for summarization,
`expected_compliance` for instruction and preference following, `answer` for the rest), and
`source_chat_ids` is a list for some abilities, a dict of lists for others (`first_statement` /
`second_statement`, `original_info` / `updated_info`, `first_event` / `second_event`), a list of
lists (one per event) in some longer event-ordering questions (1M), and absent or null for
abstention.  The Hugging Face export holds the same dict as a Python-literal *string*;
it is parsed with `ast.literal_eval`, which evaluates literals only (never `eval`, never pickle).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import TypedDict

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.json_values import JsonObject

# The ten abilities (paper §2.2, Table 2), in the published files' spelling and order.
ABILITIES: tuple[str, ...] = (
    "abstention",
    "contradiction_resolution",
    "event_ordering",
    "information_extraction",
    "instruction_following",
    "knowledge_update",
    "multi_session_reasoning",
    "preference_following",
    "summarization",
    "temporal_reasoning",
)
# The names the paper uses where the files differ ("Information Update", "Multi-hop Reasoning").
ALIASES: dict[str, str] = {
    "information_update": "knowledge_update",
    "multi_hop_reasoning": "multi_session_reasoning",
    "multi_hop": "multi_session_reasoning",
}
# Where each ability keeps its reference answer; the first present, non-empty one is used.
ANSWER_FIELDS: tuple[str, ...] = (
    "answer",
    "ideal_answer",
    "ideal_response",
    "ideal_summary",
    "expected_compliance",
)
# The one ability scored by Kendall tau-b instead of nuggets.
ORDERING = "event_ordering"


class Expected(TypedDict):
    """A BEAM question's `expected`: its ability, the rubric its answer is judged on, and the chat
    messages the answer rests on."""

    ability: str
    rubric: list[str]
    difficulty: str
    source_chat_ids: list[int]


@dataclass(frozen=True)
class ProbingQuestion:
    """One probing question, whatever its ability's field names were.

    `source_ids` are the chat message ids the answer rests on (all roles of a dict flattened, in
    order); `extra` keeps every other published field (`ordering_tested`, `time_points`, …) so
    nothing is lost for reports.
    """

    ability: str
    index: int  # 1-based, within its ability
    question: str
    answer: str
    rubric: tuple[str, ...]
    difficulty: str = ""
    source_ids: tuple[int, ...] = ()
    extra: JsonObject = field(default_factory=dict)

    def expected(self) -> Expected:
        """What the scorer needs, as a JSON-ready dict (stored in the test definition)."""
        return Expected(
            ability=self.ability,
            rubric=list(self.rubric),
            difficulty=self.difficulty,
            source_chat_ids=list(self.source_ids),
        )


def ability_name(raw: str) -> str:
    """The files' name of an ability, accepting the paper's names and any case or spacing."""
    name = "_".join(str(raw).strip().lower().replace("-", " ").split())
    name = ALIASES.get(name, name)
    if name not in ABILITIES:
        raise ValueError(f"unknown BEAM ability {raw!r} (known: {', '.join(ABILITIES)})")
    return name


def source_ids(raw: Any) -> tuple[int, ...]:
    """`source_chat_ids` as a flat tuple of ints, in order, each id once: a list, a dict of lists,
    a list of lists, a single id or null.  (The published structure itself stays in `extra`.)"""
    ids: dict[int, None] = {}

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            for part in value.values():
                walk(part)
        elif isinstance(value, (list, tuple)):
            for part in value:
                walk(part)
        elif isinstance(value, bool) or value is None:
            return
        elif isinstance(value, int):
            ids.setdefault(value)
        elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
            ids.setdefault(int(value.strip()))

    walk(raw)
    return tuple(ids)


def parse_question(ability: str, index: int, raw: Mapping[str, Any]) -> ProbingQuestion:
    """One published question as a `ProbingQuestion`; ValueError names what is missing."""
    if not isinstance(raw, Mapping):
        raise ValueError(f"{ability} question {index} is not an object")
    question = raw.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"{ability} question {index} has no 'question' text")
    rubric = raw.get("rubric")
    if isinstance(rubric, str):
        rubric = [rubric]
    if (
        not isinstance(rubric, list)
        or not rubric
        or not all(isinstance(n, str) and n.strip() for n in rubric)
    ):
        raise ValueError(f"{ability} question {index} has no 'rubric' (a non-empty list of nugget strings)")
    answer = next((str(raw[name]) for name in ANSWER_FIELDS if raw.get(name) not in (None, "")), "")
    known = {"question", "rubric", "difficulty", *ANSWER_FIELDS}
    sources = raw.get("source_chat_ids")
    if sources is None or (isinstance(sources, list) and all(isinstance(i, int) for i in sources)):
        known.add("source_chat_ids")  # a flat list is `source_ids` itself; roles and groups are kept
    return ProbingQuestion(
        ability=ability,
        index=index,
        question=question.strip(),
        answer=answer.strip(),
        rubric=tuple(nugget.strip() for nugget in rubric),
        difficulty=str(raw.get("difficulty") or ""),
        source_ids=source_ids(sources),
        extra={key: value for key, value in raw.items() if key not in known},
    )


def parse_probing_questions(raw: Any, where: str) -> list[ProbingQuestion]:
    """Every question of a conversation, abilities in the standard order.

    `raw` is the decoded dict, or the Hugging Face export's string holding it as a Python literal
    (or as JSON).  A problem raises UsageError naming `where` (the file or row).
    """
    if isinstance(raw, str):
        raw = literal(raw, where)
    if not isinstance(raw, Mapping):
        raise usage_error(
            f"{where}: probing questions must be an object keyed by ability, got {type(raw).__name__}"
        )
    questions: list[ProbingQuestion] = []
    try:
        by_ability = {ability_name(key): value for key, value in raw.items()}
        for ability in ABILITIES:
            items = by_ability.get(ability) or []
            if not isinstance(items, list):
                raise ValueError(f"{ability} must hold a list of questions")
            questions.extend(parse_question(ability, index, item) for index, item in enumerate(items, 1))
    except ValueError as exc:
        raise usage_error(f"{where}: {exc}") from None
    return questions


def literal(text: str, where: str) -> Any:
    """A Python literal (dicts, lists, strings, numbers, None) or JSON text, safely."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        pass
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise usage_error(f"{where}: the probing questions are neither a Python literal nor JSON") from None


__all__ = [
    "ABILITIES",
    "ALIASES",
    "ANSWER_FIELDS",
    "ORDERING",
    "ProbingQuestion",
    "ability_name",
    "literal",
    "parse_probing_questions",
    "parse_question",
    "source_ids",
]
