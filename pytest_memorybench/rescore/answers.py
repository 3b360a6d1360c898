"""What every import of another harness's answers shares: an answer with that harness's verdict,
the definitions of LoCoMo's and LongMemEval's questions made from such a file, and the line that
says what could not be matched.

Another harness writes, for each question, what its system answered and (mostly) whether its
judge took it for right.  Each answer becomes an item scored by our scorer under the run's profile
and judge; the other harness's verdict stays beside ours (`details.published`) for the agreement
table.  A question whose rules we cannot tell (an unknown category or question type, an id that
names no question of the data) is not guessed at: it is counted in one line, with examples.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.contract.probes import probe_definition
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.readers import Malformed, as_list, as_mapping
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.core.spans import ISOLATED
from pytest_memorybench.rescore.published import PublishedRun
from pytest_memorybench.scenarios.locomo.data import ADVERSARIAL, CATEGORIES
from pytest_memorybench.scenarios.locomo.scenario import NAME as LOCOMO
from pytest_memorybench.scenarios.longmemeval.data import TYPES
from pytest_memorybench.scenarios.longmemeval.scenario import question_definition
from pytest_memorybench.suite import loaded_suite

EXAMPLES = 3  # ids quoted in a line about what could not be used


@dataclass(frozen=True)
class JudgedAnswer:
    """One answer another harness gave, with its judge's verdicts, as a re-scoring run reads a
    stored result.  No judgments: an answer to score, with nothing to compare ours with."""

    path: Path
    question: str
    responses: tuple[str, ...]
    judgments: tuple[bool, ...]
    tokens: int | None = None
    judge: str = ""  # whose verdict it is, e.g. "AMB's judge"; empty: a pipeline's judgments
    said: tuple[str, ...] = ()  # the judge's own reasons, as it gave them

    @property
    def score(self) -> float:
        """The verdict: right when more than half of the judgments say so."""
        return 1.0 if sum(self.judgments) * 2 > len(self.judgments) else 0.0

    def exchanges(self) -> list[tuple[str, str | None]]:
        return [(self.question, self.responses[0])]

    def verdict_json(self) -> dict[str, Any] | None:
        if not self.judgments:
            return None  # scored, and left out of the agreement table
        if self.judge:
            verdict = f"{self.judge}: {'correct' if self.score else 'incorrect'}"
        else:
            verdict = f"{sum(self.judgments)} of {len(self.judgments)} judgments say correct"
        return {"score": self.score, "reasons": [verdict, *self.said], "file": str(self.path)}


def not_matched(what: str, ids: Sequence[str], why: str, consequence: str = "not scored") -> str:
    """The one line about the records an import could not use: how many, a few ids, and why."""
    shown = ", ".join(ids[:EXAMPLES]) + (", …" if len(ids) > EXAMPLES else "")
    return f"{what}: {len(ids)} {why} ({shown}); {consequence}"


def answered_run(
    file: Path,
    suite: str,
    description: str,
    answers: Sequence[tuple[str, TestDefinition | None, JudgedAnswer]],
    unmatched: str,
    *,
    skipped: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> PublishedRun:
    """The answers of a file as a suite of items, each with its answer.

    `answers` are (the record's id, the question it answers or None when that cannot be told, the
    answer); those without a question are counted in one line (`unmatched` says why), which joins
    the `skipped` lines (what else could not be used: the header, the agreement and results.json
    list them) and the header's `notes`.
    """
    definitions: list[TestDefinition] = []
    results: dict[str, JudgedAnswer] = {}
    unknown: list[str] = []
    for record, definition, answer in answers:
        if definition is None:
            unknown.append(record)
            continue
        key = f"{definition.suite}::{definition.test_id}"
        if key in results:
            raise usage_error(f"--mb-rescore {file}: {record} is a second answer to {key}")
        definitions.append(definition)
        results[key] = answer
    problems = (
        (*skipped, not_matched(str(file), unknown, f"of {len(answers)} {unmatched}"))
        if unknown
        else tuple(skipped)
    )
    if not definitions:
        why = f" ({problems[-1]})" if problems else ""
        raise usage_error(f"--mb-rescore {file}: no answer there could be re-scored{why}")
    loaded = loaded_suite(suite, file, ISOLATED, definitions, description)
    return PublishedRun(
        file.parent, (dataclasses.replace(loaded, problems=(*notes, *problems)),), results, problems
    )


SCORED = ("longmemeval", "locomo")  # the datasets of other harnesses whose records we can score


def harness_records(
    file: Path, document: Any, harness: str, fields: tuple[str, str, str]
) -> tuple[str, list[Any], str]:
    """(its dataset, its records, whose verdicts they carry) of a harness's output of one dataset:
    `fields` name where the output keeps its dataset, its records and its judge's model.  A dataset
    whose records we cannot score is one line."""
    dataset_field, records_field, judge_field = fields
    output = as_mapping(
        document, f"expected {harness}'s output: an object with {dataset_field!r} and {records_field!r}"
    )
    dataset = str(output.get(dataset_field))
    records = as_list(output.get(records_field), f"{records_field!r} must be a list")
    if dataset not in SCORED:
        raise usage_error(
            f"--mb-rescore {file}: {harness}'s {dataset!r} output ({len(records)} {records_field}) is of no"
            f" dataset we score; we re-score its {' and '.join(SCORED)} outputs"
        )
    judge = f"{harness}'s judge" + (f" ({output[judge_field]})" if output.get(judge_field) else "")
    return dataset, records, judge


def record_definition(
    dataset: str,
    question_id: str,
    question: str,
    gold: str,
    kind: Any,
    position: int,
    source: str,
    sample: str,
) -> TestDefinition | None:
    """The question another harness's record answers, in our terms; None when `kind` is not one
    we know.  LongMemEval: `kind` is its question type.  LoCoMo: `kind` is LoCoMo's category number,
    `sample` the conversation and `question_id` the question's place in its qa list."""
    if dataset == "longmemeval":
        if kind not in TYPES:
            return None
        return question_definition("longmemeval", 0, question_id, kind, question, gold, source=source)
    if kind not in CATEGORIES:
        return None
    return locomo_definition("locomo", sample or "locomo", question_id, question, gold, kind, position)


def locomo_definition(
    suite: str, context: str, question_id: str, question: str, gold: str, category: int, position: int
) -> TestDefinition:
    """A LoCoMo question as another harness's file gives it (the question as asked, its gold and
    its category, 1-5 as LoCoMo numbers them), for our LoCoMo scorer.  Category 5 is scored by
    whether the answer says the conversation lacks it, whatever gold the file gives."""
    if category not in CATEGORIES:
        raise Malformed(f"category {category!r} is not one of LoCoMo's 1-5")
    name = CATEGORIES[category]
    expected: dict[str, Any] = {"question": question, "category": category, "answer": gold, "audited": False}
    if category == ADVERSARIAL:
        expected["absent_option"] = None
    return probe_definition(
        suite=suite,
        scenario=LOCOMO,
        seed=0,
        context=context,
        probe_id=f"{context}::{name}[{question_id}]",
        question=question,
        ideal_answer=gold,
        expected=expected,
        category=name,
        skills=(name,),
        markers=(name,),
        params={"source": "published verdicts", "qa": question_id},
        index=position + 1,
    )


__all__ = [
    "SCORED",
    "JudgedAnswer",
    "answered_run",
    "harness_records",
    "locomo_definition",
    "not_matched",
    "record_definition",
]
