"""Re-scoring GoodAI's stored results: `pytest --memorybench --mb-rescore PATH`.

The always-run tests use a GoodAI-layout folder written from our own generators
(`tests/support/goodai.py`); the parity tests read GoodAI's published Benchmark 3 results from
../shared/reference and skip without them.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.reports.agreement import agreement_lines, disagreements
from pytest_memorybench.rescore.goodai import read_published, suite_name
from pytest_memorybench.rescore.goodai_results import parse_log, read_result
from pytest_memorybench.rescore.published import rescore
from tests.support.goodai import write_goodai_run, write_spy_meeting_run
from tests.support.paths import REFERENCE
from tests.support.runs import results_in

DEV = REFERENCE / "goodai-ltm-dev/data/tests"
needs_dev = pytest.mark.skipif(
    not (DEV / "Benchmark 3 - 1k").is_dir(), reason="../shared/reference is not available"
)
RUN = ("--memorybench", "-p", "no:cacheprovider", "-p", "no:randomly")


# -- reading ----------------------------------------------------------------------------------------


def test_a_benchmark_folder_pairs_each_result_with_its_definition(tmp_path: Path) -> None:
    published = read_published(write_goodai_run(tmp_path / "bench", agents=("Agent A - m - 1000", "Agent B")))
    assert [suite.name for suite in published.suites] == ["Agent-A-m-1000", "Agent-B"]
    assert sorted(published.results) == sorted(
        f"{agent}::{test}"
        for agent in ("Agent-A-m-1000", "Agent-B")
        for test in ("colours[rep1]", "colours[rep2]", "prospective_memory[rep1]")
    )
    problems = "\n".join(published.problems)
    assert problems.count("no scenario reads the GoodAI dataset 'Mystery Game'") == 2
    assert problems.count("no definition Colours/7.def.json beside the results") == 2
    assert problems.count("8_0.json: not valid JSON") == 2
    assert len(published.problems) == 6  # one line each, and everything else is scored


def test_one_agents_folder_is_the_suite_goodai_with_the_ids_of_a_definitions_run(tmp_path: Path) -> None:
    folder = write_goodai_run(tmp_path / "bench") / "results" / "Agent A - m - 1000"
    published = read_published(folder)
    assert [suite.name for suite in published.suites] == ["goodai"]
    assert sorted(published.results) == [
        "goodai::colours[rep1]",
        "goodai::colours[rep2]",
        "goodai::prospective_memory[rep1]",
    ]


@pytest.mark.parametrize("where", ["nowhere", "bench/definitions"])
def test_a_folder_that_is_not_a_goodai_run_is_one_usage_error(tmp_path: Path, where: str) -> None:
    write_goodai_run(tmp_path / "bench")
    with pytest.raises(
        UsageError, match=r"^--mb-rescore .*: not a GoodAI results folder; give data/tests/<benchmark>"
    ):
        read_published(tmp_path / where)


def test_suite_names_keep_only_node_id_friendly_characters() -> None:
    assert suite_name("LLMChatSession - gpt-4o - 128000") == "LLMChatSession-gpt-4o-128000"
    assert (
        suite_name("LTMAgentWrapper - claude-3-opus - 16384 - QG_JSON_USER_INFO")
        == "LTMAgentWrapper-claude-3-opus-16384-QG_JSON_USER_INFO"
    )


def test_a_hand_corrected_result_is_compared_by_its_automatic_verdict(tmp_path: Path) -> None:
    path = tmp_path / "0_0.json"
    path.write_text(
        json.dumps(
            {
                "actual_responses": ["x"],
                "expected_responses": ["y"],
                "score": 3,
                "max_score": 5,
                "auto_score": 1,
                "auto reasoning": ["the scorer said no"],
                "reasoning": ["a human said yes"],
            }
        )
    )
    stored = read_result(path, "agent", "Colours")
    assert (stored.score, stored.human_score, stored.reasons) == (0.2, 0.6, ("the scorer said no",))


def test_log_lines_keep_speaker_time_and_multi_line_text() -> None:
    lines = parse_log(
        ["Test (2024-05-22 12:15:56.1): Waiter: hello\n\nmenu", "Agent (t): fine", "SYSTEM (t): Test BEGINS"]
    )
    assert [(line.speaker, line.text) for line in lines] == [
        ("Test", "Waiter: hello\n\nmenu"),
        ("Agent", "fine"),
        ("SYSTEM", "Test BEGINS"),
    ]


def test_prospective_memory_is_scored_from_every_reply_in_the_log(tmp_path: Path) -> None:
    published = read_published(write_goodai_run(tmp_path / "bench") / "results" / "Agent A - m - 1000")
    key = "goodai::prospective_memory[rep1]"
    definition = next(d for suite in published.suites for d in suite.loaded if f"goodai::{d.test_id}" == key)
    score = asyncio.run(rescore(definition, published.results[key], ScoringContext("official", LocalJudge())))
    assert score.value == 1.0, score.reasons  # the quote came in the 3rd reply, which answered another test


@pytest.mark.parametrize("with_evidence", [True, False])
def test_verdicts_quoting_the_later_definitions_are_rescored_against_them(
    tmp_path: Path, with_evidence: bool
) -> None:
    run = read_published(write_spy_meeting_run(tmp_path / "bench", with_evidence=with_evidence))
    key = "goodai::spy_meeting[rep1]"
    definition = next(d for suite in run.suites for d in suite.loaded if f"goodai::{d.test_id}" == key)
    score = asyncio.run(rescore(definition, run.results[key], ScoringContext("official", LocalJudge())))
    # The folder's other verdict quotes a list only the definitions have: its verdicts come from them.
    assert score.value == (1.0 if with_evidence else 0.0), score.reasons


def _rescored(nodeid: str, ours: float, automatic: float, human: float | None = None) -> dict[str, object]:
    published: dict[str, object] = {"score": automatic, "reasons": ["the judge"], "file": f"{nodeid}.json"}
    if human is not None:
        published["human_score"] = human
    return {
        "nodeid": nodeid,
        "scenario": "ltm.restaurant",
        "score": ours,
        "details": {"published": published},
    }


def test_disagreements_the_reviewers_corrected_are_counted_and_shown() -> None:
    items = [
        _rescored("a::restaurant[rep1]", 0.6, 0.4, human=1.0),  # nearer the correction
        _rescored("a::restaurant[rep2]", 1.0, 0.2, human=1.0),  # equal to it
        _rescored("a::restaurant[rep3]", 0.0, 0.8, human=1.0),  # farther
        _rescored("a::restaurant[rep4]", 0.4, 1.0),  # no correction
        _rescored("a::restaurant[rep5]", 0.4, 0.4, human=1.0),  # an agreement, whatever the reviewers said
    ]
    results = {"run": {"profile": "official", "judge": "local"}, "items": items}
    assert agreement_lines(results)[-2:] == [
        "4 disagreement(s): each with both sides' reasons in report.html (section Agreement)",
        (
            "3 of them are verdicts GoodAI's reviewers corrected by hand: ours is nearer their correction in"
            " 2 (equal to it in 1)"
        ),
    ]
    assert [case["reviewed"] for case in disagreements(items)] == [1.0, 1.0, 1.0, None]


# -- the command ------------------------------------------------------------------------------------


def test_rescore_prints_agreement_and_writes_a_normal_run_folder(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    bench = write_goodai_run(tmp_path / "bench")
    result = pytester.runpytest(*RUN, f"--mb-rescore={bench}/results/Agent A - m - 1000", "--mb-output=out")
    result.assert_outcomes(passed=2, failed=1)  # Colours 2 is wrong whatever the stored verdict says
    result.stdout.fnmatch_lines(
        [
            "memorybench: agent none (re-scoring the published results in *Agent A - m - 1000)*",
            "*= memorybench agreement =*",
            "published automatic verdicts vs ours (profile paper, judge local)",
            "scenario*results*agree*ours*published*diff",
            "colours*2*50.0%*0.500*1.000*-0.500",
            "prospective_memory*1*100.0%*1.000*1.000*+0.000",
            "all*3*66.7%*0.667*1.000*-0.333",
            "1 disagreement(s): each with both sides' reasons in report.html (section Agreement)",
            (
                "skipped: *Mystery Game: no scenario reads the GoodAI dataset 'Mystery Game'; its results are"
                " skipped"
            ),
        ]
    )
    results = results_in(pytester.path / "out")
    assert (
        results["run"]["rescored_from"].endswith("Agent A - m - 1000")
        and len(results["run"]["rescore_skipped"]) == 3
    )
    wrong = next(item for item in results["items"] if item["nodeid"] == "goodai::colours[rep2]")
    assert wrong["details"]["published"] == {
        "score": 1.0,
        "reasons": ["lenient"],
        "file": wrong["details"]["published"]["file"],
    }
    assert wrong["responses"] == ["I like grey."]
    report = (pytester.path / "out" / "report.html").read_text()
    assert (
        "Agreement with the published verdicts" in report and "lenient" in report and "I like grey." in report
    )


def test_the_rescored_run_is_a_baseline_for_a_run_on_the_same_definitions(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    bench = write_goodai_run(tmp_path / "bench")
    pytester.runpytest(*RUN, f"--mb-rescore={bench}/results/Agent A - m - 1000", "--mb-output=published")
    gated = pytester.runpytest(
        *RUN,
        "--agent=oracle",
        "--span=isolated",
        f"--mb-suite=goodai-definitions={bench}/definitions",
        "--mb-baseline=published/results.json",
        "--mb-max-drop=0",
    )
    gated.stdout.fnmatch_lines(
        ["*= memorybench gate =*", "  ltm.colours*0.500*1.000*+0.500*ok", "gate passed*"]
    )
    assert gated.ret == 0


def test_a_missing_rescore_folder_is_one_line(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*RUN, "--mb-rescore=no/such/folder")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: --mb-rescore no/such/folder: no such file or folder"])


# -- parity with the published Benchmark 3 verdicts ------------------------------------------------------


def published(
    benchmark: str, agent: str, dataset: str, example: str, profile: str = "official"
) -> tuple[float, float]:
    """(our score, the stored automatic verdict) for one published result, with the local judge."""
    folder = DEV / benchmark / "results" / agent
    run = read_published(folder)
    key = next(
        key
        for key, stored in run.results.items()
        if stored.dataset == dataset and stored.example_id == example
    )
    definition = next(d for suite in run.suites for d in suite.loaded if f"{suite.name}::{d.test_id}" == key)
    score = asyncio.run(rescore(definition, run.results[key], ScoringContext(profile, LocalJudge())))
    return score.value, run.results[key].score


# Each case used to disagree with its stored verdict; the comment says what changed.
@needs_dev
@pytest.mark.parametrize(
    ("bench", "agent", "dataset", "example"),
    [
        # Restaurant: GoodAI's own menu and waiter lines; "Diet Coke" is the soft drinks item,
        # "the Chicken Parmesan" its dish by the head of its name, the tail of a name is no order.
        ("Benchmark 3 - 32k (isolated)", "LLMChatSession - gpt-4o - 128000", "Restaurant", "0"),
        ("Benchmark 3 - 1k", "LLMChatSession - gpt-4-turbo-2024-04-09 - 128000", "Restaurant", "1"),
        (
            "Benchmark 3 - 1k",
            "LLMChatSession - together_ai-meta-llama-Llama-3-70b-chat-hf - 8000",
            "Restaurant",
            "0",
        ),
        ("Benchmark 3 - 1k", "LTMAgentWrapper - gpt-4-turbo - 16384 - QG_JSON_USER_INFO", "Restaurant", "0"),
        (
            "Benchmark 3 - 32k (isolated)",
            "LLMChatSession - gpt-3.5-turbo - 16384",
            "Restaurant",
            "1",
        ),  # a Cabernet
        # Locations Directions: "Statue of the Founder", a summary after the route, "north of the Park".
        (
            "Benchmark 3 - 1k",
            "LTMAgentWrapper - claude-3-opus - 200000 - QG_JSON_USER_INFO",
            "Locations Directions",
            "0",
        ),
        (
            "Benchmark 3 - 32k (isolated)",
            "LLMChatSession - claude-3-opus - 200000",
            "Locations Directions",
            "1",
        ),
        (
            "Benchmark 3 - 32k (isolated)",
            "LTMAgentWrapper - gpt-4-turbo - 128000 - QG_JSON_USER_INFO",
            "Locations Directions",
            "1",
        ),
        ("Benchmark 3 - 32k (isolated)", "LLMChatSession - gpt-4o - 128000", "Locations Directions", "1"),
        # Jokes: a list of every joke told names none.
        (
            "Benchmark 3 - 32k (isolated)",
            "LLMChatSession - together_ai-meta-llama-Llama-3-70b-chat-hf - 8000",
            "Jokes",
            "1",
        ),
        # Spy Meeting: "lock-picking" decodes "pick"; a later version of a clue's list is no confusion.
        (
            "Benchmark 3 - 1k",
            "LTMAgentWrapper - claude-3-opus - 200000 - QG_JSON_USER_INFO",
            "Spy Meeting",
            "1",
        ),
        (
            "Benchmark 3 - 1k",
            "LLMChatSession - together_ai-meta-llama-Llama-3-70b-chat-hf - 8000",
            "Spy Meeting",
            "1",
        ),
        # Trigger Response: the stored fallback verdicts, reproduced by the local judge.
        ("Benchmark 3 - 1k", "LLMChatSession - gpt-4o - 128000", "Trigger Response", "0"),
    ],
)
def test_published_verdicts_that_used_to_disagree(bench: str, agent: str, dataset: str, example: str) -> None:
    ours, stored = published(bench, agent, dataset, example)
    assert ours == pytest.approx(stored)


@needs_dev
@pytest.mark.parametrize("bench", ["Benchmark 3 - 1k", "Benchmark 3 - 32k (isolated)"])
def test_agreement_per_scenario_on_the_published_benchmark_3(bench: str) -> None:
    """The figures of the README, per scenario (exact agreement, |mean ours - mean published|)."""
    run = read_published(DEV / bench)
    context = ScoringContext("official", LocalJudge())
    by_dataset: dict[str, list[tuple[float, float]]] = {}
    for suite in run.suites:
        for definition in suite.loaded:
            stored = run.results[f"{suite.name}::{definition.test_id}"]
            score = asyncio.run(rescore(definition, stored, context))
            by_dataset.setdefault(stored.dataset, []).append((score.value, stored.score))
    floors = {
        "Restaurant": 0.79,
        "Spy Meeting": 0.76,
        "Jokes": 0.94,
    }  # the 32k isolated verdicts mix versions (README)
    for dataset, pairs in by_dataset.items():
        share = sum(abs(ours - theirs) < 1e-6 for ours, theirs in pairs) / len(pairs)
        difference = abs(sum(o for o, _ in pairs) - sum(t for _, t in pairs)) / len(pairs)
        assert share >= floors.get(dataset, 0.97), (dataset, share)
        assert difference <= 0.03, (dataset, difference)


# Deterministic in Benchmarks 1 and 2 (the others were scored by a GPT-4 checklist, reported only).
OLDER_DETERMINISTIC = {
    "Benchmark 1 - 1k Filler": {"Colours", "Jokes", "NameList", "Prospective Memory", "Shopping"},
    "Benchmark 2 - 1k Filler": {"Colours", "Jokes", "NameList", "Prospective Memory", "Shopping", "SallyAnne",
                                "Locations Directions", "ChapterBreak"},
}  # fmt: skip


@needs_dev
@pytest.mark.parametrize("bench", sorted(OLDER_DETERMINISTIC))
def test_agreement_on_the_published_benchmarks_1_and_2(bench: str) -> None:
    """Each benchmark's own rules (official profile): every deterministic verdict reproduced."""
    run = read_published(DEV / bench)
    context = ScoringContext("official", LocalJudge())
    agree: dict[str, list[bool]] = {}
    for suite in run.suites:
        for definition in suite.loaded:
            stored = run.results[f"{suite.name}::{definition.test_id}"]
            if stored.dataset in OLDER_DETERMINISTIC[bench]:
                score = asyncio.run(rescore(definition, stored, context))
                agree.setdefault(stored.dataset, []).append(abs(score.value - stored.score) < 1e-6)
    assert set(agree) == OLDER_DETERMINISTIC[bench]
    for dataset, verdicts in agree.items():
        assert sum(verdicts) / len(verdicts) >= 0.975, (dataset, verdicts.count(False))
