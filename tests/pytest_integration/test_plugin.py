"""The plugin as a user meets it: options, collection, selection, fixtures, reports, exit codes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

# pytester's in-process runs unload modules first imported inside them, and numpy cannot be
# imported twice in one process: load the recall agent (bm25s, numpy) out here, once.
import pytest_memorybench.agents.reference.extractive  # noqa: F401
from tests.support.paths import EXAMPLES
from tests.support.runs import results_in

ISOLATED = ("--memorybench", "--span=isolated", "-p", "no:cacheprovider", "-p", "no:randomly")
# Our warnings would fail the run; pytest-benchmark's "disabled under xdist" (seen when this suite
# itself runs with -n, through the environment) is not ours, nor pytest-asyncio's about an unset
# loop scope (an inner run has no ini file; pytest >= 9.2 applies -W while plugins configure).
WARNINGS_AS_ERRORS = (
    "-W",
    "error",
    "-p",
    "no:benchmark",
    "-o",
    "asyncio_default_fixture_loop_scope=function",
)

USER_TESTS = """
def test_user_passes():
    assert 1 + 1 == 2

def test_user_fails():
    assert 1 + 1 == 3
"""

LAST_STATEMENT_AGENT = """
import pytest

class LastStatement:
    '''Answers every question with the last statement it was told.'''
    def __init__(self):
        self.last = ""
    def reply(self, message):
        if "?" in message.text:
            return self.last
        self.last = message.text
        return "ok"
    def reset(self):
        self.last = ""

@pytest.fixture(scope="session")
def memorybench_agent():
    return LastStatement()
"""


COLOURS_SUITE = """
name: ltm
span: 32k
repetitions: 3
threshold: 1.0
scenarios:
  - scenario: ltm.colours
    params: {colour_changes: 3}
"""


@pytest.fixture(autouse=True)
def colours_only(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the plugin, not the benchmark: a small `ltm` of Colours alone."""
    pytester.makefile(".yaml", colours_only=COLOURS_SUITE)
    monkeypatch.setenv("PYTEST_ADDOPTS", "--mb-suite=colours_only.yaml")


def run_folder(pytester: pytest.Pytester) -> Path:
    """The folder of the latest run in this test's directory."""
    written = (pytester.path / ".memorybench" / "runs").glob("*/results.json")
    return max(written, key=lambda path: path.stat().st_mtime_ns).parent


def results_of(pytester: pytest.Pytester) -> dict:
    return results_in(run_folder(pytester))


def test_without_the_flag_a_normal_run_is_unchanged(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_ADDOPTS")
    pytester.makepyfile(test_user=USER_TESTS)
    plain = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")  # its seed line differs per run
    without_plugin = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:memorybench")
    plain.assert_outcomes(passed=1, failed=1)
    without_plugin.assert_outcomes(passed=1, failed=1)

    def body(result: pytest.RunResult) -> list[str]:
        return [
            line for line in result.outlines if not line.startswith(("plugins:", "=")) and " in " not in line
        ]

    assert body(plain) == body(without_plugin)
    assert "memorybench:" not in plain.stdout.str()
    assert not (pytester.path / ".memorybench").exists()


def test_with_the_flag_and_no_paths_only_the_benchmark_runs(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest(*ISOLATED, "--agent=oracle", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["memorybench: agent oracle | judge local | span ltm=isolated*", "ltm::colours[[]rep1[]] PASSED*"]
    )
    assert "test_user" not in result.stdout.str()


def test_with_paths_only_those_run_unless_a_suite_is_asked_for(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_ADDOPTS")
    pytester.makepyfile(test_user=USER_TESTS)
    pytester.runpytest(*ISOLATED, "--agent=oracle", "test_user.py").assert_outcomes(passed=1, failed=1)
    both = pytester.runpytest(*ISOLATED, "--agent=oracle", "--mb-suite=colours_only.yaml", "test_user.py")
    both.assert_outcomes(passed=4, failed=1)


def test_oracle_passes_every_item_and_results_are_written(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*ISOLATED, "--agent=oracle")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["*= memorybench =*", "ltm*1.000*3/3*", "total*1.000*3/3*", "results: .memorybench/runs/*"]
    )
    results = results_of(pytester)
    assert results["schema"] == "memorybench.results/1"
    assert results["run"]["agent"] == "oracle"
    assert results["run"]["span"] == {"ltm": "isolated"}
    assert results["totals"]["score"] == 3 and results["totals"]["max"] == 3
    colours = dict(results["scenarios"]["ltm.colours"])
    assert colours.pop("stale_facts")["asserted"] == 0, "the oracle asserts no superseded colour"
    assert colours == {
        "mean": 1.0,
        "mean_strict": 1.0,
        "ci95": [1.0, 1.0],
        "n": 3,
        "errors": 0,
    }
    assert [item["nodeid"] for item in results["items"]] == [f"ltm::colours[rep{i}]" for i in (1, 2, 3)]
    first = results["items"][0]
    assert first["passed"] is True and first["score"] == 1.0 and first["threshold"] == 1.0
    assert first["skills"] == ["recall"] and first["span_tokens"] > 0
    assert first["responses"] == first["expected"]
    definitions = sorted(p.name for p in (run_folder(pytester) / "definitions" / "ltm").iterdir())
    assert definitions == ["colours[rep1].json", "colours[rep2].json", "colours[rep3].json"]


def test_null_fails_every_item_with_a_readable_reason(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*ISOLATED, "--agent=null")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "score 0.00 < threshold 1.00",
            "question: What is my favourite colour?",
            "expected: *",
            "got:      I don't know.",
            "reason:   the reply does not mention * (whole-word match, ignoring case), paper profile",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert results_of(pytester)["totals"]["score"] == 0


def test_ids_keyword_and_marker_selection(pytester: pytest.Pytester) -> None:
    collected = pytester.runpytest(*ISOLATED, "--agent=null", "--collect-only", "-q")
    collected.stdout.fnmatch_lines(
        ["ltm::colours[[]rep1[]]", "ltm::colours[[]rep2[]]", "ltm::colours[[]rep3[]]"]
    )

    by_keyword = pytester.runpytest(*ISOLATED, "--agent=oracle", "-k", "rep2")
    by_keyword.assert_outcomes(passed=1, deselected=2)
    assert [item["test_id"] for item in results_of(pytester)["items"]] == ["colours[rep2]"]

    by_marker = pytester.runpytest(
        *ISOLATED, "--agent=oracle", "-m", "recall", "--strict-markers", *WARNINGS_AS_ERRORS
    )
    by_marker.assert_outcomes(passed=3)
    none_selected = pytester.runpytest(*ISOLATED, "--agent=oracle", "-m", "spatial", "--strict-markers")
    none_selected.assert_outcomes(deselected=3)


def test_a_conftest_agent_fixture_wins_over_the_agent_option(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(LAST_STATEMENT_AGENT)
    result = pytester.runpytest(*ISOLATED, "--agent=null")
    result.assert_outcomes(passed=3)
    assert results_of(pytester)["items"][0]["responses"][0].endswith(".")


def test_a_conftest_agent_fixture_needs_no_agent_option(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(LAST_STATEMENT_AGENT)
    pytester.runpytest(*ISOLATED).assert_outcomes(passed=3)


def test_an_agent_error_is_an_error_of_its_item_and_keeps_the_others(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        LAST_STATEMENT_AGENT.replace(
            '        if "?" in message.text:',
            "        if 'Gold' in message.text:\n"
            "            raise RuntimeError('model server is down')\n"
            '        if "?" in message.text:',
        )
    )
    result = pytester.runpytest(*ISOLATED)
    result.assert_outcomes(passed=2, errors=1)  # an ERROR, as a broken fixture is: no memory failure
    result.stdout.fnmatch_lines(
        [
            "*agent fixture:memorybench_agent raised RuntimeError: model server is down*",
            (
                "1 item errored (agent 1): no score, left out of every mean but the strict one;"
                " --mb-resume=* retries them"
            ),
        ]
    )
    assert "Traceback" not in result.stdout.str()
    results = results_of(pytester)
    assert [item["error"] is None for item in results["items"]] == [True, False, True]
    assert [item["score"] for item in results["items"]] == [1.0, None, 1.0]
    assert (
        results["totals"]["mean"] == 1.0
        and results["totals"]["max"] == 2
        and results["totals"]["errors"] == 1
    )


def test_junit_xml_carries_the_scores_without_warnings(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*ISOLATED, "--agent=oracle", "--junitxml=report.xml", *WARNINGS_AS_ERRORS)
    result.assert_outcomes(passed=3)
    case = ET.parse(pytester.path / "report.xml").getroot().find(".//testcase")
    assert case is not None
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties == {
        "score": "1.0",
        "threshold": "1.0",
        "scenario": "ltm.colours",
        "span_tokens": properties["span_tokens"],
        "skills": "recall",
    }
    assert int(properties["span_tokens"]) > 0


def test_threshold_override(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*ISOLATED, "--agent=null", "--mb-threshold=0")
    result.assert_outcomes(passed=3)


@pytest.mark.e2e  # two worker processes; the default run's check of -n is the split conversations' below
def test_xdist_gives_the_same_results(pytester: pytest.Pytester) -> None:
    serial = pytester.runpytest(*ISOLATED, "--agent=oracle", "--mb-output=serial")
    parallel = pytester.runpytest(
        *ISOLATED, "--agent=oracle", "--mb-output=parallel", "-n", "2", "--dist", "loadgroup"
    )
    serial.assert_outcomes(passed=3)
    parallel.assert_outcomes(passed=3)

    def comparable(folder: str) -> list[dict]:
        items = results_in(pytester.path / folder)["items"]
        for item in items:
            item.pop("usage")
            item.pop("answer_seconds", None)
        return items

    assert comparable("parallel") == comparable("serial")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("--span=32x",), "ERROR: --span '32x' is not a memory span*"),
        (("--agent=gemini:pro",), "ERROR: --agent 'gemini:pro': 'gemini' is no model prefix*"),
        (("--agent=no_such_pkg.agents:make",), "ERROR: --agent no_such_pkg.agents:make: cannot import*"),
        (("--agent=openai:gpt-4o-mini",), "ERROR: --agent openai:gpt-4o-mini: OPENAI_API_KEY is not set*"),
        (
            ("--agent=openai:m@http://127.0.0.1:9/v1",),
            "ERROR: --agent openai:m@http://127.0.0.1:9/v1: cannot reach*",
        ),
        ((), "ERROR: --memorybench needs an agent*"),
        (("--mb-suite=missing.yaml",), "ERROR: --mb-suite 'missing.yaml': no such file or built-in suite*"),
        (("--mb-resume=somewhere",), "ERROR: --mb-resume somewhere: not a pytest-memorybench run folder*"),
        (
            ("--mb-baseline=old.json",),
            "ERROR: --mb-baseline old.json: no such file; give the results.json of an earlier run",
        ),
        (("--judge=openai:gpt-4o",), "ERROR: --judge openai:gpt-4o: OPENAI_API_KEY is not set*"),
        (("--judge=gemini:pro",), "ERROR: --judge 'gemini:pro': unknown judge prefix 'gemini'*"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_4(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, arguments: tuple[str, ...], message: str
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    agent = () if any(a.startswith("--agent") for a in arguments) or not arguments else ("--agent=null",)
    result = pytester.runpytest("--memorybench", "--span=isolated", *agent, *arguments)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert len(errors) == 1, result.stderr.str()
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_bad_input_in_a_process_of_its_own_is_one_line_too(pytester: pytest.Pytester) -> None:
    """As a user meets it: a new Python, where whatever its imports print comes first."""
    result = pytester.runpytest_subprocess("--memorybench", "--agent=null", "--span=32x")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert len(errors) == 1, result.stderr.str()
    result.stderr.fnmatch_lines(["ERROR: --span '32x' is not a memory span*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_the_example_agent_runs_from_the_current_directory(pytester: pytest.Pytester) -> None:
    """`pkg.module:factory` imports from where pytest was started, with no conftest.py there."""
    example = EXAMPLES / "custom_agent.py"
    pytester.mkpydir("examples")
    (pytester.path / "examples" / "custom_agent.py").write_text(example.read_text())
    result = pytester.runpytest(*ISOLATED, "--agent=examples.custom_agent:make_agent")
    result.assert_outcomes(passed=3)


FLAKY_RECALL_AGENT = """
import os
import pytest
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent

class FlakyRecall(ExtractiveAgent):
    # The recall baseline, crashing at reply number FAIL_AT when that variable is set.
    replies = 0

    async def reply(self, message):
        FlakyRecall.replies += 1
        if FlakyRecall.replies == int(os.environ.get("FAIL_AT", "0")):
            raise RuntimeError("the agent process died")
        return await super().reply(message)

@pytest.fixture(scope="session")
def memorybench_agent():
    FlakyRecall.replies = 0
    return FlakyRecall()
"""


def comparable_items(folder: Path) -> list[dict]:
    """Items of a results.json without what legitimately differs between runs (time, cost)."""
    items = results_in(folder)["items"]
    for item in items:
        item.pop("usage")
        item.pop("answer_seconds", None)
    return items


def test_interleaved_run_spreads_each_test_over_its_span(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--memorybench", "--agent=oracle", "--span=8k", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["conversation ltm: * tokens, * filler messages (0 observed), 0.* × repetitions × span"]
    )
    results = results_of(pytester)
    for item in results["items"]:
        assert 0.85 * 8000 <= item["span_tokens"] <= 1.15 * 8000, item
        assert item["span_target"] == 8000 and item["span_overrun"] is False and item["conversation"] == "ltm"
    (conversation,) = results["conversations"]
    assert conversation["filler_messages"] > 0 and 0.85 <= conversation["span_ratio"] <= 1.10


def test_isolated_runs_send_no_filler(pytester: pytest.Pytester) -> None:
    pytester.runpytest(*ISOLATED, "--agent=recall").assert_outcomes(passed=3)
    results = results_of(pytester)
    assert [c["filler_messages"] for c in results["conversations"]] == [0, 0, 0]
    assert {c["group"] for c in results["conversations"]} == {f"ltm::colours[rep{i}]" for i in (1, 2, 3)}


def test_saving_mode_sends_filler_through_observe(pytester: pytest.Pytester) -> None:
    pytester.runpytest("--memorybench", "--agent=recall", "--span=4k", "-p", "no:cacheprovider")
    (conversation,) = results_of(pytester)["conversations"]
    assert conversation["filler_messages"] == conversation["saved_filler_messages"] > 0
    assert conversation["overhead_usage"]["calls"] == 1, "only the intro needed a reply"


def test_same_seed_same_definitions_and_schedule(pytester: pytest.Pytester) -> None:
    for folder in ("first", "second"):
        pytester.runpytest(
            "--memorybench", "--agent=recall", "--span=2k", f"--mb-output={folder}", "-p", "no:cacheprovider"
        )

    def schedule(folder: str) -> list[tuple]:
        events = [
            json.loads(line) for line in (pytester.path / folder / "events.jsonl").read_text().splitlines()
        ]
        return [
            (e["kind"], e.get("source"), e.get("test"), e.get("text"), e.get("filler"), e.get("tokens"))
            for e in events
        ]

    for name in ("colours[rep1].json", "colours[rep2].json", "colours[rep3].json"):
        first = (pytester.path / "first" / "definitions" / "ltm" / name).read_bytes()
        assert first == (pytester.path / "second" / "definitions" / "ltm" / name).read_bytes()
    assert schedule("first") == schedule("second")


def test_resuming_an_interrupted_run_gives_the_uninterrupted_results(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest(FLAKY_RECALL_AGENT)
    common = ("--memorybench", "--span=2k", "-p", "no:cacheprovider")
    pytester.runpytest(*common, "--mb-output=whole").assert_outcomes(passed=3)

    monkeypatch.setenv("FAIL_AT", "4")  # the intro, then three lines of the first test
    interrupted = pytester.runpytest(*common, "--mb-output=broken")
    interrupted.assert_outcomes(errors=3)
    interrupted.stdout.fnmatch_lines(["*raised RuntimeError: the agent process died*"])

    monkeypatch.delenv("FAIL_AT")
    resumed = pytester.runpytest(*common, "--mb-resume=broken")
    resumed.assert_outcomes(passed=3)
    resumed.stdout.fnmatch_lines(["memorybench: * (resumed)"])
    assert comparable_items(pytester.path / "broken") == comparable_items(pytester.path / "whole")
    events = [
        json.loads(line) for line in (pytester.path / "broken" / "events.jsonl").read_text().splitlines()
    ]
    # Logged before the crash: the intro and two lines (replied), two filler exchanges (observed).
    assert [e["told"] for e in events if e["kind"] == "resumed"] == [10], "the agent was told all 5 exchanges"


def test_resuming_goes_on_with_the_tests_the_run_selected(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resumed with another selection (here none), the run still continues its own conversation."""
    pytester.makeconftest(FLAKY_RECALL_AGENT)
    common = ("--memorybench", "--span=2k", "-p", "no:cacheprovider")
    pytester.runpytest(*common, "-k", "rep1 or rep3", "--mb-output=whole").assert_outcomes(passed=2)

    monkeypatch.setenv("FAIL_AT", "4")
    pytester.runpytest(*common, "-k", "rep1 or rep3", "--mb-output=broken").assert_outcomes(errors=2)

    monkeypatch.delenv("FAIL_AT")
    resumed = pytester.runpytest(*common, "--mb-resume=broken")
    resumed.assert_outcomes(passed=2, deselected=1)
    assert comparable_items(pytester.path / "broken") == comparable_items(pytester.path / "whole")

    only_one = pytester.runpytest(*common, "-k", "rep3", "--mb-replay=whole", "--mb-output=replayed")
    only_one.assert_outcomes(passed=1, deselected=2)
    assert comparable_items(pytester.path / "replayed") == comparable_items(pytester.path / "whole")[1:]


def test_replaying_a_finished_run_rescores_it_without_the_agent(pytester: pytest.Pytester) -> None:
    pytester.runpytest(
        "--memorybench", "--agent=recall", "--span=2k", "--mb-output=original", "-p", "no:cacheprovider"
    )
    replayed = pytester.runpytest(
        "--memorybench", "--mb-replay=original", "--mb-output=rescored", "-p", "no:cacheprovider"
    )
    replayed.assert_outcomes(passed=3)
    replayed.stdout.fnmatch_lines(["memorybench: agent none (replaying *original)*"])
    assert comparable_items(pytester.path / "rescored") == comparable_items(pytester.path / "original")
    totals = results_in(pytester.path / "rescored")["totals"]
    assert totals["agent_calls"] == 0


def test_a_replay_or_resume_runs_the_suites_and_data_the_run_was_planned_with(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given only the folder, from another directory: its suites and its data files, not the default suite."""
    from pytest_memorybench.scenarios.longmemeval.generator import write_longmemeval

    monkeypatch.delenv("PYTEST_ADDOPTS")
    data = write_longmemeval(pytester.path / "data" / "longmemeval_s.json", numbers=2)
    suite = pytester.path / "mine.yaml"
    suite.write_text("name: mine\nscenarios:\n  - ltm.colours\n")
    common = ("--memorybench", "-p", "no:cacheprovider")
    pytester.runpytest(
        *common,
        "--agent=recall",
        "--mb-suite=longmemeval",
        f"--mb-data=longmemeval={data}",
        f"--mb-suite={suite}",
        "--span=2k",
        "--mb-output=original",
    )
    manifest = json.loads((pytester.path / "original" / "run.json").read_text())
    assert manifest["suites"] == ["longmemeval", str(suite)] and manifest["data"] == {
        "longmemeval": str(data)
    }
    elsewhere = pytester.mkdir("elsewhere")
    monkeypatch.chdir(elsewhere)
    replayed = pytester.runpytest(*common, "--mb-replay=../original", "--mb-output=replayed")
    monkeypatch.chdir(pytester.path)
    replayed.assert_outcomes(passed=5, failed=10)  # 14 LongMemEval questions and mine.yaml's colours
    verdicts = [
        [(i["nodeid"], i["score"], i["reasons"]) for i in comparable_items(folder)]
        for folder in (elsewhere / "replayed", pytester.path / "original")
    ]
    assert verdicts[0] == verdicts[1]

    data.rename(data.with_suffix(".moved"))
    gone = pytester.runpytest(*common, "--mb-resume=original")
    assert gone.ret == pytest.ExitCode.USAGE_ERROR
    gone.stderr.fnmatch_lines(
        [
            f"ERROR: the run in *original read longmemeval from {data}, which is gone; give --mb-data"
            " longmemeval=PATH"
        ]
    )


def test_a_run_folder_from_before_suites_were_recorded_names_them_by_its_spans(tmp_path: Path) -> None:
    from pytest_memorybench.runner.folder import read_manifest

    (tmp_path / "run.json").write_text(
        json.dumps(
            {
                "id": "x",
                "clock_start": "2026-01-01T00:00:00+00:00",
                "spans": {"ltm": "2k", "beam": "isolated"},
            }
        )
    )
    manifest = read_manifest(tmp_path)
    assert manifest.suites == ("ltm", "beam") and manifest.data == {}


def test_a_replay_keeps_the_runs_own_span(pytester: pytest.Pytester) -> None:
    pytester.runpytest(
        "--memorybench", "--agent=oracle", "--span=2k", "--mb-output=original", "-p", "no:cacheprovider"
    )
    result = pytester.runpytest("--memorybench", "--mb-replay=original", "--span=8k")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --span 8k conflicts with the run given to --mb-replay (ltm=2k); drop --span"]
    )


def test_a_replay_can_rescore_under_another_profile(pytester: pytest.Pytester) -> None:
    pytester.runpytest(
        "--memorybench", "--agent=recall", "--span=2k", "--mb-output=original", "-p", "no:cacheprovider"
    )
    pytester.runpytest(
        "--memorybench",
        "--mb-replay=original",
        "--mb-profile=official",
        "--mb-output=official",
        "-p",
        "no:cacheprovider",
    )
    reasons = [item["reasons"][0] for item in comparable_items(pytester.path / "official")]
    assert all(reason.endswith("(substring match, ignoring case), official profile") for reason in reasons)


def test_definitions_of_one_run_replay_at_another_span(pytester: pytest.Pytester) -> None:
    pytester.runpytest(
        "--memorybench",
        "--agent=oracle",
        "--span=2k",
        "--mb-seed=5",
        "--mb-output=small",
        "-p",
        "no:cacheprovider",
    )
    pytester.runpytest(
        "--memorybench",
        "--agent=oracle",
        "--span=4k",
        "--mb-definitions=small",
        "--mb-output=large",
        "-p",
        "no:cacheprovider",
    )
    small, large = comparable_items(pytester.path / "small"), comparable_items(pytester.path / "large")
    assert [i["expected"] for i in small] == [i["expected"] for i in large], (
        "seed 0 would have made other colours"
    )
    assert all(b["span_tokens"] > a["span_tokens"] for a, b in zip(small, large, strict=True))


def test_split_conversations_give_the_same_results_under_xdist(pytester: pytest.Pytester) -> None:
    common = (
        "--memorybench",
        "--agent=recall",
        "--span=2k",
        "--mb-conversations=2",
        "-p",
        "no:cacheprovider",
    )
    pytester.runpytest(*common, "--mb-output=serial").assert_outcomes(passed=3)
    pytester.runpytest(*common, "--mb-output=parallel", "-n", "2").assert_outcomes(passed=3)
    assert comparable_items(pytester.path / "parallel") == comparable_items(pytester.path / "serial")
    conversations = results_in(pytester.path / "parallel")["conversations"]
    assert [c["group"] for c in conversations] == ["ltm-c1", "ltm-c2"]
    drivers = {}  # `-n 2` alone must keep each conversation on one worker (the plugin sets loadgroup)
    for log in (pytester.path / "parallel").glob("events-gw*.jsonl"):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event["kind"] == "conversation_begin":
                drivers.setdefault(event["group"], []).append(log.name)
    assert sorted(drivers) == ["ltm-c1", "ltm-c2"] and all(len(logs) == 1 for logs in drivers.values())
    assert {item["conversation"] for item in comparable_items(pytester.path / "parallel")} == {
        "ltm-c1",
        "ltm-c2",
    }


def test_conversations_are_grouped_from_the_plan_not_from_node_ids(pytester: pytest.Pytester) -> None:
    """pytest >= 9.2 drops xdist's `@group` node id suffix (pytest-xdist #1386): with or without it,
    a benchmark item is scheduled with its conversation, and other tests as xdist would."""
    from pytest_memorybench.runner.xdist_groups import ConversationScheduling

    scheduling = ConversationScheduling(
        pytester.parseconfig("--tx=2*popen"), None, {"ltm::colours[rep1]": "ltm-c1"}
    )
    assert scheduling._split_scope("ltm::colours[rep1]") == "memorybench:ltm-c1"
    assert scheduling._split_scope("ltm::colours[rep1]@ltm-c1") == "memorybench:ltm-c1"
    assert scheduling._split_scope("tests/test_x.py::test_y@mine") == "mine"
    assert scheduling._split_scope("tests/test_x.py::test_y[a@b]") == "tests/test_x.py::test_y[a@b]"
