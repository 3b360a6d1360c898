"""`--mb-rescore` of other harnesses' outputs: LongMemEval hypothesis files and evaluate_qa.py's
logs, vectorize-io/agent-memory-benchmark's per-query outputs, supermemoryai/memorybench's run
reports.  Every fixture is ours, written in the layout each harness's code writes (read from that
code: evaluate_qa.py, AMB's runner.py `_save` and models.py, memorybench's report.ts and
unified.ts), over questions of our own generators.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.scenarios.locomo.generator import generate_sample
from pytest_memorybench.scenarios.longmemeval.generator import generate_entries, write_longmemeval
from tests.support.runs import run_benchmark, usage_error_line

WRONG = "Something else entirely, as far as I remember."


def _lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


# -- LongMemEval hypotheses -------------------------------------------------------------------------


def _hypotheses(folder: Path) -> tuple[Path, Path]:
    """Our generated questions, a hypothesis file answering them (two wrongly) and one id the data
    lacks, and evaluate_qa.py's log beside it: its judge took one wrong answer for right, and its
    entry for gen1-5 judged an earlier hypothesis than the file's."""
    data = write_longmemeval(folder / "longmemeval_s.json")
    hypotheses, log = [], []
    for entry in generate_entries(0):
        question_id = entry["question_id"]
        wrong = question_id in ("gen1-1", "gen1-6")
        text = WRONG if wrong else f"It is {entry['answer']}"
        if question_id.endswith("_abs"):
            text = "You never told me about that."
        hypotheses.append({"question_id": question_id, "hypothesis": text})
        logged = text if question_id != "gen1-5" else "About an hour."
        label = not wrong or question_id == "gen1-6"  # their judge accepted gen1-6's wrong answer
        log.append(
            {
                "question_id": question_id,
                "hypothesis": logged,
                "autoeval_label": {"model": "gpt-4o-2024-08-06", "label": label},
            }
        )
    hypotheses.append({"question_id": "gen9-1", "hypothesis": "Halden"})  # not a question of the data
    file = _lines(folder / "hypotheses.jsonl", hypotheses)
    _lines(folder / "hypotheses.jsonl.eval-results-gpt-4o", log)
    return file, data


def test_longmemeval_hypotheses_are_rescored_against_evaluate_qa_logs(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    file, data = _hypotheses(tmp_path)
    run = run_benchmark(pytester, f"--mb-rescore={file}", f"--mb-data=longmemeval={data}")
    run.outcome.stdout.fnmatch_lines([
        "memorybench: * | profile official | *",
        f"memorybench: {file}: 1 of 8 hypotheses name no question of {data} (gen9-1); not scored",
        "*memorybench agreement*",
        "published automatic verdicts vs ours (profile official, judge local)",
        "longmemeval.questions * 6 * 83.3% * 0.667 * 0.833 *",
        "  multi_session * 1 * 0.0% * 0.000 * 1.000 *",
        "all * 6 * 83.3% *",
        "1 disagreement(s)*",
        f"skipped: {file}.eval-results-gpt-4o: 1 verdicts judge another hypothesis than the file's (gen1-5);"
        " left out of the agreement",
        f"skipped: {file}: 1 of 8 hypotheses name no question of {data} (gen9-1); not scored",
    ])  # fmt: skip
    items = {item["test_id"]: item for item in run.results["items"]}
    assert sorted(items) == [f"{e['question_id']}::{c}" for e, c in zip(generate_entries(0), (
        "single_user", "single_assistant", "single_preference", "temporal_reasoning", "knowledge_update",
        "multi_session", "abstention"), strict=True)]  # fmt: skip
    assert "published" not in items["gen1-5::knowledge_update"].get("details", {})  # scored, not compared
    assert items["gen1-6::multi_session"]["details"]["published"]["reasons"] == [
        "evaluate_qa.py (gpt-4o-2024-08-06): correct"
    ]
    assert run.results["run"]["rescore_skipped"][1].endswith("(gen9-1); not scored")


def test_an_evaluate_qa_log_given_itself_is_hypotheses_with_verdicts(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    file, data = _hypotheses(tmp_path)
    log = tmp_path / "hypotheses.jsonl.eval-results-gpt-4o"
    run = run_benchmark(pytester, f"--mb-rescore={log}", f"--mb-data=longmemeval={data}")
    run.outcome.stdout.fnmatch_lines(["all * 7 * 71.4% *"])  # its own gen1-5 hypothesis, judged wrong here


def test_hypotheses_without_a_log_are_scored_with_no_agreement(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    file, data = _hypotheses(tmp_path)
    (tmp_path / "hypotheses.jsonl.eval-results-gpt-4o").unlink()
    run = run_benchmark(pytester, f"--mb-rescore={file}", f"--mb-data=longmemeval={data}")
    assert "published automatic verdicts" not in run.outcome.stdout.str()
    run.outcome.stdout.fnmatch_lines(["*memorybench agreement*", "skipped: *(gen9-1); not scored"])
    assert sum(item["score"] for item in run.results["items"]) == 5  # the two wrong answers refused


def test_hypotheses_need_longmemevals_questions(pytester: pytest.Pytester, tmp_path: Path) -> None:
    file, _ = _hypotheses(tmp_path)
    result = pytester.runpytest("--memorybench", f"--mb-rescore={file}", "-p", "no:cacheprovider")
    assert "name their questions by id only" in usage_error_line(result)
    assert "--mb-data longmemeval=PATH" in usage_error_line(result)


def test_a_malformed_hypothesis_line_is_one_line(pytester: pytest.Pytester, tmp_path: Path) -> None:
    file, data = _hypotheses(tmp_path)
    _lines(
        file, [{"question_id": "gen1-1", "hypothesis": "Halden"}, {"question_id": "gen1-2", "hypothesis": 3}]
    )
    result = pytester.runpytest("--memorybench", f"--mb-rescore={file}", f"--mb-data=longmemeval={data}")
    assert "line 2: expected an object with 'question_id' and a 'hypothesis' string" in usage_error_line(
        result
    )


# -- AMB's outputs ----------------------------------------------------------------------------------


def _amb(dataset: str, split: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    """An EvalSummary as AMB's runner saves it (asdict, plus its averages)."""
    return {
        "dataset": dataset, "split": split, "category": None, "memory_provider": "bm25", "run_name": "bm25",
        "mode": "rag", "oracle": False, "total_queries": len(results),
        "correct": sum(r["correct"] for r in results), "accuracy": 0.0, "ingestion_time_ms": 12.5,
        "ingested_docs": 40, "description": None, "answer_llm": "gemini:gemini-2.5-flash-lite",
        "judge_llm": "gemini-2.5-flash-lite", "results": results, "avg_retrieve_time_ms": 3.0,
        "avg_context_tokens": 120.0,
    }  # fmt: skip


def _query_result(
    query_id: str, query: str, answer: str, gold: str, correct: bool, meta: dict[str, Any]
) -> dict[str, Any]:
    return {
        "query_id": query_id, "query": query, "answer": answer, "reasoning": "", "context": "some memories",
        "context_tokens": 3, "retrieve_time_ms": 2.0, "gold_answers": [gold], "correct": correct,
        "judge_reason": "matches the gold" if correct else "does not match", "meta": meta,
        "raw_response": None, "category_axes": {},
    }  # fmt: skip


def test_amb_locomo_outputs_are_rescored_with_its_category_names(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    raw, _ = generate_sample(0, 1)
    names = {1: "single-hop", 2: "temporal", 3: "multi-hop", 4: "open-domain"}  # AMB's, of LoCoMo's numbers
    results = [
        _query_result(
            f"{raw['sample_id']}_q{index}",
            qa["question"],
            str(qa["answer"]) if index != 8 else WRONG,
            str(qa["answer"]),
            True,
            {"sample_id": raw["sample_id"], "category": names[qa["category"]]},
        )
        for index, qa in enumerate(raw["qa"])
        if qa["category"] in names
    ]  # fmt: skip  (AMB leaves category 5 out; its judge accepted the wrong answer to question 8)
    results.append(_query_result("gen-1_q99", "Who?", "Nobody", "Somebody", False, {"category": "trivia"}))
    folder = tmp_path / "outputs" / "locomo" / "bm25" / "rag"
    folder.mkdir(parents=True)
    path = folder / "locomo10.json.gz"  # as AMB publishes them
    path.write_bytes(gzip.compress(json.dumps(_amb("locomo", "locomo10", results)).encode()))
    run = run_benchmark(pytester, f"--mb-rescore={path}")
    run.outcome.stdout.fnmatch_lines([
        "memorybench: * | profile official | *",
        "*memorybench agreement*",
        "locomo.conversations * 8 * 87.5% *",
        "  multi_hop * 1 * 100.0% *",  # AMB's "single-hop" is LoCoMo's category 1
        "  temporal * 2 * 50.0% * 0.500 * 1.000 *",
        "all * 8 * 87.5% *",
        f"skipped: {path}: 1 of 9 results have no locomo type we know (gen-1_q99); not scored",
    ])  # fmt: skip
    wrong = next(item for item in run.results["items"] if item["test_id"] == "gen-1::temporal[8]")
    assert wrong["details"]["published"]["reasons"] == [
        "AMB's judge (gemini-2.5-flash-lite): correct",
        "matches the gold",
    ]


def test_amb_longmemeval_outputs_need_no_data_file(pytester: pytest.Pytester, tmp_path: Path) -> None:
    results = [
        _query_result(e["question_id"], e["question"], WRONG if e["question_id"] == "gen1-2" else e["answer"],
                      e["answer"], e["question_id"] != "gen1-2", {"question_type": e["question_type"]})
        for e in generate_entries(0) if not e["question_id"].endswith("_abs")
    ]  # fmt: skip
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_amb("longmemeval", "s", results)))
    run = run_benchmark(pytester, f"--mb-rescore={path}")
    run.outcome.stdout.fnmatch_lines(["longmemeval.questions * 6 * 100.0% * 0.833 * 0.833 *"])
    assert {item["nodeid"] for item in run.results["items"]} >= {"longmemeval::gen1-4::temporal_reasoning"}


def test_amb_outputs_of_a_dataset_we_do_not_score_are_one_line(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    path = tmp_path / "32k.json"
    path.write_text(json.dumps(_amb("personamem", "32k", [_query_result("p1", "Q?", "a", "b", True, {})])))
    result = pytester.runpytest("--memorybench", f"--mb-rescore={path}", "-p", "no:cacheprovider")
    assert "AMB's 'personamem' output (1 results) is of no dataset we score" in usage_error_line(result)


# -- memorybench's reports --------------------------------------------------------------------------


def _report(benchmark: str, evaluations: list[dict[str, Any]]) -> dict[str, Any]:
    """A BenchmarkResult as memorybench's saveReport writes it (the parts re-scoring reads, and
    enough of the rest to be its shape)."""
    latency = {"min": 0, "max": 0, "mean": 0, "median": 0, "p95": 0, "p99": 0, "stdDev": 0, "count": 0}
    return {
        "provider": "supermemory", "benchmark": benchmark, "runId": "run-1", "dataSourceRunId": "run-1",
        "judge": "gpt-4o", "answeringModel": "gpt-4o", "timestamp": "2026-01-01T00:00:00.000Z",
        "summary": {"totalQuestions": len(evaluations), "correctCount": 0, "accuracy": 0},
        "latency": {name: latency for name in ("ingest", "search", "answer", "evaluate", "total")},
        "byQuestionType": {}, "evaluations": evaluations,
    }  # fmt: skip


def _evaluation(
    question_id: str, question_type: str, question: str, truth: str, hypothesis: str, score: int
) -> dict[str, Any]:
    return {
        "questionId": question_id, "questionType": question_type, "question": question, "score": score,
        "label": "correct" if score else "incorrect", "explanation": "the judge's reading",
        "hypothesis": hypothesis, "groundTruth": truth, "searchResults": [], "searchDurationMs": 5,
        "answerDurationMs": 9, "totalDurationMs": 14,
    }  # fmt: skip


def test_memorybench_locomo_reports_are_rescored(pytester: pytest.Pytester, tmp_path: Path) -> None:
    raw, _ = generate_sample(0, 1)
    types = {1: "single-hop", 2: "multi-hop", 3: "temporal", 4: "world-knowledge", 5: "adversarial"}
    evaluations = []
    for index, qa in enumerate(raw["qa"]):
        truth = str(qa["answer"]) if qa.get("answer") is not None else "undefined"  # String(undefined)
        hypothesis = "That is not mentioned in our conversations." if qa["category"] == 5 else truth
        evaluations.append(
            _evaluation(
                f"{raw['sample_id']}-q{index}", types[qa["category"]], qa["question"], truth, hypothesis, 1
            )
        )
    run_folder = tmp_path / "data" / "runs" / "run-1"
    run_folder.mkdir(parents=True)
    (run_folder / "report.json").write_text(json.dumps(_report("locomo", evaluations)))
    run = run_benchmark(pytester, f"--mb-rescore={run_folder}")  # the run's folder, or its report.json
    run.outcome.stdout.fnmatch_lines([
        "locomo.conversations * 10 * 100.0% * 1.000 * 1.000 *",
        "  adversarial * 2 * 100.0% *",  # "undefined" gold: category 5 is scored by the abstention
        "  multi_hop * 1 *",
        "  open_domain * 1 *",  # memorybench's "temporal" is LoCoMo's category 3
        "  single_hop * 4 *",
        "  temporal * 2 *",  # and its "multi-hop" category 2
    ])  # fmt: skip


def test_memorybench_reports_of_a_benchmark_we_do_not_score_are_one_line(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    path = tmp_path / "report.json"
    path.write_text(
        json.dumps(_report("convomem", [_evaluation("convomem-user-0", "user_evidence", "Q?", "a", "a", 1)]))
    )
    result = pytester.runpytest("--memorybench", f"--mb-rescore={path}", "-p", "no:cacheprovider")
    assert "memorybench's 'convomem' output (1 evaluations) is of no dataset we score" in usage_error_line(
        result
    )


def test_a_file_of_no_layout_we_read_is_one_line(pytester: pytest.Pytester, tmp_path: Path) -> None:
    path = tmp_path / "scores.json"
    path.write_text(json.dumps({"accuracy": 0.9}))
    result = pytester.runpytest("--memorybench", f"--mb-rescore={path}", "-p", "no:cacheprovider")
    error = usage_error_line(result)
    assert f"--mb-rescore {path}: not a layout it reads; give GoodAI's results" in error
    assert "LongMemEval hypotheses" in error and "report.json" in error
