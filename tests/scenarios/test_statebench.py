"""StateBench: its matching rules (2.x and 1.0.2), one query's verdict, its metrics, its release
JSONL read as its harness reads it (fixtures of our own in that layout), and the calibration of our
generator's timelines: the oracle right everywhere, the null agent right on the refusals alone."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.readers import Malformed
from pytest_memorybench.judges.base import JudgeTask, JudgeVerdict
from pytest_memorybench.scenarios.statebench.data import Phrase, Truth, read_timelines, release_file
from pytest_memorybench.scenarios.statebench.generator import (
    TRACKS,
    timeline_row,
    timeline_rows,
    write_release,
)
from pytest_memorybench.scenarios.statebench.rubric import V1, admissible, contains, decision, only_negated
from pytest_memorybench.scenarios.statebench.scenario import SCENARIO
from pytest_memorybench.scenarios.statebench.summary import summarize
from pytest_memorybench.scenarios.statebench.verdict import judge
from pytest_memorybench.scoring.profiles import OFFICIAL
from tests.support.runs import run_benchmark, usage_error_line

FRIDAY = Truth("Thursday", (Phrase("Thursday"),), (Phrase("Friday"),))


@pytest.mark.parametrize(
    ("reply", "phrase", "modern", "v1"),
    [
        ("There is a nearby office.", "by", False, True),
        ("Costs $1500 in all.", "$150", False, True),
        ("Costs $150 in all.", "$150", True, True),
        ("Please don't renew it.", "do not renew", True, True),
        ("Ship to Seattle.", "portland|seattle", True, True),
        ("Order ORD-4471 shipped.", r"regex:ord-\d{4}", True, True),
    ],
)
def test_phrases_match_on_word_edges_under_2x_and_as_substrings_under_1x(
    reply: str, phrase: str, modern: bool, v1: bool
) -> None:
    assert contains(reply, phrase) is modern
    assert contains(reply, phrase, V1) is v1


def test_a_value_named_only_under_negation_is_no_violation_but_one_plain_mention_is() -> None:
    assert only_negated("The meeting is not Friday; it moved to Thursday.", "Friday")
    assert not only_negated("The meeting is Friday.", "Friday")
    assert not only_negated("Ship to Portland. Also, do not use Portland Air.", "Portland")
    rejected = judge(FRIDAY, "It is not Friday any more; it moved to Thursday.", "supersession")
    assert rejected.negated == ["Friday"] and not rejected.violations and not rejected.resurrected
    assert rejected.decision_correct and rejected.mentioned == ["Thursday"]
    old = judge(FRIDAY, "It is not Friday any more; it moved to Thursday.", "supersession", V1)
    assert old.violations == {"superseded": ["Friday"]} and old.resurrected  # the 1.0.2 defect


def test_a_deleted_value_counts_however_it_is_phrased() -> None:
    card = Truth("no", (), (Phrase("card ending 4471", "restricted", negation_exempt=True),))
    verdict = judge(card, "No, I no longer have the card ending 4471 on file.", "deletion_compliance")
    assert verdict.decision_correct and verdict.violations == {"restricted": ["card ending 4471"]}
    assert not verdict.resurrected  # a leak, not a resurrection: it feeds the leakage rate


def test_ordinary_words_are_skipped_and_left_out_of_the_denominator() -> None:
    assert [admissible(p) for p in ("$", "budget", "HP", "Q1", "$45", "Seattle|by")] == [
        False, False, False, True, True, False,
    ]  # fmt: skip
    truth = Truth("no", (), (Phrase("budget"), Phrase("$50,000")))
    verdict = judge(truth, "No budget was ever agreed.", "hallucination_resistance")
    assert verdict.skipped == ["budget"] and verdict.scored == ["$50,000"] and not verdict.violations


def test_the_decision_is_read_from_signals_on_word_edges() -> None:
    assert decision("Right now, the budget is $150,000 and the vendor is set.", "yes") == "yes"
    assert decision("Right now", "yes", V1) == "no"  # "no" inside "now" under 1.0.2
    assert decision("No, that exceeds the limit.", "no") == "no"
    assert decision("Yes, go ahead, but do not exceed it.", "yes") == "yes"
    assert decision("I don't know.", "no") == "no"  # why an abstaining reply meets a refusal
    assert decision("Ship it to 5 Orchard Close.", "5 Orchard Close") == "5 orchard close"
    assert decision("Use the newest figures.", "see critical state") is None  # left to StateBench's LLM


def test_the_metrics_split_resurrection_from_leakage_and_keep_the_guardrail_apart() -> None:
    def record(track: str, truth: Truth, reply: str) -> dict[str, object]:
        verdict = judge(truth, reply, track)
        return {
            "score": float(verdict.decision_correct),
            "category": track,
            "details": {"scoring": verdict.details()},
        }

    records = [
        record("supersession", FRIDAY, "Friday."),
        record("supersession", FRIDAY, "Thursday."),
        record("deletion_maintain", Truth("yes", (), ()), "I don't know."),
    ]
    assert summarize(records) == {
        "decision accuracy": 0.5,
        "SFRR": 0.5,
        "leakage rate": 0.0,
        "fabrication rate": 0.0,
        "must-mention rate": 0.5,
        "must-not-mention violation rate": 0.5,
        "false supersession rate": 1.0,
    }


def _release(tmp_path: Path) -> Path:
    rows = timeline_rows(0, 1, ("supersession", "repair_propagation"))
    rows[0]["events"].insert(1, {"ts": "2025-11-04T09:01:00", "type": "state_write", "writes": []})
    rows[0]["events"].append({"ts": "2025-11-04T11:00:00", "type": "tool_call"})
    rows[1]["events"][-1]["ground_truth"]["must_not_mention"].append({"phrase": "$1", "kind": "superseded"})
    folder = tmp_path / "data" / "releases" / "v9"
    folder.mkdir(parents=True)
    write_release([*rows, {"id": "broken"}], folder / "dev.jsonl")
    return tmp_path


def test_a_release_is_read_as_its_harness_reads_it_and_nothing_is_dropped_silently(tmp_path: Path) -> None:
    tally = LoadTally()
    timelines = list(read_timelines(_release(tmp_path), "dev", tally))
    assert [t.track for t in timelines] == ["supersession", "repair_propagation"]
    first = timelines[0]
    assert len(first.turns) == 4 and first.queries[0].after == 4  # the state write is no turn
    assert first.queries[0].truth.must_not_mention[0].kind == "superseded"
    lines = tally.report().lines("statebench")
    assert lines[0] == "statebench data: 3 timelines, 2 queries → 0 items"
    assert any("rows that are no timeline" in line for line in lines)
    assert any("events of no known type" in line and "tool_call" not in line for line in lines)


def test_a_folder_needs_exactly_one_file_of_the_split(tmp_path: Path) -> None:
    root = _release(tmp_path)
    assert release_file(root, "dev").name == "dev.jsonl"
    with pytest.raises(Malformed, match="no test.jsonl under"):
        release_file(root, "test")
    (root / "dev.jsonl").write_text("")
    with pytest.raises(Malformed, match="several dev.jsonl"):
        release_file(root, "dev")
    bad = root / "bad.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(Malformed, match="line 1: not JSON"):
        list(read_timelines(bad, "dev", LoadTally()))


def test_published_queries_are_asked_at_their_place_in_the_timeline(tmp_path: Path) -> None:
    row = timeline_row("supersession", 0, 1)
    early = dict(row["events"][-1], prompt="Where do orders go?")
    row["events"].insert(1, early)
    release = write_release([row], tmp_path / "dev.jsonl")
    (context,) = SCENARIO.contexts("statebench", {"data_path": str(release)}, 0)
    assert [probe.params["ask_at"] for probe in context.probes] == [1, 4]
    assert len(list(context.turns())) == 4 and context.report is not None
    (stated,) = SCENARIO.contexts("statebench", {"data_path": str(release), "state": True}, 0)
    first = next(iter(stated.turns()))
    assert first.text.startswith("Current state") and [p.params["ask_at"] for p in stated.probes] == [2, 5]


@pytest.mark.parametrize("profile", ["paper", OFFICIAL])
def test_the_oracle_is_right_everywhere_and_null_only_on_refusals(profile: str) -> None:
    contexts = SCENARIO.contexts("statebench", {"generated": 1}, 0)
    probes = [probe for context in contexts for probe in context.probes]
    assert sorted({probe.category for probe in probes}) == sorted(TRACKS)
    context = ScoringContext(profile=profile)  # type: ignore[arg-type]
    oracle = [asyncio.run(SCENARIO.score(probe, [probe.ideal_answers[0]], context)).value for probe in probes]
    assert oracle == [1.0] * len(probes)
    null = [asyncio.run(SCENARIO.score(probe, ["I don't know."], context)).value for probe in probes]
    refusals = {probe.category for probe in probes if "abstention" in probe.skills}
    assert refusals == {
        "scope_permission", "hallucination_resistance", "authority_hierarchy", "enterprise_privacy",
        "deletion_compliance",
    }  # fmt: skip
    refused = [value for value, probe in zip(null, probes, strict=True) if "abstention" in probe.skills]
    assert refused == [1.0] * 5
    assert sum(null) == 5  # and 0 on the 15 others, each refusal's earlier query among them


def test_the_definitions_survive_json() -> None:
    contexts = SCENARIO.contexts("statebench", {"generated": 1}, 3)
    probe = contexts[0].probes[0]
    assert json.loads(probe.to_json())["expected"]["track"] == "supersession"


class _Judge:
    """A judge that reads the decision and every phrase as given, and counts what it is asked."""

    name = "stub"

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        self.asked.append(task.kind)
        data = {"correct": True} if task.kind == "answer" else {"present": True, "extracted": None}
        return JudgeVerdict(task.kind, data)


def test_with_judge_fallback_the_judge_settles_the_decision_and_paraphrases_never_the_forbidden() -> None:
    (context,) = SCENARIO.contexts("statebench", {"generated": 1}, 0)[:1]
    (probe,) = context.probes
    reply = "Ship it to my new place; not to 221 Harbour Road."
    judge_ = _Judge()
    plain = asyncio.run(SCENARIO.score(probe, [reply], ScoringContext(judge=judge_)))  # type: ignore[arg-type]
    assert plain.value == 0.0 and not judge_.asked and plain.details["judged"] is False
    asked = dataclasses.replace(probe, params={**probe.params, "judge_fallback": True})
    settled = asyncio.run(SCENARIO.score(asked, [reply], ScoringContext(judge=judge_)))  # type: ignore[arg-type]
    assert judge_.asked == ["answer", "sentence"] and settled.value == 1.0
    assert settled.details["must_mention_hits"] == 1 and settled.details["judged"] is True
    assert any("said in other words" in reason for reason in settled.reasons)
    assert settled.details["negated"] == ["221 Harbour Road"]  # judged by the rule alone


@pytest.mark.e2e
def test_whole_runs_on_a_release_in_the_published_layout(pytester: pytest.Pytester, tmp_path: Path) -> None:
    rows = timeline_rows(1, 1)
    rows[0]["events"][-1]["ground_truth"]["must_not_mention"].append("221 Harbour Road")  # a bare string
    release = write_release(rows, tmp_path / "dev.jsonl")
    data = f"--mb-data=statebench={tmp_path}"
    metrics = {}
    for agent in ("oracle", "null", "recall"):
        run = run_benchmark(pytester, "--mb-suite=statebench", f"--agent={agent}", data)
        assert run.outcome.ret in (0, 1) and not [i for i in run.results["items"] if i["error"]]
        scenario = run.results["scenarios"]["statebench.timelines"]
        metrics[agent] = scenario["metrics"]
        assert scenario["n"] == 20  # a query a timeline, and an earlier one on five of them
    assert metrics["oracle"]["decision accuracy"] == 1.0 and metrics["oracle"]["SFRR"] == 0.0
    assert metrics["null"]["decision accuracy"] == round(5 / 19, 4)  # the refusals, guardrail apart
    assert metrics["null"]["false supersession rate"] == 1.0
    assert 0 < metrics["recall"]["must-mention rate"] < 1 and metrics["recall"]["SFRR"] > 0
    missing = pytester.runpytest(
        "--memorybench", "--mb-suite=statebench", "--agent=null", f"{data}/{release.name}x"
    )
    assert "does not exist" in usage_error_line(missing)
    split = pytester.runpytest(
        "--memorybench", "--mb-suite=statebench", "--agent=null", f"--mb-data=statebench={pytester.path}"
    )
    assert "no dev.jsonl under" in usage_error_line(split)
