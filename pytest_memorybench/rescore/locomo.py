"""The LoCoMo pipelines' `eval_results.json`, re-scored: `pytest --memorybench --mb-rescore FILE`.

The common evaluation pipelines write an `eval_results.json`: `{total_questions, correct,
accuracy, detailed_results, metadata}`, `detailed_results` mapping each conversation's index (a
string) to a list of `{question_id, question, golden_answer, generated_answer, llm_judgments:
{judgment_1: bool, ...}, category}`.  Each judged answer becomes an item of the suite `locomo`,
scored by our LoCoMo scorer under the run's profile and judge (`official`, the pipelines' own
generous J, unless `--mb-profile` says otherwise), with the pipeline's verdict (the majority of its
judgments: right when more than half say so) kept beside ours for the agreement table, which
gives a row per category.  Answers without judgments are scored and left out of the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.readers import Malformed
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.core.spans import ISOLATED
from pytest_memorybench.rescore.answers import JudgedAnswer, locomo_definition
from pytest_memorybench.rescore.published import PublishedRun
from pytest_memorybench.scenarios.locomo.data import CATEGORIES
from pytest_memorybench.suite import loaded_suite

SUITE = "locomo"
FILE_NAME = "eval_results.json"


def read_eval_results(file: Path, document: Any) -> PublishedRun:
    """A LoCoMo pipeline's eval_results.json (read as `document`) as published results to re-score."""
    definitions, results = _items(file, document)
    if not definitions:
        raise usage_error(f"--mb-rescore {file}: no judged answer in its detailed_results")
    suite = loaded_suite(SUITE, file, ISOLATED, definitions, f"published LoCoMo verdicts from {file}")
    return PublishedRun(file.parent, (suite,), results, ())


def _items(file: Path, data: Any) -> tuple[list[TestDefinition], dict[str, JudgedAnswer]]:
    if not isinstance(data, dict) or not isinstance(data.get("detailed_results"), dict):
        raise Malformed("expected an object with 'detailed_results' (conversation index -> judged answers)")
    definitions: list[TestDefinition] = []
    results: dict[str, JudgedAnswer] = {}
    for conversation, answers in sorted(data["detailed_results"].items(), key=lambda pair: _order(pair[0])):
        if not isinstance(answers, list):
            raise Malformed(f"detailed_results[{conversation!r}] must be a list")
        for position, raw in enumerate(answers):
            definition, answer = _item(file, conversation, position, raw)
            key = f"{SUITE}::{definition.test_id}"
            if key in results:
                raise Malformed(
                    f"detailed_results[{conversation!r}][{position}]: a second answer to"
                    f" {definition.probe_id}"
                )
            definitions.append(definition)
            results[key] = answer
    return definitions, results


def _order(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isdigit() else (1 << 30, key)


def _item(file: Path, conversation: str, position: int, raw: Any) -> tuple[TestDefinition, JudgedAnswer]:
    where = f"detailed_results[{conversation!r}][{position}]"
    if not isinstance(raw, dict):
        raise Malformed(f"{where}: expected an object")
    question, gold, generated = raw.get("question"), raw.get("golden_answer"), raw.get("generated_answer")
    if not isinstance(question, str) or gold is None or not isinstance(generated, str):
        raise Malformed(f"{where}: needs 'question', 'golden_answer' and 'generated_answer'")
    judgments = raw.get("llm_judgments") or {}  # none: answers to judge, no verdict to compare with
    if not isinstance(judgments, dict) or not all(isinstance(v, bool) for v in judgments.values()):
        raise Malformed(f"{where}: 'llm_judgments' must map judgment names to true or false")
    try:
        category = int(raw.get("category"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        category = 0
    if category not in CATEGORIES:
        raise Malformed(f"{where}: category {raw.get('category')!r} is not one of 1-5")
    question_id = str(raw.get("question_id", position))
    definition = locomo_definition(
        SUITE, f"conv-{conversation}", question_id, question, str(gold), category, position
    )
    return definition, JudgedAnswer(file, question, (generated,), tuple(judgments.values()))


__all__ = ["FILE_NAME", "SUITE", "read_eval_results"]
