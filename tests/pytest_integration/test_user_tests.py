"""What users write themselves: YAML scenarios, memory tests with the conversation fixture, asserts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_memorybench import assert_choice, assert_regex, assert_rouge_l
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.suite import load_suite
from tests.support.llm_server import LLMServer
from tests.support.paths import EXAMPLES
from tests.support.runs import QUIET, Benchmark, results_in, run_benchmark

# Each example, run by the calibration agents: recall and oracle pass every item, null none.
AGENTS = pytest.mark.parametrize(("agent", "passes"), [("recall", True), ("null", False), ("oracle", True)])


def run_example(pytester: pytest.Pytester, example: str, agent: str, *args: str) -> pytest.RunResult:
    """`example` from examples/ copied into a new project and run with `agent`, into folder `run`."""
    shutil.copy(EXAMPLES / example, pytester.path)
    return pytester.runpytest("--memorybench", f"--agent={agent}", "--mb-output=run", *QUIET, *args)


# -- YAML scenarios -----------------------------------------------------------------------------


def test_the_example_suite_defines_its_scenarios_in_yaml() -> None:
    suite = load_suite(str(EXAMPLES / "memory_suite.yaml"))
    definitions = suite.definitions(0)
    assert [d.test_id for d in definitions] == [
        "pet_name[rep1]",
        "pet_name[rep2]",
        "moved_keys[rep1]",
        "moved_keys[rep2]",
    ]
    pet = definitions[0]
    assert [line.text for line in pet.script] == [
        "My dog is called Biscuit.",
        "I also have a cat, and her name is Pepper.",
        "What is my dog called?",
    ]
    assert [line.wait for line in pet.script] == [
        {"percentage_finished": 45.0},
        {"percentage_finished": 60},
        {},
    ]
    assert pet.ideal_answers == ("Biscuit",) and pet.skills == ("recall",)


@AGENTS
def test_the_example_suite_runs(pytester: pytest.Pytester, agent: str, passes: bool) -> None:
    result = run_example(pytester, "memory_suite.yaml", agent, "--mb-suite=memory_suite.yaml")
    result.assert_outcomes(**{"passed" if passes else "failed": 4})
    assert results_in(pytester.path / "run")["run"]["span"] == {"my_memory": "4k"}


BAD_DEFINITIONS = [
    (
        (
            "    define:\n      script: [Hi.]\n      question: Q?\n      expected: x\n      scorer:"
            " contains\n      colour: red\n"
        ),
        10,
        "unknown key 'colour' in 'define'",
    ),
    (
        "    define:\n      script: [Hi.]\n      expected: x\n      scorer: contains\n",
        6,
        "'define' needs 'question'",
    ),
    (
        "    define:\n      script: [Hi.]\n      question: Q?\n      expected: x\n      scorer: fuzzy\n",
        9,
        "'scorer' must name one of contains, exact, regex",
    ),
    (
        "    define:\n      script: [Hi.]\n      question: Q?\n      expected: x\n      scorer: regex\n",
        9,
        "scorer regex needs pattern",
    ),
    (
        (
            "    define:\n      script: [Hi.]\n      question: Q?\n      expected: x\n      scorer: {name:"
            " contains, threshold: 1}\n"
        ),
        9,
        "scorer contains takes no parameter 'threshold'",
    ),
    (
        (
            "    define:\n      script:\n        - say: Hi.\n          wait: {seconds: 5}\n      question:"
            " Q?\n      expected: x\n      scorer: exact\n"
        ),
        7,
        "script line 1: 'wait' takes non-negative tokens, minutes, hours or percentage",
    ),
    (
        (
            "    define:\n      script:\n        - Hi.\n        - Note: this is a mapping\n      question:"
            " Q?\n      expected: x\n      scorer: exact\n"
        ),
        8,
        "script line 2 must be a string or {say: TEXT, wait: {...}} (a line with ': ' in it needs quotes)",
    ),
]


@pytest.mark.parametrize(("define", "line", "problem"), BAD_DEFINITIONS)
def test_yaml_scenario_errors_name_file_line_and_problem(
    tmp_path: Path, define: str, line: int, problem: str
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text("name: mine\nspan: 2k\nscenarios:\n  - scenario: mine.test\n" + define)
    with pytest.raises(UsageError) as failure:
        load_suite(str(path))
    message = str(failure.value)
    assert message.startswith(f"suite file {path} line {line}: scenario mine.test: "), message
    assert problem in message


def test_a_yaml_scenario_cannot_take_a_builtin_name(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: mine\nscenarios:\n  - scenario: ltm.colours\n    define:\n      script: [Hi.]\n"
        "      question: Q?\n      expected: x\n      scorer: exact\n"
    )
    with pytest.raises(UsageError, match="scenario 'ltm.colours' is built in; give yours another name"):
        load_suite(str(path))


# -- memory tests written with the fixture ---------------------------------------------------------


@AGENTS
def test_the_example_memory_tests(pytester: pytest.Pytester, agent: str, passes: bool) -> None:
    result = run_example(pytester, "test_my_agent_memory.py", agent, "test_my_agent_memory.py")
    result.assert_outcomes(**{"passed" if passes else "failed": 2})
    if not passes:
        result.stdout.fnmatch_lines(
            ["E*AssertionError: memory check failed (regex): score 0.00 < 1.00", "E*got:      I don't know."]
        )
    events = [json.loads(line) for line in (pytester.path / "run" / "events.jsonl").read_text().splitlines()]
    groups = {event["group"] for event in events if event.get("kind") == "message"}
    assert groups == {
        "test_my_agent_memory.py::test_remembers_a_name_across_unrelated_conversation",
        "test_my_agent_memory.py::test_picks_the_updated_fact_from_multiple_choices",
    }


def test_the_conversation_fixture_needs_the_flag(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_it(memorybench_conversation):\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*memorybench_agent needs pytest --memorybench --agent=SPEC*"])


# -- asserts ---------------------------------------------------------------------------------------


def test_asserts_pass_quietly_and_return_the_score() -> None:
    assert assert_regex(r"\bBiscuit\b", "It is Biscuit.").value == 1.0
    assert assert_choice("B", "The answer is B.", {"A": "red", "B": "blue"}).value == 1.0
    assert assert_rouge_l("the key is in the lantern", "The key is in the lantern.").value == 1.0


def test_a_failing_assert_says_expected_got_score_and_why() -> None:
    with pytest.raises(AssertionError) as failure:
        assert_choice("B", "I think it is A.", {"A": "red", "B": "blue"})
    lines = str(failure.value).splitlines()
    assert lines[0] == "memory check failed (choice): score 0.00 < 1.00"
    assert lines[1] == "  expected: B) blue"
    assert lines[2] == "  got:      I think it is A."
    assert lines[3].startswith("  reason:   ")


# -- an LLM judge, end to end over the wire ------------------------------------------------------

JUDGED_SUITE = """
name: judged
span: isolated
scenarios:
  - scenario: mine.judged_pet
    define:
      script: [My dog is called Biscuit.]
      question: What is my dog called?
      expected: Biscuit
      scorer: judge
"""


def run_judged(pytester: pytest.Pytester, llm_server: LLMServer) -> Benchmark:
    """The judged suite, the oracle answering, judged by the loopback server's model."""
    pytester.makefile(".yaml", judged=JUDGED_SUITE)
    judge = f"--judge=openai:judge-model@{llm_server.openai_url}"
    return run_benchmark(pytester, "--agent=oracle", "--mb-suite=judged.yaml", judge)


def test_an_llm_judge_scores_and_its_verdicts_are_cached(pytester: pytest.Pytester, llm_server) -> None:
    verdict = json.dumps(
        {"refers": True, "expected_is_number": False, "numbers_match": None, "reason": "names the dog"}
    )
    llm_server.queue(text=verdict, path="/v1/chat/completions")
    run = run_judged(pytester, llm_server)
    run.outcome.assert_outcomes(passed=1)
    first = run.results
    assert first["run"]["judge"].startswith("openai:judge-model@http://127.0.0.1:")
    assert (first["totals"]["judge_calls"], first["totals"]["judge_cache_hits"]) == (1, 0)
    assert set(first["run"]["judge_prompt_hashes"]) == {"reference"}
    sent = llm_server.requests_to("/v1/chat/completions")[0].body
    assert sent["temperature"] == 0 and "Biscuit" in json.dumps(sent["messages"])
    assert "What is my dog called?" in json.dumps(sent["messages"]), "the judge is shown the question"

    run = run_judged(pytester, llm_server)
    run.outcome.assert_outcomes(passed=1)
    second = run.results
    assert (second["totals"]["judge_calls"], second["totals"]["judge_cache_hits"]) == (0, 1)
    assert len(llm_server.requests_to("/v1/chat/completions")) == 1, "the second run asked nobody"


def test_an_unparseable_judge_reply_scores_zero_with_its_reason(
    pytester: pytest.Pytester, llm_server
) -> None:
    llm_server.queue(text="I think the answer is fine!", path="/v1/chat/completions", times=5)
    run = run_judged(pytester, llm_server)
    run.outcome.assert_outcomes(failed=1)
    run.outcome.stdout.fnmatch_lines(["reason:   judge-unparseable*"])
    assert run.results["totals"]["judge_unparseable"] == 1


def test_the_judge_check_reports_agreement_and_exits(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--mb-judge-check")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "judge check of local: 788 labelled cases, 209 wrong answers",
            "overall*788*771*97.8%*209*3*1.4%",
            "agreement 98% with local*",
        ]
    )
    assert "collected" not in result.stdout.str(), "no tests are run"
    gated = pytester.runpytest("--mb-judge-check", "--mb-min-agreement=0.9", "--mb-max-false-accept=0.01")
    assert gated.ret == 1
    gated.stdout.fnmatch_lines(
        [
            "FAILED judge check: equivalence: accepts 1 of 20 wrong answers (5.0%), above"
            " --mb-max-false-accept 1.0%"
        ]
    )


def test_a_judge_that_cannot_be_asked_makes_its_item_an_error_not_a_zero(
    pytester: pytest.Pytester, llm_server
) -> None:
    """The judge's provider fails after every retry: the item has no score, as an ERROR saying so."""
    llm_server.queue(503, headers={"retry-after": "0"}, path="/v1/chat/completions", times=6)
    run = run_judged(pytester, llm_server)
    run.outcome.assert_outcomes(errors=1)
    run.outcome.stdout.fnmatch_lines(
        [
            "judge error: openai:judge-model@*: gave up after 6 attempts: HTTP 503 Service Unavailable*",
            (
                "1 item errored (judge 1): no score, left out of every mean but the strict one;"
                " --mb-resume=* retries them"
            ),
        ]
    )
    [item] = run.results["items"]
    assert (
        item["score"] is None and item["error_kind"] == "judge" and item["error"].startswith("judge error: ")
    )
    assert item["responses"] == ["Biscuit"], "the conversation was had; only its verdict is missing"
