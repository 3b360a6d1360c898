"""MemoryAgentBench's answers as its runner writes them, a results file per sub-dataset.

Its `main.py` writes `<output_dir>/<dataset>/<name tag>_results.json`, the dataset a competency
(`Accurate_Retrieval`, `Conflict_Resolution`, …) and the name tag starting with the sub-dataset:
`{agent_config, dataset_config, data, metrics, time_cost, averaged_metrics}`, `data` holding one
record per query in order (`output`, `input_len`, `output_len`, `memory_construction_time`,
`query_time_len`, the metrics, `answer`, `query`, `query_id`, `qa_pair_id`).  Its resume
(`initialization.load_existing_results`) reads `query`, `answer`, `output`, `input_len`,
`output_len`, `query_time_len`, `query_id` and `qa_pair_id` of each, and its LLM evaluations
(`llm_based_eval/`) pair `data[i]` with the i-th question of the sub-dataset (LongMemEval's checks
`answer` equals the release's) or look `qa_pair_id` up.

So each sub-dataset is `<Competency>/<source>_memorybench_results.json`, its queries in the
release's order (`query_id` counting from 0 across its samples), `answer` the release's answers,
`query` the question as asked, `output` the reply, the lengths our token counts and `query_time_len`
the seconds the answer took; the primary metric is ours (the score).  Answers pair by position, so
a file ends at the first question the run did not answer; answers after it are left out, and
counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.reports.exports.answers import Answer, Planned, answered_prefix, counted, write_json
from pytest_memorybench.scenarios.memoryagentbench.scenario import FAMILY

SUFFIX = "_memorybench_results.json"


def competency_folder(scenario: str) -> str:
    """ "memoryagentbench.accurate_retrieval" → "Accurate_Retrieval", the runner's dataset name."""
    return "_".join(part.capitalize() for part in scenario.rsplit(".", 1)[-1].split("_"))


def export(planned: Planned, folder: Path) -> tuple[Path | None, str]:
    """A results file per sub-dataset; (the folder, what went in)."""
    pairs = planned.of(lambda d: d.scenario.startswith(f"{FAMILY}.") and isinstance(d.expected, dict))
    by_source: dict[tuple[str, str], list[tuple[TestDefinition, Answer | None]]] = {}
    for definition, answer in pairs:
        by_source.setdefault((definition.scenario, definition.expected["source"]), []).append(
            (definition, answer)
        )
    written, answers, late = 0, [], 0
    for (scenario, source), questions in by_source.items():
        prefix, left = answered_prefix(questions)
        late += left
        if prefix:
            _write(
                folder / competency_folder(scenario) / f"{source}{SUFFIX}", scenario, source, prefix, planned
            )
            written += 1
            answers.extend(prefix)
    if not answers:
        return None, "no MemoryAgentBench question was answered in this run; nothing written"
    rest = f"{late} left out: answered after a question of their source that was not" if late else ""
    return folder, counted(
        len(answers), f"queries in {written} results file{'s' if written != 1 else ''}", answers, rest
    )


def _write(path: Path, scenario: str, source: str, answers: Sequence[Answer], planned: Planned) -> None:
    data = [_record(number, answer) for number, answer in enumerate(answers)]
    metrics: dict[str, list[float]] = {}
    for record in data:
        for name in (
            record["metric"],
            "input_len",
            "output_len",
            "memory_construction_time",
            "query_time_len",
        ):
            if name in record:
                metrics.setdefault(name, []).append(record[name])
        del record["metric"]
    run = planned.results["run"]
    write_json(
        path,
        {
            "agent_config": {"agent_name": "memorybench", "model": run["agent"], "output_dir": "."},
            "dataset_config": {"dataset": competency_folder(scenario), "sub_dataset": source},
            "data": data,
            "metrics": metrics,
            "time_cost": [],
            "averaged_metrics": {
                name: fmean(values) * (1 if "_len" in name or "_time" in name else 100)
                for name, values in metrics.items()
            },
        },
    )


def _record(number: int, answer: Answer) -> dict[str, Any]:
    definition, usage = answer.definition, answer.item["usage"]
    expected = definition.expected
    record: dict[str, Any] = {
        "output": answer.text,
        "input_len": usage["input_tokens"],
        "output_len": usage["output_tokens"],
        "memory_construction_time": 0,
        "query_time_len": usage["seconds"],
        "metric": expected["metric"],
        "answer": expected.get("answers", expected["golds"]),
        "query": definition.questions[0],
        "query_id": number,
    }
    if answer.item["score"] is not None:
        record[expected["metric"]] = answer.item["score"]
    if "qa_pair_id" in definition.params:
        record["qa_pair_id"] = definition.params["qa_pair_id"]
    return record


__all__ = ["SUFFIX", "competency_folder", "export"]
