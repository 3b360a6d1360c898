"""supermemoryai/memorybench's run reports, re-scored:
`pytest --memorybench --mb-rescore data/runs/<run id>/report.json` (or the run's folder).

memorybench (TypeScript) writes a run's report with `saveReport` (`src/orchestrator/phases/
report.ts`) to `data/runs/<run id>/report.json`: its `BenchmarkResult` (`provider`, `benchmark`,
`runId`, `judge`, `answeringModel`, `summary`, `latency`, `byQuestionType`, …) whose
`evaluations` hold one `EvaluationResult` per question it evaluated: `questionId`,
`questionType`, `question`, `groundTruth`, `hypothesis` (the answer), `score` (1 or 0: its
judge's verdict), `label` and `explanation`, search results and timings.

Two of its benchmarks are ours, and each evaluation carries what our scorer needs: LongMemEval's
(`questionId` is the question id, `questionType` its type: the item is
`longmemeval::<question_id>::<category>`) and LoCoMo's (`questionId` is
`<sample_id>-q<index in the sample's qa>`, `questionType` memorybench's name of LoCoMo's category
number: 1 single-hop, 2 multi-hop, 3 temporal, 4 world-knowledge, 5 adversarial, which we name by
the number as LoCoMo's own files do).  memorybench writes a category-5 question's missing answer as
"undefined"; our category-5 rule scores whether the answer says the conversation lacks it, so the
gold it gives does not count.  An evaluation of another benchmark (ConvoMem's ids carry no
question type of ours), or of a type we cannot tell, is counted in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_memorybench.core.readers import require
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.rescore.answers import JudgedAnswer, answered_run, harness_records, record_definition
from pytest_memorybench.rescore.published import PublishedRun

# memorybench's names of LoCoMo's category numbers (src/benchmarks/locomo/index.ts, CATEGORY_TO_TYPE).
LOCOMO_TYPES = {"single-hop": 1, "multi-hop": 2, "temporal": 3, "world-knowledge": 4, "adversarial": 5}


def read_report(file: Path, document: Any) -> PublishedRun:
    """A memorybench report.json (read as `document`) as published results to re-score."""
    fields = ("benchmark", "evaluations", "judge")
    benchmark, evaluations, judge = harness_records(file, document, "memorybench", fields)
    answers = []
    for position, raw in enumerate(evaluations):
        where = f"evaluations[{position}]"
        require(
            isinstance(raw, dict)
            and isinstance(raw.get("question"), str)
            and isinstance(raw.get("hypothesis"), str)
            and "groundTruth" in raw,
            f"{where}: expected an evaluation with 'questionId', 'question', 'groundTruth' and 'hypothesis'",
        )
        score = raw.get("score")
        require(score in (0, 1, None), f"{where}: 'score' must be 1 or 0")
        verdict = () if score is None else (score == 1,)
        said = (str(raw["explanation"]),) if raw.get("explanation") else ()
        answer = JudgedAnswer(file, raw["question"], (raw["hypothesis"],), verdict, judge=judge, said=said)
        answers.append((str(raw.get("questionId")), _definition(benchmark, raw, position), answer))
    description = f"memorybench's {benchmark} report {file}"
    return answered_run(
        file, benchmark, description, answers, f"evaluations have no {benchmark} type we know"
    )


def _definition(benchmark: str, raw: dict[str, Any], position: int) -> TestDefinition | None:
    """The question an evaluation answers, or None when its type is not one we know."""
    question_id, kind, sample = str(raw.get("questionId") or position), raw.get("questionType"), ""
    if benchmark == "locomo":
        kind = LOCOMO_TYPES.get(str(kind))
        sample, _, number = question_id.rpartition("-q")
        question_id = number if sample else question_id
    truth = str(raw["groundTruth"])
    return record_definition(
        benchmark, question_id, raw["question"], truth, kind, position, "memorybench", sample
    )


__all__ = ["LOCOMO_TYPES", "read_report"]
