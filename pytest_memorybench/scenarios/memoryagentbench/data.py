"""MemoryAgentBench's records and loader: the Hugging Face release's rows, as its code reads them.

The release (`ai-hyz/MemoryAgentBench`, MIT) has four splits, one per competency, each a parquet
file of rows: `context` (one long text), `questions` (a list), `answers` (a list of lists of
accepted gold strings, position by position), and `metadata` whose `source` names the
sub-dataset (`factconsolidation_sh_6k`, `icl_banking77_5900shot_balance`, `eventqa_65536`, …) and
whose other fields are the source's own (`question_dates`, `question_types`, `question_ids`,
`previous_events`, `qa_pair_ids`, `keypoints`, `demo`); a field of a question is a list indexed
like `questions` (the code's `_get_field_value`).  We read a split as parquet (pyarrow, the
`parquet` extra), as JSON (a list of rows, or `{"data": rows}`) or as JSON Lines, or a folder of
such files; the competency of a row is read from its source's name, as the code's templates do.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_memorybench.core.readers import Malformed, read_parquet, require

# Competencies and the source-name prefixes of their sub-datasets (the code's DATASET_MAPPING).
COMPETENCIES = {
    "accurate_retrieval": ("ruler_qa", "ruler_niah", "eventqa_", "longmemeval_", "infbench_qa"),
    "test_time_learning": ("icl_", "recsys_"),
    "long_range_understanding": ("infbench_sum", "detective_qa", "detectiveqa"),
    "conflict_resolution": ("factconsolidation_",),
}
LAYOUT = (
    "expected MemoryAgentBench's rows (context, questions, answers, metadata.source), as its Hugging"
    " Face release has them: a parquet split, a JSON list of rows or JSON Lines"
)
_INDEXED = ("question_dates", "question_types", "question_ids", "previous_events", "qa_pair_ids", "uuids")


@dataclass(frozen=True)
class Question:
    """One question of a sample, with the fields of its position."""

    text: str
    answers: tuple[str, ...]  # every accepted gold string
    id: str
    fields: Mapping[str, Any] = field(default_factory=dict)  # previous_events, question_dates, …
    # The values a later fact overrode (our generator's conflicts); the release's rows name none.
    superseded: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sample:
    """One long context and the questions asked after it (inject once, query many)."""

    id: str
    source: str
    competency: str
    context: str
    questions: tuple[Question, ...]
    metadata: Mapping[str, Any] = field(default_factory=dict)


def competency_of(source: str) -> str | None:
    """The competency a sub-dataset tests, from its name; None for a source no template knows."""
    lowered = source.lower()
    return next(
        (name for name, prefixes in COMPETENCIES.items() if any(lowered.startswith(p) for p in prefixes)),
        None,
    )


def load_samples(path: str | Path) -> list[Sample]:
    """Every sample of a published file, or of the files of a folder, in file order; a file of
    another layout fails with one line (inside the caller's `reading`)."""
    location = Path(path)
    files = (
        sorted(p for p in location.iterdir() if p.suffix in (".parquet", ".json", ".jsonl"))
        if location.is_dir()
        else [location]
    )
    require(bool(files), f"{location} holds no .parquet, .json or .jsonl file; {LAYOUT}")
    samples: list[Sample] = []
    for file in files:
        rows = _rows(file)
        require(bool(rows), f"{file.name} holds no rows; {LAYOUT}")
        counts: dict[str, int] = {}
        for row in rows:
            sample = _sample(row, file.name, counts)
            samples.append(sample)
    return samples


def _rows(file: Path) -> list[Any]:
    if file.suffix == ".parquet":
        return read_parquet(file, "memoryagentbench data")
    text = file.read_text(encoding="utf-8")
    if file.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    data = json.loads(text)
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        return list(data["data"])
    require(isinstance(data, list), f"{file.name} is not a list of rows; {LAYOUT}")
    return list(data)


def _sample(row: Any, file: str, counts: dict[str, int]) -> Sample:
    require(
        isinstance(row, dict) and {"context", "questions", "answers"} <= row.keys(),
        f"{file}: a row without context, questions and answers; {LAYOUT}",
    )
    metadata = row.get("metadata") or {}
    require(isinstance(metadata, dict), f"{file}: a row's metadata is not an object; {LAYOUT}")
    source = str(metadata.get("source") or row.get("source") or "")
    require(bool(source), f"{file}: a row without metadata.source (its sub-dataset); {LAYOUT}")
    competency = competency_of(source)
    if competency is None:
        raise Malformed(f"{file}: source {source!r} is none of MemoryAgentBench's sub-datasets ({LAYOUT})")
    context = row["context"]
    require(isinstance(context, str) and bool(context), f"{file}: source {source}: the context is not text")
    questions = _listed(row["questions"])
    answers = _listed(row["answers"])
    require(bool(questions), f"{file}: source {source}: no questions")
    if len(questions) == 1 and len(answers) > 1 and all(isinstance(a, str) for a in answers):
        answers = [answers]  # one question whose golds were given flat (the code keeps them whole)
    require(
        len(answers) == len(questions),
        f"{file}: source {source}: {len(questions)} questions but {len(answers)} answers",
    )
    number = counts.get(source, 0)
    counts[source] = number + 1
    sample_id = f"{source}-{number}"
    pairs = enumerate(zip(questions, answers, strict=True))
    asked = tuple(_question(sample_id, index, text, gold, metadata) for index, (text, gold) in pairs)
    return Sample(sample_id, source, competency, context, asked, metadata)


def _question(sample: str, index: int, text: Any, gold: Any, metadata: Mapping[str, Any]) -> Question:
    golds = tuple(str(value) for value in _listed(gold))
    fields = {name: _at(metadata.get(name), index) for name in _INDEXED if metadata.get(name) is not None}
    ids = fields.get("qa_pair_ids") or fields.get("question_ids") or fields.get("uuids")
    return Question(str(text), golds, str(ids) if ids else f"{sample}-q{index}", fields)


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    if hasattr(value, "tolist"):  # a numpy array, as pandas hands parquet lists over
        return list(value.tolist())
    return [value]


def _at(value: Any, index: int) -> Any:
    """A field of question `index`: its entry when the field is a list long enough, else the whole
    field (the code's `_get_field_value`)."""
    items = _listed(value) if not isinstance(value, str) else [value]
    if isinstance(value, (list, tuple)) and index < len(items):
        return items[index]
    return value


def by_competency(samples: Iterable[Sample], competency: str) -> list[Sample]:
    """The samples of one competency: a scenario takes those of a split given whole or mixed."""
    return [sample for sample in samples if sample.competency == competency]


__all__ = [
    "COMPETENCIES",
    "LAYOUT",
    "Question",
    "Sample",
    "by_competency",
    "competency_of",
    "load_samples",
]
