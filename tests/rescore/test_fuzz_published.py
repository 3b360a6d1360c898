"""Other harnesses' files, fuzzed: whatever a LoCoMo pipeline's eval_results.json, a LongMemEval
hypothesis file or its log, an AMB output (plain or gzipped) or a memorybench report holds, reading
it for `--mb-rescore` (and choosing the run's default profile from it) ends in a value or one line."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_memorybench.rescore.formats import official_by_default, read_published_results
from pytest_memorybench.scenarios.locomo.generator import generate_sample
from pytest_memorybench.scenarios.longmemeval.generator import generate_entries, write_longmemeval
from tests.core.test_fuzz_readers import FUZZ, ends_in_one_line, mutations

pytestmark = pytest.mark.fuzz


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A valid file of each layout, over our generators' questions."""
    root = tmp_path_factory.mktemp("published")
    write_longmemeval(root / "longmemeval_s.json")
    entries = generate_entries(0)
    hypotheses = [{"question_id": e["question_id"], "hypothesis": e["answer"]} for e in entries]
    (root / "hypotheses.jsonl").write_text("".join(json.dumps(h) + "\n" for h in hypotheses))
    log = [{**h, "autoeval_label": {"model": "m", "label": True}} for h in hypotheses]
    (root / "hypotheses.jsonl.eval-results-m").write_text("".join(json.dumps(h) + "\n" for h in log))
    raw, _ = generate_sample(0, 1)
    qa = [q for q in raw["qa"] if q["category"] != 5]
    answers = [
        {"question_id": n, "question": q["question"], "golden_answer": q["answer"], "generated_answer": "x",
         "llm_judgments": {"judgment_1": True}, "category": q["category"]}
        for n, q in enumerate(qa)
    ]  # fmt: skip
    (root / "eval_results.json").write_text(json.dumps({"detailed_results": {"0": answers}}))
    results = [
        {"query_id": e["question_id"], "query": e["question"], "answer": e["answer"],
         "gold_answers": [e["answer"]], "correct": True, "meta": {"question_type": e["question_type"]}}
        for e in entries
    ]  # fmt: skip
    amb = {"dataset": "longmemeval", "split": "s", "judge_llm": "g", "results": results}
    (root / "s.json.gz").write_bytes(gzip.compress(json.dumps(amb).encode()))
    evaluations = [
        {"questionId": f"{raw['sample_id']}-q{n}", "questionType": "temporal", "question": q["question"],
         "groundTruth": str(q.get("answer")), "hypothesis": "x", "score": 1}
        for n, q in enumerate(raw["qa"])
    ]  # fmt: skip
    (root / "report.json").write_text(
        json.dumps({"benchmark": "locomo", "judge": "j", "evaluations": evaluations})
    )
    return root


NAMES = [
    "hypotheses.jsonl",
    "hypotheses.jsonl.eval-results-m",
    "eval_results.json",
    "s.json.gz",
    "report.json",
]


@FUZZ
@given(data=st.data(), name=st.sampled_from(NAMES))
def test_published_answers_of_other_harnesses(
    pristine: Path, tmp_path: Path, data: st.DataObject, name: str
) -> None:
    folder = tmp_path / "published"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(pristine, folder)
    target = folder / name
    original = target.read_bytes()
    unpacked = gzip.decompress(original) if name.endswith(".gz") else original
    mutated = data.draw(mutations(unpacked))
    if name.endswith(".gz") and data.draw(st.booleans()):
        mutated = gzip.compress(mutated)  # else a .gz file that is no gzip at all
    target.write_bytes(mutated)
    given_path = folder / ("hypotheses.jsonl" if name.startswith("hypotheses") else name)
    official_by_default(given_path)  # never raises: reading it for the run says what is wrong
    ends_in_one_line(
        lambda: read_published_results(given_path, {"longmemeval": str(folder / "longmemeval_s.json")})
    )
