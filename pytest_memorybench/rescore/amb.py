"""vectorize-io/agent-memory-benchmark's (AMB's) per-query outputs, re-scored:
`pytest --memorybench --mb-rescore outputs/<dataset>/<run>/<mode>/<split>.json`.

AMB's runner (`src/memory_bench/runner.py`, `_save`) writes one file per dataset, run name, mode
and split: its `EvalSummary` (`dataset`, `split`, `memory_provider`, `mode`, `answer_llm`,
`judge_llm`, `accuracy`, …) whose `results` hold one `QueryResult` a query: `query_id`, `query`,
`answer`, `gold_answers`, `correct` (its judge's verdict), `judge_reason`, `context` and `meta`,
the dataset's own fields.  Its published copies are gzipped (`<split>.json.gz`); both are read.

Two of its datasets are ours, and each result carries what our scorer needs, so no data file is
asked for: LongMemEval's (`query_id` is the question id, `meta.question_type` its type: the item
is `longmemeval::<question_id>::<category>`, judged by the type's rule) and LoCoMo's (`query_id`
is `<sample_id>_q<index in the sample's qa>`, `meta.category` AMB's name of LoCoMo's category
number: 1 single-hop, 2 temporal, 3 multi-hop, 4 open-domain, which we name by the number as
LoCoMo's own files do).  A result of another dataset, or one whose type or category we cannot
tell, is counted in one line.  AMB's `correct` is the published verdict; a result AMB failed
because nothing was retrieved says so in its `judge_reason`, kept beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_memorybench.core.readers import Malformed, as_list, require
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.rescore.answers import JudgedAnswer, answered_run, harness_records, record_definition
from pytest_memorybench.rescore.published import PublishedRun

# AMB's names of LoCoMo's category numbers (src/memory_bench/dataset/locomo.py); 5 it leaves out.
LOCOMO_CATEGORIES = {"single-hop": 1, "temporal": 2, "multi-hop": 3, "open-domain": 4}


def read_amb_output(file: Path, document: Any) -> PublishedRun:
    """An AMB output file (read as `document`) as published results to re-score."""
    dataset, results, judge = harness_records(file, document, "AMB", ("dataset", "results", "judge_llm"))
    answers = []
    for position, raw in enumerate(results):
        where = f"results[{position}]"
        require(
            isinstance(raw, dict)
            and isinstance(raw.get("query"), str)
            and isinstance(raw.get("answer"), str),
            f"{where}: expected a query result with 'query_id', 'query', 'answer' and 'gold_answers'",
        )
        correct, reason = raw.get("correct"), raw.get("judge_reason")
        require(correct is None or isinstance(correct, bool), f"{where}: 'correct' must be true or false")
        verdict = () if correct is None else (correct,)
        said = (str(reason),) if reason else ()
        answer = JudgedAnswer(file, raw["query"], (raw["answer"],), verdict, judge=judge, said=said)
        answers.append((str(raw.get("query_id")), _definition(dataset, raw, position), answer))
    description = f"AMB's {dataset} results from {file}"
    return answered_run(file, dataset, description, answers, f"results have no {dataset} type we know")


def _definition(dataset: str, raw: dict[str, Any], position: int) -> TestDefinition | None:
    """The question a result answers, or None when its type or category is not one we know."""
    meta = raw.get("meta") or {}
    if not isinstance(meta, dict):
        raise Malformed(f"results[{position}]: 'meta' must be an object")
    golds = as_list(raw.get("gold_answers"), f"results[{position}]: 'gold_answers' must be a list")
    require(bool(golds), f"results[{position}]: 'gold_answers' is empty")
    question_id = str(raw.get("query_id") or position)
    if dataset == "longmemeval":
        kind, sample = meta.get("question_type"), ""
    else:
        kind = LOCOMO_CATEGORIES.get(str(meta.get("category")))
        sample, _, number = question_id.rpartition("_q")
        question_id, sample = (number, str(meta.get("sample_id") or sample)) if sample else (question_id, "")
    return record_definition(dataset, question_id, raw["query"], str(golds[0]), kind, position, "AMB", sample)


__all__ = ["LOCOMO_CATEGORIES", "read_amb_output"]
