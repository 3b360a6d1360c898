"""LongMemEval: the per-type judge rules on concrete replies, the question asked on its date, the
suite's calibration on generated questions, the loader's one-line errors."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.results.schema import ResultsRecord
from pytest_memorybench.scenarios.longmemeval.data import entries_from, load_entries, parse_date
from pytest_memorybench.scenarios.longmemeval.generator import generate_entries, write_longmemeval
from pytest_memorybench.scenarios.longmemeval.scenario import SCENARIO
from tests.pytest_integration.test_plugin import FLAKY_RECALL_AGENT, comparable_items
from tests.support.runs import run_benchmark, usage_error_line


def _definitions() -> dict[str, TestDefinition]:
    return {
        context.probes[0].category or "": context.probes[0]
        for context in SCENARIO.contexts("longmemeval", {}, seed=0)
    }


async def _score(definition: TestDefinition, reply: str) -> float:
    score = await SCENARIO.score(definition, [reply], ScoringContext(profile="paper", judge=LocalJudge()))  # type: ignore[arg-type]
    return score.value


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("category", "right", "wrong"),
    [
        ("single_user", "It's a {answer}, the blue gravel bike.", "You didn't say which brand."),
        ("single_assistant", "I suggested {answer} for brunch.", "I recommended a bakery near the station."),
        ("temporal_reasoning", "{off_by_one} days passed between them.", "About two months."),
        (
            "knowledge_update",
            "It used to be longer, but now it takes {answer}.",
            "It takes 55 minutes each way.",
        ),
        ("multi_session", "You have bought {answer} houseplants in all.", "You bought 2 houseplants."),
        (
            "single_preference",
            "Since you cook vegetarian, try a tofu stir-fry in your new cast-iron wok.",
            "How about a roast chicken with potatoes?",
        ),
        ("abstention", "You never mentioned a car, only a new bike.", "Your new car is a Halden."),
    ],
)
async def test_each_question_type_is_judged_by_its_rule(category: str, right: str, wrong: str) -> None:
    definition = _definitions()[category]
    answer = definition.expected["answer"]
    values = {
        "answer": answer,
        "off_by_one": int(answer.split()[0]) + 1 if answer.split()[0].isdigit() else 0,
    }
    assert await _score(definition, wrong.format(**values)) == 0.0
    assert await _score(definition, right.format(**values)) == 1.0


def test_rules_and_dates_follow_the_record() -> None:
    definitions = _definitions()
    assert {category: d.expected["rule"] for category, d in definitions.items()} == {
        "single_user": "contains",
        "single_assistant": "contains",
        "single_preference": "preference",
        "temporal_reasoning": "days",
        "knowledge_update": "update",
        "multi_session": "contains",
        "abstention": "abstention",
    }
    temporal = definitions["temporal_reasoning"]
    [entry] = [e for e in entries_from(generate_entries(0)) if e.question_type == "temporal-reasoning"]
    first, second = (
        session.when for session in entry.sessions() if any(turn.has_answer for turn in session.turns)
    )
    assert temporal.expected["answer"] == f"{(second.date() - first.date()).days} days"
    assert (
        datetime.fromisoformat(temporal.params["asked_at"]) == entry.question_date > entry.sessions()[-1].when
    )


def test_the_question_is_asked_on_its_question_date(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "import pytest\n"
        "from tests_clock import CLOCK\n"
        "@pytest.fixture(scope='session')\n"
        "def memorybench_agent():\n"
        "    return CLOCK\n"
    )
    pytester.makepyfile(
        tests_clock=(
            "import json\nclass Clock:\n    async def reply(self, message):\n        if"
            " message.text.endswith('?'):\n            with open('asked.jsonl', 'a') as f:"
            " f.write(json.dumps([message.text, message.timestamp.isoformat()]) + '\\n')\n        return 'I"
            " do not know.'\nCLOCK = Clock()\n"
        )
    )
    result = pytester.runpytest(
        "--memorybench", "--mb-suite=longmemeval", "-p", "no:cacheprovider", "-k", "temporal"
    )
    assert result.ret == 1
    asked = [json.loads(line) for line in (pytester.path / "asked.jsonl").read_text().splitlines()]
    temporal = _definitions()["temporal_reasoning"]
    assert [(text, stamp) for text, stamp in asked if text == temporal.questions[0]] == [
        (temporal.questions[0], temporal.params["asked_at"])
    ]


def _run(pytester: pytest.Pytester, *args: str) -> ResultsRecord:
    run = run_benchmark(pytester, "--mb-suite=longmemeval", *args)
    assert run.outcome.ret in (0, 1), run.outcome.outlines[-20:]
    return run.results


def test_calibration_on_generated_questions(pytester: pytest.Pytester, tmp_path: Path) -> None:
    data = write_longmemeval(tmp_path / "longmemeval_s.json", numbers=2)
    means = {}
    for agent in ("oracle", "null", "recall"):
        results = _run(pytester, f"--agent={agent}", f"--mb-data=longmemeval={data}")
        means[agent] = results["scenarios"]["longmemeval.questions"]["mean"]
        if agent == "recall":
            assert results["scenarios"]["longmemeval.questions"]["evidence_recall"]["mean"] > 0.5
            metrics = results["scenarios"]["longmemeval.questions"]["metrics"]
            assert 0.5 < metrics["session recall@10"] <= 1.0 and "turn recall@10" in metrics
    assert means["oracle"] == 1.0
    assert means["null"] == pytest.approx(1 / 7)  # it abstains: right on the abstention question only
    assert means["null"] < means["recall"] < means["oracle"]


def test_a_sample_is_stratified_by_question_type(pytester: pytest.Pytester, tmp_path: Path) -> None:
    data = write_longmemeval(tmp_path / "longmemeval_s.json", numbers=4)
    results = _run(pytester, "--agent=oracle", f"--mb-data=longmemeval={data}", "--mb-sample=7")
    categories = [item["category"] for item in results["items"]]
    assert len(categories) == 7 and len(set(categories)) == 7


def test_a_run_cut_by_an_agent_error_resumes_to_the_whole_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The question whose reply failed is asked again on its re-delivered history, and the run ends
    with the whole run's replies and scores."""
    pytester.makeconftest(FLAKY_RECALL_AGENT)
    common = ("--memorybench", "-p", "no:cacheprovider")
    pytester.runpytest(*common, "--mb-suite=longmemeval", "--mb-output=whole")
    monkeypatch.setenv("FAIL_AT", "3")
    pytester.runpytest(*common, "--mb-suite=longmemeval", "--mb-output=broken").assert_outcomes(
        passed=2, failed=4, errors=1
    )
    monkeypatch.delenv("FAIL_AT")
    resumed = pytester.runpytest(*common, "--mb-resume=broken")  # the folder says which suite
    resumed.assert_outcomes(passed=2, failed=5)
    verdicts = [
        [(i["nodeid"], i["score"], i["responses"]) for i in comparable_items(pytester.path / run)]
        for run in ("whole", "broken")
    ]
    assert verdicts[0] == verdicts[1]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda e: e.pop("answer"), "needs an 'answer'"),
        (lambda e: e.update(question_type="chit-chat"), "question_type 'chit-chat' is not one of"),
        (
            lambda e: e.update(haystack_dates=["yesterday"] * len(e["haystack_dates"])),
            "is not like '2023/05/20 (Sat) 02:21'",
        ),
        (lambda e: e["haystack_dates"].pop(), "must be lists of one length"),
    ],
)
def test_malformed_files_are_one_line(pytester: pytest.Pytester, change: Any, message: str) -> None:
    entries = generate_entries(0)
    change(entries[2])
    path = pytester.path / "longmemeval_s.json"
    path.write_text(json.dumps(entries))
    result = pytester.runpytest(
        "--memorybench",
        "--mb-suite=longmemeval",
        "--agent=null",
        f"--mb-data=longmemeval={path}",
        "-p",
        "no:cacheprovider",
    )
    error = usage_error_line(result)
    assert message in error and "question 2" in error


def test_a_file_is_indexed_and_each_history_read_again_when_delivered(tmp_path: Path) -> None:
    """What the loader keeps of a file is its questions' facts; the histories come from the file."""
    path = write_longmemeval(tmp_path / "longmemeval_m.json", numbers=2)
    in_memory = entries_from(json.loads(path.read_text(encoding="utf-8")))
    from_file = load_entries(path)
    assert from_file == in_memory  # every fact, evidence turns included
    assert [entry.sessions() for entry in from_file] == [entry.sessions() for entry in in_memory]
    path.write_text("[]", encoding="utf-8")  # the file is where the histories live
    with pytest.raises(ValueError, match="not valid JSON"):
        from_file[3].sessions()


def test_dates_read_as_published() -> None:
    assert parse_date("2023/05/20 (Sat) 02:21") == datetime(2023, 5, 20, 2, 21)


def test_the_loader_report_counts_the_file_and_the_evidence_labels_recall_cannot_use(tmp_path: Path) -> None:
    entries = generate_entries(0)
    entries[0]["answer_session_ids"].append("nowhere")
    for session in entries[1]["haystack_sessions"]:
        for turn in session:
            turn.pop("has_answer", None)
    path = tmp_path / "longmemeval_s.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    contexts = SCENARIO.contexts("longmemeval", {"data_path": str(path)}, 0)
    sessions = sum(len(entry["haystack_session_ids"]) for entry in entries)
    report = contexts[0].report
    assert report is not None and all(context.report is report for context in contexts)
    assert report.lines("longmemeval") == [
        f"longmemeval data: 7 questions, {sessions} history sessions → 0 items",
        "  longmemeval: answer_session_ids naming no session of the question's history: 1"
        f" ({entries[0]['question_id']}: nowhere)",
        "  longmemeval: questions naming answer sessions but marking no turn has_answer (recall not"
        f" measured): 1 ({entries[1]['question_id']})",
    ]
    assert contexts[1].probes[0].expected["evidence_ids"] == []
