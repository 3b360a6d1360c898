"""Which harness wrote what `--mb-rescore PATH` names, told from what the file holds, and read.

The layouts differ enough to be told apart by their fields: GoodAI's are folders
(`definitions/` beside `results/`); a LoCoMo pipeline's `eval_results.json` has
`detailed_results`; supermemoryai/memorybench's `report.json` has `evaluations`; an AMB output has
`results` of queries with `gold_answers`; LongMemEval's hypothesis files are JSON lines (or a JSON
list) of `question_id` and `hypothesis`, its evaluation logs the same with `autoeval_label`.  A file
of none of these is one line naming the layouts read.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import UsageError, usage_error
from pytest_memorybench.core.readers import FILE_ERRORS, reading
from pytest_memorybench.rescore.documents import load_document
from pytest_memorybench.rescore.goodai import read_published
from pytest_memorybench.rescore.published import PublishedRun

GOODAI, LOCOMO, LONGMEMEVAL, AMB, MEMORYBENCH = "goodai", "locomo", "longmemeval", "amb", "memorybench"
EVAL_RESULTS = "eval_results.json"  # a LoCoMo pipeline's file, also found in a folder
REPORT = "report.json"  # supermemoryai/memorybench's, in its run folder data/runs/<run id>/
LAYOUTS = (
    "give GoodAI's results (data/tests/<benchmark> or one agent's results folder), a LoCoMo pipeline's"
    " eval_results.json, LongMemEval hypotheses (JSON lines of question_id and hypothesis, or their"
    " .eval-results-* log), an AMB output (outputs/<dataset>/<run>/<mode>/<split>.json[.gz]) or"
    " supermemoryai/memorybench's data/runs/<run id>/report.json"
)


def read_published_results(path: Path, data: Mapping[str, str], seed: int = 0) -> PublishedRun:
    """The published results at `path`, in whichever layout it holds; `data` are the run's
    `--mb-data` files (LongMemEval's hypotheses need its questions)."""
    if path.is_dir() and not _file_in(path):
        return read_published(path)
    file = _file_in(path) or path
    with reading(f"--mb-rescore {file}", LAYOUTS):
        document = load_document(file)
        kind = _kind(file, document)
        if kind == LOCOMO:
            from pytest_memorybench.rescore.locomo import read_eval_results

            return read_eval_results(file, document)
        if kind == LONGMEMEVAL:
            from pytest_memorybench.rescore.longmemeval import read_hypotheses

            return read_hypotheses(file, document, data, seed)
        if kind == AMB:
            from pytest_memorybench.rescore.amb import read_amb_output

            return read_amb_output(file, document)
        from pytest_memorybench.rescore.memorybench import read_report

        return read_report(file, document)


def official_by_default(path: Path) -> bool:
    """Whether re-scoring `path` scores under `official` unless told otherwise: every other
    harness's verdicts are an LLM judge's (LoCoMo's J, LongMemEval's yes/no), which `paper`'s token
    F1 would not measure; GoodAI's results keep `paper`."""
    if not path.exists() or (path.is_dir() and not _file_in(path)):
        return False
    file = _file_in(path) or path
    try:
        _kind(file, load_document(file))  # another harness's file: none of them is GoodAI's
    except FILE_ERRORS + (UsageError,):  # reading it for the run says what is wrong, in one line
        return False
    return True


def _file_in(path: Path) -> Path | None:
    """The file a folder stands for: a pipeline's eval_results.json, or memorybench's report.json."""
    if not path.is_dir():
        return None
    return next((path / name for name in (EVAL_RESULTS, REPORT) if (path / name).is_file()), None)


def _kind(file: Path, document: Any) -> str:
    if isinstance(document, dict):
        if "detailed_results" in document:
            return LOCOMO
        if "evaluations" in document:
            return MEMORYBENCH
        if isinstance(document.get("results"), list) and "dataset" in document:
            return AMB
        if "question_id" in document and "hypothesis" in document:
            return LONGMEMEVAL  # a hypothesis file of one line
    if isinstance(document, list) and document and isinstance(document[0], dict):
        if "question_id" in document[0] and "hypothesis" in document[0]:
            return LONGMEMEVAL
    raise usage_error(f"--mb-rescore {file}: not a layout it reads; {LAYOUTS}")


__all__ = [
    "AMB",
    "GOODAI",
    "LOCOMO",
    "LONGMEMEVAL",
    "MEMORYBENCH",
    "official_by_default",
    "read_published_results",
]
