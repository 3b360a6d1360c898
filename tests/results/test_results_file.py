"""results.json written and read back in one place: what is written reads back the same, a file of
the first layout of version 1 still reads, and a field of the wrong type or a version this release
does not know is refused in one line naming it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pytest_memorybench.core.readers import Malformed
from pytest_memorybench.reports.gate import evaluate
from pytest_memorybench.results.file import Baseline, read_results, schema_version, write_results
from pytest_memorybench.results.schema import validate
from tests.pytest_integration.test_plugin import colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.support.runs import run_benchmark

FIRST = Path(__file__).parent / "fixtures" / "results-v1-first.json"  # as the first release wrote it
ARGS = ("-p", "no:randomly", "--span=isolated")


@pytest.fixture
def written(pytester: pytest.Pytester) -> dict:
    run = run_benchmark(pytester, *ARGS, "--agent=recall", folder="run")
    return json.loads((run.folder / "results.json").read_text())


def test_what_is_written_reads_back_equal(tmp_path: Path, written: dict) -> None:
    path = tmp_path / "results.json"
    write_results(path, validate(written))
    assert read_results(path) == written
    assert path.read_text() == json.dumps(written, indent=2, ensure_ascii=False) + "\n"


def test_a_file_of_the_first_layout_still_reads_and_gates() -> None:
    """The first release's results.json lacked most of today's fields, and named one since dropped
    (`run.judge_model`): it reads, and the gate compares a run with it."""
    first = read_results(FIRST)
    assert first["totals"]["score"] == 1.5 and len(first["items"]) == 2
    baseline = Baseline.load(str(FIRST))
    now = copy.deepcopy(first)
    now["suites"]["ltm"]["mean"] = now["scenarios"]["ltm.colours"]["mean"] = 0.5
    gate = evaluate(now, baseline=baseline, max_drop=0.1)
    assert gate.failures == [
        "suite ltm fell 0.250 (from 0.750 to 0.500), more than the 0.100 allowed; no 95% CI"
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r["items"][1].update(score="high"),
            'items[1].score is "high", a number or null was expected',
        ),
        (lambda r: r["totals"].update(passed=True), "totals.passed is true, a whole number was expected"),
        (
            lambda r: r["suites"]["ltm"].update(ci95=[0.1, "x"]),
            'suites.ltm.ci95[1] is "x", a number was expected',
        ),
        (lambda r: r["run"].update(suites="ltm"), 'run.suites is "ltm", a list was expected'),
        (
            lambda r: r.update(schema="memorybench.results/2"),
            "schema memorybench.results/2 is newer than this pytest-memorybench reads"
            " (memorybench.results/1): upgrade it to read this file",
        ),
        (
            lambda r: r.update(schema="memorybench.results/one"),
            "not a pytest-memorybench results.json (schema memorybench.results/one)",
        ),
    ],
)
def test_a_wrong_field_or_version_is_named(tmp_path: Path, change: object, message: str) -> None:
    results = json.loads(FIRST.read_text())
    change(results)  # type: ignore[operator]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results))
    with pytest.raises(Malformed) as refused:
        read_results(path)
    assert str(refused.value) == message


def test_schema_versions_are_read_from_the_schema_name() -> None:
    assert schema_version("memorybench.results/1") == 1
    assert schema_version("memorybench.results/12") == 12
    assert schema_version("memorybench.results/") is None
    assert schema_version("memorybench.events/1") is None


def test_a_users_file_with_a_wrongly_typed_field_stops_the_command_in_one_line(
    pytester: pytest.Pytester, written: dict
) -> None:
    broken = copy.deepcopy(written)
    broken["items"][0]["score"] = "high"
    (pytester.path / "broken").mkdir()
    (pytester.path / "broken" / "results.json").write_text(json.dumps(broken))
    compared = pytester.runpytest("--mb-compare", "run", "broken", "--mb-output=cmp")
    assert compared.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in compared.stderr.lines if line.strip()]
    assert errors == [
        'ERROR: --mb-compare broken: items[0].score is "high", a number or null was expected; give the'
        " results.json of a pytest-memorybench run"
    ]
    assert "Traceback" not in compared.stdout.str() + compared.stderr.str()
    gated = pytester.runpytest("--memorybench", *ARGS, "--agent=null", "--mb-baseline=broken/results.json")
    assert gated.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in gated.stderr.lines if line.strip()] == [
        'ERROR: --mb-baseline broken/results.json: items[0].score is "high", a number or null was expected;'
        " give the results.json from an earlier run folder"
    ]
