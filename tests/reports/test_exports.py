"""`--mb-export`: a run's answers in each benchmark's own layout, read back as that benchmark reads
them (our reader where we have one, else the upstream script's parsing rules, re-implemented here
from reading the script: LongMemEval's `evaluate_qa.py`, MemoryAgentBench's
`initialization.load_existing_results` and `llm_based_eval/`, BEAM's `run_evaluation.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.contract.probes import probe_definition
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.reports.exports import export_formats
from pytest_memorybench.reports.exports.answers import Planned, answered_prefix
from pytest_memorybench.rescore.formats import read_published_results
from pytest_memorybench.results.schema import ItemRecord, ResultsRecord
from pytest_memorybench.scenarios.beam.generator import plan_chat
from pytest_memorybench.scenarios.beam.writer import write_repository
from pytest_memorybench.scenarios.longmemeval.generator import write_longmemeval
from pytest_memorybench.scenarios.memoryagentbench.scenario import SCENARIOS
from tests.pytest_integration.test_plugin import FLAKY_RECALL_AGENT
from tests.support.runs import run_benchmark, usage_error_line


def _evaluate_qa_reads(hyp_file: Path, ref_file: Path) -> list[tuple[str, str, str, bool]]:
    """What LongMemEval's evaluate_qa.py takes of each hypothesis: a JSON line each (else the whole
    file as a JSON list), `entry['question_id']` looked up in the reference file (else skipped),
    `entry['hypothesis']` formatted into the judge's prompt; `'_abs' in question_id` picks the
    abstention prompt.  (question id, its question type, hypothesis, abstention) per judged line."""
    try:
        hypotheses = [json.loads(line) for line in hyp_file.read_text().splitlines(keepends=True)]
    except json.JSONDecodeError:
        hypotheses = json.loads(hyp_file.read_text())
    references = json.loads(ref_file.read_text())
    qid2qtype = {entry["question_id"]: entry["question_type"] for entry in references}
    judged = []
    for entry in hypotheses:
        if entry["question_id"] not in qid2qtype:
            continue  # "Warning: skipping ... as it is not in reference data."
        hypothesis = entry["hypothesis"]
        assert isinstance(hypothesis, str)  # str.format would take anything; their judge reads text
        qid = entry["question_id"]
        judged.append((qid, qid2qtype[qid], hypothesis, "_abs" in qid))
    return judged


def test_a_longmemeval_export_is_what_evaluate_qa_reads(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest(FLAKY_RECALL_AGENT)
    monkeypatch.setenv("FAIL_AT", "3")  # the third question's reply fails: that item errors
    data = write_longmemeval(tmp_path / "longmemeval_s.json", numbers=2)
    run = run_benchmark(
        pytester, "--mb-suite=longmemeval", f"--mb-data=longmemeval={data}", "--mb-export=longmemeval"
    )
    exported = run.folder / "exports" / "longmemeval" / "hypotheses.jsonl"
    run.outcome.stdout.fnmatch_lines([
        "export longmemeval: */exports/longmemeval/hypotheses.jsonl (14 hypotheses; 1 errored, written with"
        " an empty answer; our verdicts in hypotheses.jsonl.eval-results-memorybench)"
    ])  # fmt: skip
    judged = _evaluate_qa_reads(exported, data)
    items = {item["test_id"].split("::")[0]: item for item in run.results["items"]}
    assert len(judged) == len(items) == 14  # every question, each once, none skipped as unknown
    [errored] = [question_id for question_id, item in items.items() if item["error"] is not None]
    for question_id, _, hypothesis, abstention in judged:
        assert hypothesis == ("" if question_id == errored else items[question_id]["responses"][-1])
        assert abstention == (items[question_id]["category"] == "abstention")
    log = exported.parent / f"{exported.name}.eval-results-memorybench"  # evaluate_qa.py's own log layout
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(entry["question_id"], entry["autoeval_label"]["label"]) for entry in logged] == [
        (question_id, items[question_id]["passed"]) for question_id, *_ in judged if question_id != errored
    ]  # the errored item has no verdict to log
    assert {entry["autoeval_label"]["model"] for entry in logged} == {"memorybench judge local"}


def test_an_export_of_a_replayed_run_is_the_same(pytester: pytest.Pytester, tmp_path: Path) -> None:
    data = write_longmemeval(tmp_path / "longmemeval_s.json")
    first = run_benchmark(
        pytester, "--mb-suite=longmemeval", "--agent=recall", f"--mb-data=longmemeval={data}"
    )
    assert not (first.folder / "exports").exists()  # nothing unless asked
    replayed = run_benchmark(pytester, f"--mb-replay={first.folder}", "--mb-export=longmemeval")
    hypotheses = (replayed.folder / "exports" / "longmemeval" / "hypotheses.jsonl").read_text().splitlines()
    assert [json.loads(line)["hypothesis"] for line in hypotheses] == [
        item["responses"][-1] for item in first.results["items"]
    ]


def test_a_locomo_export_reads_back_with_our_reader(pytester: pytest.Pytester) -> None:
    run = run_benchmark(pytester, "--mb-suite=locomo", "--agent=oracle", "--mb-export=locomo")
    path = run.folder / "exports" / "locomo" / "eval_results.json"
    run.outcome.stdout.fnmatch_lines(
        ["export locomo: */eval_results.json (8 answers; 10 of categories 5-6 left out*"]
    )
    published = read_published_results(path, {})
    [suite] = published.suites
    read = {
        definition.probe_id: published.results[f"locomo::{definition.test_id}"] for definition in suite.loaded
    }
    ours = [item for item in run.results["items"] if item["category"] not in ("adversarial", "cognitive")]
    assert len(read) == len(ours) == 8
    for item in ours:  # our node id gen-1::single_hop[3] is conv-0::single_hop[3] there
        answer = read["conv-0::" + item["test_id"].split("::", 1)[1]]
        assert answer.responses == (item["responses"][-1],) and item["score"] == 1.0
        assert (answer.verdict_json() or {})["reasons"] == ["1 of 1 judgments say correct"]  # ours, passed
    document = json.loads(path.read_text())
    assert document["metadata"]["conversations"] == {"0": "gen-1"} and document["accuracy"] == 1.0


def test_a_locomo_export_rescored_agrees_with_itself(pytester: pytest.Pytester) -> None:
    run = run_benchmark(
        pytester, "--mb-suite=locomo", "--agent=recall", "--mb-export=locomo", "--mb-profile=official"
    )
    rescored = run_benchmark(
        pytester, f"--mb-rescore={run.folder / 'exports' / 'locomo' / 'eval_results.json'}"
    )
    rescored.outcome.stdout.fnmatch_lines(["*memorybench agreement*", "all * 8 * 100.0% *"])


def _load_existing_results_reads(path: Path) -> list[dict[str, Any]]:
    """What MemoryAgentBench's resume (initialization.load_existing_results) takes of each record of
    `data`: query, answer (a list: its first), output, input_len, output_len, query_time_len
    (required), memory_construction_time (optional), query_id and qa_pair_id (optional)."""
    saved = json.loads(path.read_text())
    read = []
    for entry in saved["data"]:
        read.append(
            {
                "query": entry["query"],
                "answer": entry["answer"][0] if isinstance(entry["answer"], list) else entry["answer"],
                "output": entry["output"],
                "input_len": entry["input_len"],
                "output_len": entry["output_len"],
                "memory_construction_time": entry.get("memory_construction_time", 0),
                "query_time_len": entry["query_time_len"],
                "query_id": entry.get("query_id"),
            }
        )
    assert set(saved) >= {"agent_config", "dataset_config", "data", "metrics", "averaged_metrics"}
    return read


def test_a_memoryagentbench_export_is_what_its_runner_reads_back(pytester: pytest.Pytester) -> None:
    run = run_benchmark(
        pytester, "--mb-suite=memoryagentbench", "--agent=oracle", "--mb-export=memoryagentbench"
    )
    folder = run.folder / "exports" / "memoryagentbench"
    run.outcome.stdout.fnmatch_lines(
        ["export memoryagentbench: */exports/memoryagentbench (41 queries in 5 results files)"]
    )
    for scenario in SCENARIOS:
        for context in scenario.contexts("memoryagentbench", {}, 0):
            source = context.probes[0].expected["source"]
            competency = "_".join(p.capitalize() for p in scenario.name.split(".")[1].split("_"))
            [path] = (folder / competency).glob(
                f"{source}_*_results.json"
            )  # the runner's <sub_dataset>_… name
            read = _load_existing_results_reads(path)
            # Its LLM evaluations pair data[i] with the i-th question of the source: the queries in order.
            assert [entry["query"] for entry in read] == [probe.questions[0] for probe in context.probes]
            assert [entry["query_id"] for entry in read] == list(range(len(context.probes)))
            golds = [probe.expected.get("answers", probe.expected["golds"])[0] for probe in context.probes]
            assert [entry["answer"] for entry in read] == golds
            outputs = {item["test_id"]: item["responses"][-1] for item in run.results["items"]}
            assert [entry["output"] for entry in read] == [outputs[probe.test_id] for probe in context.probes]
            dataset = json.loads(path.read_text())["dataset_config"]
            assert dataset == {"dataset": competency, "sub_dataset": source}


def _run_evaluation_reads(answers: Path, probing: Path) -> list[tuple[str, str, list[str], str]]:
    """What BEAM's run_evaluation.py takes of an answers file: for each key, the i-th entry's
    `question` and `llm_response`, with the rubric of the i-th question of that key in the chat's
    probing_questions.json.  (ability, asked question, rubric, response) per entry."""
    data = json.loads(answers.read_text())
    questions = json.loads(probing.read_text())
    read = []
    for key in data:
        for index, question in enumerate(data[key]):
            rubric = questions[key][index]["rubric"]
            read.append((key, question["question"], rubric, question["llm_response"]))
            assert question["question"] == questions[key][index]["question"]  # the pairing holds
    return read


def test_a_beam_export_is_what_its_evaluation_reads(pytester: pytest.Pytester, tmp_path: Path) -> None:
    chat = write_repository(plan_chat(30_000, seed=4), tmp_path / "BEAM", number=3)
    run = run_benchmark(
        pytester, "--mb-suite=beam", "--agent=oracle", f"--mb-data=beam={tmp_path / 'BEAM'}",
        "--mb-export=beam", "-m", "abstention or temporal_reasoning or event_ordering",
    )  # fmt: skip
    run.outcome.stdout.fnmatch_lines(["export beam: */exports/beam (6 answers in 1 chat)"])
    exported = run.folder / "exports" / "beam" / "30K" / "3" / "answers.json"  # results/<size>/<chat>/
    read = _run_evaluation_reads(exported, chat / "probing_questions" / "probing_questions.json")
    responses = {item["questions"][0]: item["responses"][-1] for item in run.results["items"]}
    assert len(read) == 6 and {ability for ability, *_ in read} == {
        "abstention",
        "temporal_reasoning",
        "event_ordering",
    }
    assert all(response == responses[question] for _, question, _, response in read)


def _planned(count: int) -> list[tuple[str, TestDefinition]]:
    return [
        (f"s::q{n}", probe_definition(
            suite="s", scenario="x", seed=0, context="c", probe_id=f"q{n}", question="?", ideal_answer="",
            expected={},
        ))
        for n in range(count)
    ]  # fmt: skip


def _item(nodeid: str) -> ItemRecord:
    return {"nodeid": nodeid, "responses": ["an answer"], "error": None, "passed": True}  # type: ignore[typeddict-item]


def test_a_positional_format_stops_at_the_first_question_not_answered() -> None:
    results: ResultsRecord = {"items": [_item("s::q0"), _item("s::q1"), _item("s::q3")]}  # type: ignore[typeddict-item]
    pairs = Planned(results, _planned(5)).of(lambda definition: True)
    answers, left = answered_prefix(pairs)
    assert [answer.definition.probe_id for answer in answers] == ["q0", "q1"] and left == 1  # q3


def test_an_unknown_format_is_one_line(pytester: pytest.Pytester) -> None:
    assert export_formats(["locomo,beam", "locomo"]) == ("locomo", "beam")
    result = pytester.runpytest(
        "--memorybench", "--agent=null", "--mb-export=longmemval", "-p", "no:cacheprovider"
    )
    assert (
        "'longmemval' is not a format; give one of longmemeval, locomo, memoryagentbench, beam"
        in usage_error_line(result)
    )


def test_a_format_with_nothing_to_write_says_so(pytester: pytest.Pytester) -> None:
    run = run_benchmark(pytester, "--mb-suite=locomo", "--agent=null", "--mb-export=beam", "-m", "temporal")
    run.outcome.stdout.fnmatch_lines(
        ["export beam: no BEAM question was answered in this run; nothing written"]
    )
    assert not (run.folder / "exports" / "beam").exists()
