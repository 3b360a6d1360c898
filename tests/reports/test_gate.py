"""The regression gate: a baseline comparison and a minimum total that decide the exit code."""

from __future__ import annotations

import json
from fnmatch import fnmatch
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.reports.gate import evaluate, gate_lines
from pytest_memorybench.results.file import Baseline
from pytest_memorybench.runner.settings import GateSettings
from tests.pytest_integration.test_plugin import LAST_STATEMENT_AGENT, colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.support.runs import SERIAL_AND_XDIST, results_in

ISOLATED = ("--memorybench", "--span=isolated", "-p", "no:cacheprovider")

# The last-statement agent, right in its first conversation only: with --span=isolated, rep1
# passes and rep2, rep3 fail, so Colours scores [1, 0, 0], mean 0.333, with a 95 % interval [0, 1].
FIRST_CONVERSATION_ONLY = LAST_STATEMENT_AGENT.replace(
    '    def reset(self):\n        self.last = ""',
    '    def reset(self):\n        self.last = ""\n        self.conversations = getattr(self,'
    ' "conversations", 0) + 1',
).replace(
    "            return self.last\n",
    '            return self.last if self.conversations == 1 else "I don\'t know."\n',
)


def baseline_file(path: Path, mean: float, **run: object) -> Path:
    """A results.json as an earlier run would have left it, with every mean at `mean`."""
    path.write_text(
        json.dumps(
            {
                "schema": "memorybench.results/1",
                "run": {
                    "id": "earlier",
                    "agent": "oracle",
                    "span": {"ltm": "isolated"},
                    "profile": "paper",
                    **run,
                },
                "totals": {"score": 3 * mean, "max": 3, "mean": mean},
                "suites": {"ltm": {"mean": mean, "ci95": None, "n": 3}},
                "scenarios": {"ltm.colours": {"mean": mean, "ci95": None, "n": 3}},
                "items": [],
            }
        )
    )
    return path


@SERIAL_AND_XDIST
def test_a_drop_outside_the_interval_fails_the_session_although_every_item_passed(
    pytester: pytest.Pytester, parallel: tuple[str, ...]
) -> None:
    pytester.runpytest(*ISOLATED, "--agent=oracle", "--mb-output=base").assert_outcomes(passed=3)
    result = pytester.runpytest(
        *ISOLATED,
        "--agent=null",
        "--mb-threshold=0",
        "--mb-baseline=base/results.json",
        "--mb-max-drop=0.1",
        "--mb-output=now",
        *parallel,
    )
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*= memorybench gate =*",
            "baseline: *base/results.json (run *, agent oracle)",
            "note: the baseline ran with agent oracle, this run with null",
            "*baseline*now*change*95% CI now*verdict",
            "total                      1.000  0.000  -1.000  [[]0.00, 0.00[]]  FAIL, outside CI",
            "ltm                        1.000  0.000  -1.000  [[]0.00, 0.00[]]  FAIL, outside CI",
            "  colours                  1.000  0.000  -1.000  [[]0.00, 0.00[]]  drop, outside CI",
            (
                "gate FAILED: total fell 1.000 (from 1.000 to 0.000), more than the 0.100 allowed; outside"
                " 95% CI"
            ),
            "gate FAILED: suite ltm fell 1.000*",
        ]
    )
    gate = results_in(pytester.path / "now")["gate"]
    assert gate["passed"] is False and len(gate["failures"]) == 2
    assert [row["verdict"] for row in gate["rows"]] == [
        "FAIL, outside CI",
        "FAIL, outside CI",
        "drop, outside CI",
    ]


def test_the_same_scores_pass_the_gate(pytester: pytest.Pytester) -> None:
    pytester.runpytest(*ISOLATED, "--agent=oracle", "--mb-output=base").assert_outcomes(passed=3)
    result = pytester.runpytest(
        *ISOLATED, "--agent=oracle", "--mb-baseline=base/results.json", "--mb-max-drop=0"
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "total                      1.000  1.000  +0.000  [[]1.00, 1.00[]]  ok",
            "gate passed: no drop beyond 0.000",
        ]
    )


def test_a_drop_inside_the_interval_is_told_apart(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(FIRST_CONVERSATION_ONLY)
    baseline = baseline_file(pytester.path / "base.json", 0.5)

    strict = pytester.runpytest(*ISOLATED, f"--mb-baseline={baseline}", "--mb-max-drop=0.1")
    strict.assert_outcomes(passed=1, failed=2)
    strict.stdout.fnmatch_lines(
        [
            "total                      0.500  0.333  -0.167  [[]0.00, 1.00[]]  FAIL, inside CI",
            "gate FAILED: total fell 0.167 (from 0.500 to 0.333), more than the 0.100 allowed; inside 95% CI",
        ]
    )

    lenient = pytester.runpytest(*ISOLATED, f"--mb-baseline={baseline}", "--mb-max-drop=0.2")
    lenient.stdout.fnmatch_lines(
        [
            "total                      0.500  0.333  -0.167  [[]0.00, 1.00[]]  drop, inside CI",
            "gate passed: no drop beyond 0.200",
        ]
    )
    assert lenient.ret == pytest.ExitCode.TESTS_FAILED, "items failed: the gate passing does not hide them"


def test_scenarios_are_gated_only_when_asked(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(FIRST_CONVERSATION_ONLY)
    baseline = baseline_file(pytester.path / "base.json", 0.5)
    result = pytester.runpytest(
        *ISOLATED,
        "--mb-threshold=0",
        f"--mb-baseline={baseline}",
        "--mb-max-drop=0.2",
        "--mb-max-scenario-drop=0.1",
    )
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["  colours*FAIL, inside CI", "gate FAILED: scenario colours fell 0.167*"])


def test_min_score_fails_a_low_total(pytester: pytest.Pytester) -> None:
    low = pytester.runpytest(*ISOLATED, "--agent=null", "--mb-threshold=0", "--mb-min-score=0.5")
    low.assert_outcomes(passed=3)
    assert low.ret == pytest.ExitCode.TESTS_FAILED
    low.stdout.fnmatch_lines(
        ["*= memorybench gate =*", "gate FAILED: total mean 0.000 is below --mb-min-score 0.500"]
    )

    high = pytester.runpytest(*ISOLATED, "--agent=oracle", "--mb-min-score=0.5")
    assert high.ret == pytest.ExitCode.OK
    high.stdout.fnmatch_lines(["gate passed: total above the minimum"])


def test_a_gate_with_nothing_measured_fails(pytester: pytest.Pytester) -> None:
    """ChapterBreak without its data is skipped: a gate must not pass a run that measured nothing."""
    result = pytester.runpytest(
        *ISOLATED, "--agent=oracle", "--mb-suite=ltm", "-k", "chapterbreak", "--mb-min-score=0.5"
    )
    result.assert_outcomes(skipped=3, deselected=30)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["gate FAILED: none of the 3 benchmark items produced a score; nothing to gate on"]
    )


@SERIAL_AND_XDIST
def test_under_mb_exit_gate_the_gate_alone_decides_the_exit(
    pytester: pytest.Pytester, parallel: tuple[str, ...]
) -> None:
    """Items fail every run (all but the first conversation of each process): exit 0 while the
    mean holds, 1 when it falls; the items fail in the terminal and JUnit all the same."""
    pytester.makeconftest(FIRST_CONVERSATION_ONLY)
    holds = baseline_file(pytester.path / "holds.json", 0.3)
    falls = baseline_file(pytester.path / "falls.json", 0.9)
    gate = ("--mb-exit=gate", "--mb-max-drop=0.1", *parallel)

    passed = pytester.runpytest(*ISOLATED, *gate, f"--mb-baseline={holds}", "--junitxml=junit.xml")
    failed = passed.parseoutcomes()["failed"]
    assert failed and passed.ret == pytest.ExitCode.OK
    passed.stdout.fnmatch_lines(
        [
            "gate passed: no drop beyond 0.100",
            "exit 0 (--mb-exit gate: the gate passed); * below * threshold*: failures in the reports, not of"
            " the build",
        ]
    )
    assert (pytester.path / "junit.xml").read_text().count("<failure ") == failed

    regressed = pytester.runpytest(*ISOLATED, *gate, f"--mb-baseline={falls}")
    assert regressed.parseoutcomes()["failed"] and regressed.ret == pytest.ExitCode.TESTS_FAILED
    regressed.stdout.fnmatch_lines(["gate FAILED: total fell * (from 0.900 to *)*"])
    assert "exit 0" not in regressed.stdout.str()

    pytester.makepyfile(test_mine="def test_of_my_own():\n    assert False\n")
    mine = pytester.runpytest(*ISOLATED, *gate, f"--mb-baseline={holds}", "test_mine.py")
    assert mine.parseoutcomes()["failed"] == failed + 1
    assert mine.ret == pytest.ExitCode.TESTS_FAILED, "a test of your own still fails the build"


def test_mb_exit_gate_without_a_gate_is_one_line_and_exit_code_4(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(*ISOLATED, "--agent=null", "--mb-exit=gate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.strip()] == [
        "ERROR: --mb-exit gate makes the gate's verdict the exit status, and no gate is asked for: add"
        " --mb-baseline FILE or --mb-min-score X (--mb-min-score 0 fails only a run that errored or scored"
        " nothing)"
    ]
    floor = pytester.runpytest(*ISOLATED, "--agent=null", "--mb-exit=gate", "--mb-min-score=0")
    floor.assert_outcomes(failed=3)
    assert floor.ret == pytest.ExitCode.OK


def test_a_bad_baseline_is_one_line_and_exit_code_4(pytester: pytest.Pytester) -> None:
    (pytester.path / "broken.json").write_text("{oops")
    result = pytester.runpytest(*ISOLATED, "--agent=null", "--mb-baseline=broken.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.strip()] == [
        "ERROR: --mb-baseline broken.json: not valid JSON (Expecting property name enclosed in double quotes,"
        " line 1); give the results.json from an earlier run folder"
    ]
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"mb_baseline": "missing.json"},
            "--mb-baseline missing.json: no such file; give the results.json of an earlier run",
        ),
        (
            {"mb_baseline": "other.json"},
            "--mb-baseline other.json: not a pytest-memorybench results.json (schema missing); *",
        ),
        ({"mb_baseline": "."}, "--mb-baseline .: a folder, not a file; give the results.json *"),
        (
            {"mb_baseline": "binary.json"},
            "--mb-baseline binary.json: not UTF-8 text (is it a binary file?); *",
        ),
        (
            {"mb_baseline": "means.json"},
            '--mb-baseline means.json: suites.ltm.mean is "high", a number or null was expected; *',
        ),
        ({"mb_max_drop": 0.1}, "--mb-max-drop needs --mb-baseline PREVIOUS_RESULTS.json to compare with"),
        ({"mb_baseline": "base.json", "mb_max_drop": 5.0}, "--mb-max-drop 5 is outside [[]0, 1[]]: *"),
        ({"mb_min_score": -1.0}, "--mb-min-score -1 is outside [[]0, 1[]]: *"),
    ],
)
def test_bad_gate_options_say_what_is_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "binary.json").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    (tmp_path / "means.json").write_text(
        '{"schema": "memorybench.results/1", "totals": {"mean": 0.5}, "suites": {"ltm": {"mean": "high"}}}'
    )
    (tmp_path / "other.json").write_text('{"totals": {}}')
    baseline_file(tmp_path / "base.json", 1.0)
    with pytest.raises(UsageError) as error:
        GateSettings.from_options(SimpleNamespace(**options))
    assert fnmatch(str(error.value), message), str(error.value)


# -- the verdict itself ------------------------------------------------------------------------


def results(mean: float, ci: list[float] | None, scenarios: dict[str, float], **run: object) -> dict:
    return {
        "run": {"span": {"ltm": "32k"}, "profile": "paper", **run},
        "totals": {"mean": mean, "ci95": ci, "score": mean * 3, "max": 3},
        "suites": {"ltm": {"mean": mean, "ci95": ci, "n": 3}},
        "scenarios": {name: {"mean": value, "ci95": ci, "n": 1} for name, value in scenarios.items()},
        "items": [{"suite": "ltm", "scenario": name} for name in scenarios],
    }


def test_rows_say_new_not_run_and_notes_name_what_differs(tmp_path: Path) -> None:
    old = results(0.6, None, {"ltm.colours": 1.0, "ltm.jokes": 0.2}, seed=0)
    old["totals"].pop("mean")  # results.json files from before totals.mean existed
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"schema": "memorybench.results/1", **old}))
    now = results(0.6, [0.5, 0.7], {"ltm.colours": 1.0, "ltm.shopping": 0.2}, seed=1)
    now["run"]["span"] = {"ltm": "2k"}
    gate = evaluate(now, baseline=Baseline.load(str(path)), max_drop=0.0)
    assert gate.passed
    verdicts = {row.label.strip(): row.verdict for row in gate.rows}
    assert verdicts == {"total": "ok", "ltm": "ok", "colours": "ok", "jokes": "not run", "shopping": "new"}
    assert gate.notes == [
        "the baseline ran with span ltm=32k, this run with ltm=2k",
        "the baseline ran with seed 0, this run with 1",
    ]
    assert all(len(line) <= 80 for line in gate_lines(gate) if not line.startswith(("baseline:", "note:")))


def test_a_drop_equal_to_the_allowance_passes() -> None:
    base = Baseline(Path("base.json"), results(0.5, None, {}))
    assert evaluate(results(0.4, [0.3, 0.45], {}), baseline=base, max_drop=0.1).passed
    assert not evaluate(results(0.399, [0.3, 0.45], {}), baseline=base, max_drop=0.1).passed


def errored_results(errors: int, scored: int = 8) -> dict[str, object]:
    """This run's results.json content: `scored` items at 0.5, `errors` with no score (a provider outage)."""
    return {
        "run": {"span": {"ltm": "isolated"}, "profile": "paper", "agent": "a"},
        "totals": {
            "mean": 0.5,
            "ci95": [0.4, 0.6],
            "max": scored,
            "errors": errors,
            "errors_by_kind": {"provider": errors},
        },
        "suites": {"ltm": {"mean": 0.5, "ci95": [0.4, 0.6], "n": scored, "errors": errors}},
        "scenarios": {},
        "items": [],
    }


def test_a_gate_refuses_to_judge_a_run_with_errors_and_says_how_to_retry() -> None:
    gate = evaluate(errored_results(2), baseline=None, min_score=0.9, folder="runs/today")
    assert gate.failures == [
        "2 of 10 items errored (provider): nothing to compare; --mb-resume=runs/today retries them "
        "(allow some with --mb-max-errors N or P%)"
    ], "an outage is not judged as a regression, nor as a low score"
    assert not gate.rows


@pytest.mark.parametrize(("allowance", "passes"), [("2", True), ("20%", True), ("1", False), ("10%", False)])
def test_max_errors_lets_the_gate_compare_the_items_that_scored(allowance: str, passes: bool) -> None:
    settings = GateSettings.from_options(SimpleNamespace(mb_max_errors=allowance))
    gate = evaluate(
        errored_results(2), baseline=None, min_score=0.4, max_errors=settings.max_errors, folder="run"
    )
    assert gate.passed is passes
    if passes:
        assert gate.notes == [
            f"2 of 10 items errored (provider), within --mb-max-errors {allowance}: compared the 8 that"
            " scored"
        ]
        assert gate_lines(gate)[0].startswith("note: 2 of 10 items errored")
    else:
        assert gate.failures[0].endswith(f"(--mb-max-errors {allowance} allows 1)")


@pytest.mark.parametrize("value", ["-1", "many", "101%", "3.5", "5 %%"])
def test_a_max_errors_that_is_no_count_is_one_line(value: str) -> None:
    with pytest.raises(
        UsageError, match=f"^--mb-max-errors {value!r} is not a count or a percentage: use e.g. 3 or 5%$"
    ):
        GateSettings.from_options(SimpleNamespace(mb_max_errors=value))


def strict_gate(**options: object) -> GateSettings:
    return GateSettings.from_options(SimpleNamespace(mb_gate_on="strict", **options))


def test_the_strict_gate_fails_a_run_whose_mean_passes_counting_its_errors_as_wrong() -> None:
    allowed = GateSettings.from_options(SimpleNamespace(mb_max_errors="2")).max_errors
    on_mean = evaluate(errored_results(2), baseline=None, min_score=0.45, max_errors=allowed)
    assert on_mean.passed, "the 8 that scored average 0.5"
    settings = strict_gate()
    assert settings.strict and settings.max_errors is None, "under strict an error is judged, not refused"
    gate = evaluate(errored_results(2), baseline=None, min_score=0.45, max_errors=None, strict=True)
    assert gate.failures == [
        "total strict mean 0.400 is below --mb-min-score 0.450 (an item that errored counts 0)"
    ], "0.5 × 8 over the 10 items: the strict mean of a file that has none, from its counts"
    assert gate.notes == ["2 of 10 items errored (provider): counted as wrong (--mb-gate-on strict)"]
    assert "gated on the strict means" in "\n".join(gate_lines(gate))
    assert gate.to_json()["on"] == "strict" and on_mean.to_json()["on"] == "mean"


def test_the_strict_gate_still_caps_errors_when_told() -> None:
    settings = strict_gate(mb_max_errors="1")
    gate = evaluate(
        errored_results(2), baseline=None, min_score=0.1, max_errors=settings.max_errors, strict=True
    )
    assert gate.failures[0].startswith("2 of 10 items errored (provider): nothing to compare")
    allowed = evaluate(
        errored_results(1), baseline=None, min_score=0.1, max_errors=settings.max_errors, strict=True
    )
    assert allowed.passed and allowed.notes == [
        "1 of 9 items errored (provider), within --mb-max-errors 1: counted them as wrong"
    ]


def test_the_strict_gate_compares_strict_means_with_the_baseline(tmp_path: Path) -> None:
    base = Baseline.load(str(baseline_file(tmp_path / "base.json", 0.5)))  # no errors: strict = mean
    now = errored_results(2)
    assert evaluate(now, baseline=base, max_drop=0.05, max_errors=None).passed, "0.5 against 0.5"
    gate = evaluate(now, baseline=base, max_drop=0.05, max_errors=None, strict=True)
    assert gate.failures == [
        "total strict mean fell 0.100 (from 0.500 to 0.400), more than the 0.050 allowed; strict means have"
        " no interval",
        "suite ltm strict mean fell 0.100 (from 0.500 to 0.400), more than the 0.050 allowed; strict means"
        " have no interval",
    ]
    assert [(row.label, row.current, row.ci95) for row in gate.rows[:2]] == [
        ("total", 0.4, None),
        ("ltm", 0.4, None),
    ]


def test_an_unknown_gate_mean_is_one_line() -> None:
    with pytest.raises(
        UsageError, match=r"^--mb-gate-on 'median': use mean or strict \(which counts an error as 0\)$"
    ):
        GateSettings.from_options(SimpleNamespace(mb_gate_on="median"))
