"""MemoryAgentBench: its metrics on concrete replies, the chunking, our generator's conflicts, the
loader on a file of our own in the release's layout, and the suite's calibration and sizes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.readers import reading
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.memoryagentbench.data import load_samples
from pytest_memorybench.scenarios.memoryagentbench.feeding import chunks, sentences
from pytest_memorybench.scenarios.memoryagentbench.generator import Sized, conflict_sample
from pytest_memorybench.scenarios.memoryagentbench.scenario import SCENARIOS
from pytest_memorybench.scenarios.memoryagentbench.scoring import (
    default_metrics,
    first_answer,
    normalize,
    score_label,
    score_recommendations,
    score_text,
    token_f1,
)
from tests.support.runs import QUIET, run_benchmark

COUNT = default_counter().count


# -- its metrics -------------------------------------------------------------------------------------


def test_subem_finds_a_gold_inside_the_reply_after_drqa_normalisation() -> None:
    assert normalize("The  Kestrel-Bay, of course!") == "kestrelbay of course"
    assert score_text("She lives in Kestrel Bay now.", ["Kestrel Bay"], "substring_exact_match").value == 1.0
    assert score_text("She lives in Umbervale.", ["Kestrel Bay"], "substring_exact_match").value == 0.0
    verdict = score_text("Answer: a glassblower\nbecause fact 12 says so", ["glassblower"], "exact_match")
    assert verdict.value == 1.0, "the first answer line, without its article, is the gold exactly"
    assert "f1 1.00" in verdict.reasons[0] and "substring_exact_match 1.00" in verdict.reasons[0]


def test_f1_scores_yes_and_no_only_when_they_match() -> None:
    assert token_f1("yes", "no") == 0.0 and token_f1("no", "no") == 1.0
    assert token_f1("the old clock tower", "clock tower") == pytest.approx(0.8)
    assert default_metrics("Answer: Tobin\nmore", ["Tobin Venn"])["f1"] == pytest.approx(2 / 3)
    assert first_answer("I think.\nAnswer: Tobin Venn\n") == "Tobin Venn"
    assert first_answer("Tobin Venn\nsecond line") == "Tobin Venn"


def test_a_label_is_read_by_the_paper_and_compared_whole_by_the_code() -> None:
    assert score_label("label: 3", ["3"], "paper").value == 1.0
    assert score_label("label: 4", ["3"], "paper").value == 0.0
    official = score_label("label: 3", ["3"], "official")
    assert official.value == 0.0 and "the code's exact match" in official.reasons[0], (
        "the code compares the whole first line, which its own prompt asks to start with 'label:'"
    )
    assert score_label("3", ["3"], "official").value == 1.0


def test_recall_at_5_reads_each_title_as_its_nearest_known_one() -> None:
    entities = {"Harbour_Lights_(1998)": 11, "The Tin Owl": 12, "Salt and Ember": 13, "Quiet Mile": 14}
    reply = "Here you go:\n1. Harbor Lights\n2. Quiet Miles\n3. Something Else\n4. x\n5. y\n6. The Tin Owl"
    score = score_recommendations(reply, ["11", "14", "12"], entities)
    assert score.value == pytest.approx(2 / 3), "the sixth title is past the first five"
    assert "2 of 3 gold movies" in score.reasons[0]


def test_needle_recall_is_the_share_of_needles_named() -> None:
    assert (
        score_text("4077793 and 9545877", ["3554438", "4077793", "9545877", "3258306"], "needle_recall").value
        == 0.5
    )


# -- feeding -----------------------------------------------------------------------------------------


def test_a_serial_number_stays_with_its_fact_and_chunks_keep_their_size() -> None:
    text = "0. Orla Venn lives in Umbervale.\n1. Orla Venn works as a clockmaker. She likes it."
    assert sentences(text) == [
        "0. Orla Venn lives in Umbervale.",
        "1. Orla Venn works as a clockmaker.",
        "She likes it.",
    ]
    sample = conflict_sample(0, 1, Sized(6000, 5, COUNT), multi_hop=False)
    pieces = chunks(sample.context, 512, COUNT)
    # the code sums each sentence's own count, as here: joined, a chunk counts a few percent more
    assert len(pieces) > 5 and all(COUNT(piece) <= 512 * 1.1 for piece in pieces)
    assert " ".join(pieces).split() == sample.context.split(), "nothing lost or reordered"


# -- our generator -----------------------------------------------------------------------------------

_FACT = re.compile(r"^(\d+)\. (.+?) (lives in|works as a|is married to) (.+)\.$")


def _latest(context: str) -> dict[tuple[str, str], str]:
    latest: dict[tuple[str, str], str] = {}
    for line in context.splitlines():
        found = _FACT.match(line)
        assert found is not None, line
        latest[(found[2], found[3])] = found[4]
    return latest


@pytest.mark.parametrize("multi_hop", [False, True])
def test_each_conflict_answer_is_the_newest_fact_and_an_older_one_disagrees(multi_hop: bool) -> None:
    sample = conflict_sample(0, 1, Sized(6000, 10, COUNT), multi_hop)
    latest = _latest(sample.context)
    overridden = 0
    for question in sample.questions:
        person = re.search(r"(?:does|is|married to) ([A-Z][\w-]+ [A-Z][\w-]+)", question.text)
        assert person is not None, question.text
        name = person[1]
        if multi_hop:
            expected = latest[(latest[(name, "is married to")], "lives in")]
        else:
            relation = "lives in" if "town" in question.text else "works as a"
            expected = latest[(name, relation)]
            lines = [line for line in sample.context.splitlines() if f"{name} {relation}" in line]
            overridden += len({line.rsplit(relation, 1)[1] for line in lines}) > 1
        assert question.answers == (expected,)
    assert multi_hop or overridden >= 5, "most answers had an older, different value before"
    assert 5000 <= COUNT(sample.context) <= 7000


# -- the loader --------------------------------------------------------------------------------------


def _rows() -> list[dict[str, Any]]:
    facts = "\n".join(
        f"{n}. Orla Venn lives in {town}." for n, town in enumerate(["Umbervale", "Tarnwick"] * 200)
    )
    labelled = "\n\n".join(f"set an alarm for {n} am\nlabel: 2" for n in range(300))
    story = " ".join(f"Pilar rang the bell {n} times." for n in range(300))
    return [
        {
            "context": facts,
            "questions": ["in which town does Orla Venn live?"],
            "answers": [["Tarnwick"]],
            "metadata": {"source": "factconsolidation_sh_6k", "qa_pair_ids": ["fc-0"]},
        },
        {
            "context": labelled,
            "questions": ["wake me at 5 am", "alarm at noon"],
            "answers": [["2"], ["2"]],
            "metadata": {"source": "icl_alarms_300shot_balance", "demo": None},
        },
        {
            "context": story,
            "questions": ["1. Pilar slept.\n2. Pilar rang the bell 300 times."],
            "answers": [["Pilar rang the bell 300 times."]],
            "metadata": {"source": "eventqa_65536", "previous_events": ["1. Pilar rang the bell 298 times."]},
        },
    ]


def test_the_loader_reads_the_release_layout_as_json_and_json_lines(tmp_path: Path) -> None:
    listed = tmp_path / "split.json"
    listed.write_text(json.dumps(_rows()), encoding="utf-8")
    lines = tmp_path / "split.jsonl"
    lines.write_text("\n".join(json.dumps(row) for row in _rows()), encoding="utf-8")
    for path in (listed, lines):
        samples = load_samples(path)
        assert [s.source for s in samples] == [
            "factconsolidation_sh_6k",
            "icl_alarms_300shot_balance",
            "eventqa_65536",
        ]
        assert [s.competency for s in samples] == [
            "conflict_resolution",
            "test_time_learning",
            "accurate_retrieval",
        ]
        assert samples[0].questions[0].id == "fc-0" and samples[0].questions[0].answers == ("Tarnwick",)
        assert [q.answers for q in samples[1].questions] == [("2",), ("2",)]
        assert samples[2].questions[0].fields["previous_events"] == "1. Pilar rang the bell 298 times."


def test_the_loader_reads_a_parquet_split(tmp_path: Path) -> None:
    parquet = pytest.importorskip("pyarrow.parquet")
    table = pytest.importorskip("pyarrow").Table.from_pylist(_rows())
    parquet.write_table(table, tmp_path / "Conflict_Resolution-00000-of-00001.parquet")
    samples = load_samples(tmp_path)
    assert [len(s.questions) for s in samples] == [1, 2, 1] and samples[0].questions[0].answers == (
        "Tarnwick",
    )


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ([{"sample_id": "conv-26", "conversation": {}}], "without context, questions and answers"),
        ({"questions": []}, "is not a list of rows"),
        (
            [{"context": "x" * 10, "questions": ["q"], "answers": [["a"]], "metadata": {"source": "hotpot"}}],
            "none of",
        ),
    ],
)
def test_a_file_of_another_layout_fails_in_one_line(tmp_path: Path, content: Any, says: str) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(Exception) as raised, reading(f"memoryagentbench data {path}"):
        load_samples(path)
    message = str(raised.value)
    assert says in message and "\n" not in message, message


# -- the suite ---------------------------------------------------------------------------------------


def _means(results: Any) -> dict[str, float]:
    return {name: stats["mean"] for name, stats in results["scenarios"].items()}


def test_the_suite_runs_offline_oracle_one_null_zero_recall_between(pytester: pytest.Pytester) -> None:
    runs = {
        agent: run_benchmark(pytester, f"--agent={agent}", "--mb-suite=memoryagentbench", *QUIET)
        for agent in ("oracle", "null", "recall")
    }
    names = {
        f"memoryagentbench.{c}"
        for c in (
            "accurate_retrieval",
            "test_time_learning",
            "long_range_understanding",
            "conflict_resolution",
        )
    }
    assert set(_means(runs["oracle"].results)) == names
    assert set(_means(runs["oracle"].results).values()) == {1.0}
    assert set(_means(runs["null"].results).values()) == {0.0}
    assert 0.1 < runs["recall"].results["totals"]["mean"] < 0.9
    assert runs["oracle"].results["run"]["span"] == {"memoryagentbench": "6k"}


def test_the_span_sizes_the_generated_contexts(pytester: pytest.Pytester) -> None:
    run = run_benchmark(
        pytester,
        "--agent=oracle",
        "--mb-suite=memoryagentbench",
        "--span=32k",
        "-m",
        "conflict_resolution",
        *QUIET,
    )
    categories = {item["category"] for item in run.results["items"]}
    assert categories == {"factconsolidation_sh_32k", "factconsolidation_mh_32k"}
    tokens = [c["tokens"] for c in run.results["conversations"] if c["tokens"]]
    assert tokens and all(28_000 <= t <= 36_000 for t in tokens), tokens


def test_no_context_asks_the_questions_with_nothing_delivered(pytester: pytest.Pytester) -> None:
    run = run_benchmark(pytester, "--agent=recall", "--mb-suite=memoryagentbench", "--mb-no-context", *QUIET)
    assert run.results["run"]["no_context"] is True
    assert all(c["tokens"] == 0 for c in run.results["conversations"])
    assert run.results["totals"]["mean"] == 0.0, "a memory told nothing recalls nothing"
    run.outcome.stdout.fnmatch_lines(["no context (--mb-no-context): every question was asked with nothing*"])


def test_a_published_split_runs_by_its_sources(pytester: pytest.Pytester) -> None:
    data = pytester.path / "split.json"
    recommendation = {
        "context": "User: I loved Harbour Lights.",
        "questions": ["What should I watch next?", "And after that?"],
        "answers": [["12"], ["7"]],
        "metadata": {"source": "recsys_redial_full"},
    }
    data.write_text(json.dumps([*_rows(), recommendation]), encoding="utf-8")
    run = run_benchmark(
        pytester,
        "--agent=oracle",
        "--mb-suite=memoryagentbench",
        f"--mb-data=memoryagentbench={data}",
        *QUIET,
    )
    run.outcome.stdout.fnmatch_lines(
        [
            "memorybench: memoryagentbench data: 4 rows, 6 questions → 4 items",
            "memorybench:   memoryagentbench: questions skipped: movie recommendation needs the release's"
            " entity2id.json: --mb-data memoryagentbench_entities=PATH: 2 (recsys_redial_full)",
        ]
    )
    assert {item["category"] for item in run.results["items"]} == {
        "factconsolidation_sh_6k",
        "icl_alarms_300shot_balance",
        "eventqa_65536",
    }
    assert run.results["totals"]["mean"] == 1.0 and run.results["totals"]["max"] == 4


@pytest.mark.asyncio
async def test_a_summary_is_judged_by_its_keypoints() -> None:
    (context,) = next(s for s in SCENARIOS if s.part == "long_range_understanding").contexts(
        "memoryagentbench", {}, 0
    )
    definition = context.probes[0]
    keypoints = definition.expected["golds"]
    scenario = next(s for s in SCENARIOS if s.part == "long_range_understanding")
    judged = ScoringContext(profile="paper", judge=LocalJudge())
    half = " ".join(keypoints[: len(keypoints) // 2])
    full = await scenario.score(definition, [" ".join(keypoints)], judged)
    partial = await scenario.score(definition, [half], judged)
    missing = await scenario.score(definition, ["Nothing much happened in it."], judged)
    # the local judge gives half credit to a keypoint that shares the story's words (its hero, a
    # place), so half the keypoints score above a half; an LLM judge reads which events they are
    assert full.value == 1.0 and partial.value < 0.9 and missing.value == 0.0
