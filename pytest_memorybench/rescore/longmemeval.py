"""LongMemEval hypothesis files, re-scored:
`pytest --memorybench --mb-rescore hypotheses.jsonl --mb-data longmemeval=longmemeval_s.json`.

LongMemEval's `src/evaluation/evaluate_qa.py` reads a hypothesis file as JSON lines (or, failing
that, one JSON list) of `{question_id, hypothesis}`, looks each id up among the questions of the
reference file (an id it lacks is skipped with a warning), judges the hypothesis with the prompt of
the question's type (the abstention prompt when `_abs` is in the id), and logs every entry with
`autoeval_label: {model, label}` to `<hypothesis file>.eval-results-<model>`, a JSON line each.

A hypothesis file names its questions by id only, so the questions come from the file given to
`--mb-data longmemeval=PATH` (the reference file evaluate_qa.py was given).  Each hypothesis whose
id the data holds becomes the item a live run of that data has (`longmemeval::<id>::<category>`,
the same definition), scored by our LongMemEval scorer; ids the data lacks are one line.  The
published verdicts are the `autoeval_label`s: of the records themselves when the log is what was
given, else of the log beside the file (`<file>.eval-results-*`, the first by name when there
are several, said in the header); a log entry whose hypothesis is not the file's is not taken
for its verdict, and is counted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.readers import Malformed, reading, require
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.rescore.answers import JudgedAnswer, answered_run, not_matched
from pytest_memorybench.rescore.documents import load_document
from pytest_memorybench.rescore.published import PublishedRun
from pytest_memorybench.scenarios.longmemeval.scenario import NAME, SCENARIO

SUITE = "longmemeval"
DATA_KEYS = (NAME, "questions", SUITE)  # how --mb-data may name LongMemEval's file
LOG = ".eval-results-"  # evaluate_qa.py's log: <hypothesis file>.eval-results-<metric model>
NO_DATA = (
    "LongMemEval's hypotheses name their questions by id only: give the questions evaluate_qa.py was"
    " given, --mb-data longmemeval=PATH (longmemeval_s_cleaned.json, _m_ or _oracle)"
)


@dataclass(frozen=True)
class Hypothesis:
    """One line of a hypothesis file, with the verdict of evaluate_qa.py's log when there is one."""

    question_id: str
    text: str
    label: bool | None = None
    model: str = ""


def read_hypotheses(file: Path, document: Any, data: Mapping[str, str], seed: int = 0) -> PublishedRun:
    """The hypotheses in `file` (read as `document`), matched by id to the questions of `data`'s
    LongMemEval file, with the verdicts of evaluate_qa.py's log where there is one."""
    hypotheses = _hypotheses(document)
    notes: list[str] = []
    skipped: list[str] = []
    if all(h.label is None for h in hypotheses):
        hypotheses = _with_log(file, hypotheses, notes, skipped)
    path = next((data[key] for key in DATA_KEYS if key in data), None)
    if path is None:
        raise usage_error(f"--mb-rescore {file}: {NO_DATA}")
    questions = _questions(path, seed)
    answers = []
    for hypothesis in hypotheses:
        definition = questions.get(hypothesis.question_id)
        asked = str(definition.params["question"]) if definition is not None else ""
        judge = f"evaluate_qa.py ({hypothesis.model})" if hypothesis.model else "evaluate_qa.py"
        verdict = () if hypothesis.label is None else (hypothesis.label,)
        answers.append(
            (
                hypothesis.question_id,
                definition,
                JudgedAnswer(file, asked, (hypothesis.text,), verdict, judge=judge),
            )
        )
    return answered_run(
        file,
        SUITE,
        f"LongMemEval hypotheses from {file}",
        answers,
        f"hypotheses name no question of {path}",
        skipped=skipped,
        notes=notes,
    )


def _hypotheses(document: Any) -> list[Hypothesis]:
    """The file's lines as evaluate_qa.py reads them: `question_id`, `hypothesis`, and in a log
    `autoeval_label: {model, label}`."""
    records = document if isinstance(document, list) else [document]
    hypotheses = []
    for number, raw in enumerate(records, 1):
        require(
            isinstance(raw, dict) and "question_id" in raw and isinstance(raw.get("hypothesis"), str),
            f"line {number}: expected an object with 'question_id' and a 'hypothesis' string",
        )
        label = raw.get("autoeval_label")
        if label is not None:
            require(
                isinstance(label, dict) and isinstance(label.get("label"), bool),
                f"line {number}: 'autoeval_label' must be {{model, label: true or false}}",
            )
            hypotheses.append(
                Hypothesis(
                    str(raw["question_id"]), raw["hypothesis"], label["label"], str(label.get("model") or "")
                )
            )
        else:
            hypotheses.append(Hypothesis(str(raw["question_id"]), raw["hypothesis"]))
    require(bool(hypotheses), "no hypothesis in it")
    return hypotheses


def _with_log(
    file: Path, hypotheses: list[Hypothesis], notes: list[str], skipped: list[str]
) -> list[Hypothesis]:
    """The hypotheses with the verdicts of evaluate_qa.py's log beside `file`, where its entry
    holds the same hypothesis."""
    logs = sorted(file.parent.glob(f"{file.name}{LOG}*"))
    if not logs:
        return hypotheses
    log = logs[0]
    with reading(f"--mb-rescore {log}", "give evaluate_qa.py's log as it wrote it, or move it away"):
        logged = {h.question_id: h for h in _hypotheses(load_document(log)) if h.label is not None}
    if len(logs) > 1:
        others = ", ".join(path.name for path in logs[1:])
        notes.append(
            f"{file}: verdicts from {log.name} (also beside it: {others}; give a log itself to use it)"
        )
    other = [
        h.question_id for h in hypotheses if h.question_id in logged and logged[h.question_id].text != h.text
    ]
    if other:
        skipped.append(
            not_matched(
                str(log),
                other,
                "verdicts judge another hypothesis than the file's",
                "left out of the agreement",
            )
        )
    return [
        dataclasses.replace(h, label=entry.label, model=entry.model)
        if (entry := logged.get(h.question_id)) is not None and entry.text == h.text
        else h
        for h in hypotheses
    ]


def _questions(path: str, seed: int) -> dict[str, TestDefinition]:
    """Every question of LongMemEval's file as a live run defines it, by question id."""
    with reading(f"longmemeval data {path}", "give the LongMemEval file the hypotheses answer"):
        contexts = SCENARIO.contexts(SUITE, {"data_path": path}, seed)
    questions = {}
    for context in contexts:
        if context.probes:
            questions[context.id] = context.probes[0]
    if not questions:
        raise Malformed(f"{path} holds no question")
    return questions


__all__ = ["DATA_KEYS", "NO_DATA", "SUITE", "Hypothesis", "read_hypotheses"]
