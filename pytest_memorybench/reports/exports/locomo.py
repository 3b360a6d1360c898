"""LoCoMo's answers as the evaluation pipelines write them: `eval_results.json`.

The layout `--mb-rescore` reads back (`rescore/locomo.py`): `{total_questions, correct, accuracy,
detailed_results, metadata}`, `detailed_results` mapping a conversation's index (a string, from
"0") to its judged answers `{question_id, question, golden_answer, generated_answer,
llm_judgments, category}`.  A conversation's index is its place among the conversations the run
planned (the data file's order: "0" is the file's first sample when the whole file ran;
`metadata.conversations` names each); `question_id` is the question's place in its sample's `qa`
list, `question` the question as the data words it, `category` LoCoMo's number.  The pipelines
judge categories 1-4 only, so category 5 (and LoCoMo-Plus's cognitive items) are left out and
counted.  `llm_judgments` holds one judgment, ours: whether the item passed; an item that errored
has an empty answer and no judgment (the reader scores it and leaves it out of the agreement).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.reports.exports.answers import Planned, counted, write_json
from pytest_memorybench.scenarios.locomo.data import ADVERSARIAL
from pytest_memorybench.scenarios.locomo.scenario import NAME

FILE = "eval_results.json"
JUDGED = (1, 2, 3, 4)  # the categories the pipelines judge


def _locomo(definition: TestDefinition) -> bool:
    return definition.scenario == NAME and isinstance(definition.expected, dict)


def export(planned: Planned, folder: Path) -> tuple[Path | None, str]:
    """eval_results.json; (the file, what went in)."""
    pairs = planned.of(_locomo)
    conversations: dict[str, str] = {}  # sample id -> its index, in the plan's order
    for definition, _ in pairs:
        if definition.expected.get("category") in (*JUDGED, ADVERSARIAL) and definition.context:
            conversations.setdefault(definition.context, str(len(conversations)))
    answers = [answer for _, answer in pairs if answer is not None]
    judged = [answer for answer in answers if answer.definition.expected.get("category") in JUDGED]
    if not judged:
        return None, "no LoCoMo question of categories 1-4 was answered in this run; nothing written"
    detailed: dict[str, list[dict[str, Any]]] = {}
    for answer in judged:
        definition = answer.definition
        expected = definition.expected
        detailed.setdefault(conversations[str(definition.context)], []).append(
            {
                "question_id": definition.params.get("qa", definition.repetition - 1),
                "question": expected["question"],
                "golden_answer": expected["answer"],
                "generated_answer": answer.text,
                "llm_judgments": {} if answer.passed is None else {"memorybench": answer.passed},
                "category": expected["category"],
            }
        )
    correct = sum(answer.passed is True for answer in judged)
    run = planned.results["run"]
    write_json(
        folder / FILE,
        {
            "total_questions": len(judged),
            "correct": correct,
            "accuracy": correct / len(judged),
            "detailed_results": detailed,
            "metadata": {
                "written_by": "pytest-memorybench",
                "agent": run["agent"],
                "judge": run["judge"],
                "profile": run["profile"],
                "conversations": {index: sample for sample, index in conversations.items()},
            },
        },
    )
    left_out = len(answers) - len(judged)
    why = f"{left_out} of categories 5-6 left out: the pipelines judge 1-4" if left_out else ""
    return folder / FILE, counted(len(judged), "answers", judged, why)


__all__ = ["FILE", "export"]
