"""`memoryagentbench.*`: the four competencies, each sample's context fed once and its questions
asked of the same memory.

Each sample is a probe context: its context split into chunks (`chunk_size` tokens, 4,096 in the
benchmark's configs; its ablation), each chunk a user turn asking the agent to memorise it, then
every question of the sample asked on a fork of that memory.  The sub-dataset (its `source`) is
the item's category; its primary metric scores it (`scoring.py`).

Where the samples come from: `data_path` (`--mb-data memoryagentbench=PATH`: a split of the Hugging
Face release, or a folder of them; each scenario takes the rows of its competency), or our
generator (`generator.py`), whose contexts are `tokens` long: the size of the paper's datasets
(6K, 32K, 64K, 262K), which `--span` sets.  Movie recommendation needs the release's
`entity2id.json` (`--mb-data memoryagentbench_entities=PATH`); without it those items are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pytest_memorybench.contract.probes import FamilyPart, ProbeContext, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.contract.stale import expected_superseded
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.readers import read_json, reading, require
from pytest_memorybench.core.records import Message, Score, TestDefinition
from pytest_memorybench.core.spans import parse_span
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.memoryagentbench.data import (
    COMPETENCIES,
    Sample,
    by_competency,
    load_samples,
)
from pytest_memorybench.scenarios.memoryagentbench.feeding import chunks, kind_of, memorize_line, query_text
from pytest_memorybench.scenarios.memoryagentbench.generator import Sized, generate
from pytest_memorybench.scenarios.memoryagentbench.scoring import (
    event_recall,
    primary_metric,
    score_judged,
    score_label,
    score_recommendations,
    score_text,
)
from pytest_memorybench.scenarios.params import at_least, read_params

FAMILY = "memoryagentbench"
START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
CHUNK_GAP = timedelta(minutes=1)
NO_ENTITIES = (
    "movie recommendation needs the release's entity2id.json: --mb-data memoryagentbench_entities=PATH"
)


@dataclass(frozen=True)
class MemoryAgentBenchParams:
    """Where the data is, or how large generated samples are; and the chunk size it is fed in."""

    data_path: str = ""
    entities_path: str = ""
    sources: str = ""  # published data: which sub-datasets, e.g. "factconsolidation_sh_6k" (all when empty)
    tokens: str = "6K"  # generated contexts: their size (--span sets it)
    questions: int = 10  # generated samples: questions each
    generated: int = 1  # generated samples per competency (conflict resolution: single- and multi-hop each)
    chunk_size: int = 4096

    def __post_init__(self) -> None:
        at_least("questions", self.questions, 1, 200)
        at_least("generated", self.generated, 1, 50)
        at_least("chunk_size", self.chunk_size, 64, 1_000_000)
        tokens = parse_span(self.tokens).tokens
        if tokens is None:
            raise ValueError(f"tokens must be a size such as 6K or 32K, got {self.tokens!r}")


class MemoryAgentBenchScenario(FamilyPart):
    """One competency of MemoryAgentBench."""

    family = FAMILY
    span_param = "tokens"
    data_params = {"memoryagentbench_entities": "entities_path"}

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        settings = read_params(MemoryAgentBenchParams, self.name, params)
        count = default_counter().count
        tally = LoadTally()  # published data: what it held and what could not run
        if settings.data_path:
            samples = by_competency(load_samples(settings.data_path), self.part)
            tally.held("rows", len(samples))
            tally.held("questions", sum(len(sample.questions) for sample in samples))
            wanted = {part.strip() for part in settings.sources.split(",") if part.strip()}
            if wanted:
                for sample in samples:
                    if sample.source not in wanted:
                        tally.note(
                            f"questions of sub-datasets not chosen (sources: {settings.sources})",
                            sample.source,
                            len(sample.questions),
                        )
                samples = [sample for sample in samples if sample.source in wanted]
            source = "published"
        else:
            size = Sized(int(parse_span(settings.tokens).tokens or 0), settings.questions, count)
            samples, source = generate(self.part, seed, settings.generated, size), "generated"
        entities = _entities(settings.entities_path) if settings.entities_path else None
        for sample in samples if settings.data_path and entities is None else ():
            if primary_metric(sample.source) == "recall@5":
                tally.note(f"questions skipped: {NO_ENTITIES}", sample.source, len(sample.questions))
        report = tally.report() if settings.data_path else None
        return [
            replace(
                _context(suite, self.name, seed, sample, source, settings.chunk_size, count, entities),
                report=report,
            )
            for sample in samples
        ]

    def superseded(self, definition: TestDefinition) -> list[str]:
        """Conflict resolution's overridden values, from our generator's samples (`contract/stale.py`);
        none from the release, whose rows give only the current answer."""
        return expected_superseded(definition)

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        expected = definition.expected
        reply = responses[-1] if responses else ""
        golds: list[str] = list(expected["golds"])
        metric = expected["metric"]
        if metric == "label_accuracy":
            return score_label(reply, golds, context.profile)
        if metric == "recall@5":
            return score_recommendations(reply, golds, expected["entities"])
        if metric in ("judge", "keypoints"):
            judge = context.judge or LocalJudge()
            return await score_judged(
                judge, metric, str(definition.params["question"]), golds, reply, context.profile
            )
        score = score_text(reply, golds, metric)
        if expected.get("kind") == "eventqa":
            recall = event_recall(reply, golds)
            return replace(
                score, reasons=(*score.reasons, f"EventQA recall {recall:.0f} (all gold elements named)")
            )
        return score


def _entities(path: str) -> dict[str, int]:
    """The release's movie list (entity2id.json: a movie's name → its id)."""
    with reading(f"memoryagentbench entities {path}", "give the release's entity2id.json"):
        data = read_json(Path(path))
        require(isinstance(data, dict), "expected a JSON object of movie names and their ids")
        return {str(name): int(number) for name, number in data.items()}


def _context(
    suite: str,
    scenario: str,
    seed: int,
    sample: Sample,
    source: str,
    chunk_size: int,
    count: Callable[[str], int],
    entities: Mapping[str, int] | None,
) -> ProbeContext:
    kind = kind_of(sample.source, sample.competency)
    pieces = chunks(sample.context, chunk_size, count)
    lines = [memorize_line(kind, piece) for piece in pieces]
    probes = tuple(
        _definition(suite, scenario, seed, sample, index, kind, source, entities)
        for index in range(len(sample.questions))
    )
    return ProbeContext(
        sample.id,
        probes,
        _stream(lines),
        header="Here are texts for you to memorise, in order.",
        pack_tokens=chunk_size + 64,
        observe_batch=8,
        tokens=sum(count(line) for line in lines),
    )


def _stream(lines: list[str]) -> Callable[[], Iterator[Message]]:
    def turns() -> Iterator[Message]:
        for number, line in enumerate(lines):
            yield Message(line, START + number * CHUNK_GAP, "user", number, "chunks")

    return turns


def _definition(
    suite: str,
    scenario: str,
    seed: int,
    sample: Sample,
    index: int,
    kind: str,
    source: str,
    entities: Mapping[str, int] | None,
) -> TestDefinition:
    question = sample.questions[index]
    metric = primary_metric(sample.source)
    golds = list(question.answers)
    if metric == "keypoints":
        golds = [
            str(point)
            for point in question.fields.get("keypoints") or sample.metadata.get("keypoints") or golds
        ]
    expected: dict[str, Any] = {"golds": golds, "metric": metric, "kind": kind, "source": sample.source}
    if golds != list(question.answers):
        expected["answers"] = list(question.answers)  # the release's answers, for the export to write back
    if question.superseded:  # our generator's overridden values (the release names none)
        expected["superseded"] = list(question.superseded)
    params: JsonObject = {"source": source, "question": question.text}
    pair_id = question.fields.get("qa_pair_ids")
    if pair_id is not None:  # the runner's id of a question, which its LLM evaluations look up
        pair_id = pair_id.item() if hasattr(pair_id, "item") else pair_id  # a numpy scalar from parquet
        params["qa_pair_id"] = pair_id if isinstance(pair_id, (str, int)) else str(pair_id)
    ideal = _ideal(metric, golds, entities)
    definition = probe_definition(
        suite=suite,
        scenario=scenario,
        seed=seed,
        context=sample.id,
        probe_id=f"{sample.id}::{question.id}",
        question=query_text(kind, question.text, question.fields),
        ideal_answer=ideal,
        expected=expected,
        category=sample.source,
        skills=(sample.competency,),
        markers=(sample.competency,),
        params=params,
    )
    if metric == "recall@5":
        if entities is None:
            return replace(definition, skip_reason=NO_ENTITIES)
        expected["entities"] = dict(entities)
    return definition


def _ideal(metric: str, golds: Sequence[str], entities: Mapping[str, int] | None) -> str:
    """What the calibration oracle answers: the gold (a summary: every keypoint; a recommendation:
    the gold movies as a numbered list)."""
    if metric == "keypoints":
        return " ".join(golds)
    if metric == "needle_recall":
        return ", ".join(golds)
    if metric == "recall@5" and entities:
        names = {number: name for name, number in entities.items()}
        return "\n".join(f"{n}. {names.get(int(gold), gold)}" for n, gold in enumerate(golds, start=1))
    return golds[0]


SCENARIOS = tuple(MemoryAgentBenchScenario(competency) for competency in COMPETENCIES)

__all__ = ["FAMILY", "SCENARIOS", "MemoryAgentBenchParams", "MemoryAgentBenchScenario"]
