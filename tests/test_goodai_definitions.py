"""GoodAI's published definition files run through our engine and scorers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import pytest_memorybench.agents.recall  # noqa: F401  (numpy must load outside pytester's inner runs)
from pytest_memorybench.errors import UsageError
from pytest_memorybench.scenarios.ltm.colours import SCENARIO as COLOURS
from pytest_memorybench.suite import load_suite
from tests.support.goodai import write_goodai_folder

REFERENCE = Path(__file__).parents[2] / "shared/reference/goodai-ltm/data/tests/Benchmark 3 - 32k/definitions"

def test_a_goodai_folder_loads_as_a_suite(tmp_path: Path) -> None:
    write_goodai_folder(tmp_path)
    suite = load_suite(f"goodai-definitions={tmp_path}")
    assert suite.name == "goodai" and str(suite.span) == "4k"
    definitions = suite.definitions(0)
    assert [d.test_id for d in definitions] == ["colours[rep1]", "colours[rep2]"]
    generated = COLOURS.generate("ltm", {"colour_changes": 3}, 7, 1)
    assert definitions[0].script == generated.script and definitions[0].expected == generated.expected
    assert definitions[0].params == {"goodai_example": "0"}


def test_a_goodai_folder_runs_end_to_end(pytester: pytest.Pytester, tmp_path: Path) -> None:
    write_goodai_folder(pytester.path / "defs")
    for agent, outcomes in (("oracle", {"passed": 2}), ("null", {"failed": 2})):
        result = pytester.runpytest("--memorybench", f"--agent={agent}", "--mb-suite=goodai-definitions=defs", "-p", "no:cacheprovider")
        result.assert_outcomes(**outcomes)
    result.stdout.fnmatch_lines(["memorybench: agent null | judge local | span goodai=4k*"])


def test_a_folder_without_config_says_what_to_give(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no config.yml there; give the 'definitions' folder of a GoodAI run"):
        load_suite(f"goodai-definitions={tmp_path}")


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is not available")
def test_the_published_colours_definitions(tmp_path: Path) -> None:
    shutil.copytree(REFERENCE / "Colours", tmp_path / "Colours")
    shutil.copy(REFERENCE / "config.yml", tmp_path / "config.yml")
    suite = load_suite(f"goodai-definitions={tmp_path}")
    assert str(suite.span) == "32k"
    first = suite.definitions(0)[0]
    assert [line.text for line in first.script][-1] == "What is my favourite colour?"
    assert [line.wait for line in first.script][:3] == [{"percentage_finished": 30.0}, {"percentage_finished": 60.0}, {"percentage_finished": 90.0}]


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is not available")
def test_the_published_benchmark_3_runs_through_our_engine(pytester: pytest.Pytester) -> None:
    """All 33 tests of GoodAI's Benchmark 3 (11 scenarios × 3): the oracle passes every one, null none."""
    suite = f"--mb-suite=goodai-definitions={REFERENCE}"
    pytester.runpytest("--memorybench", "--agent=oracle", "--span=isolated", suite, "-p", "no:cacheprovider").assert_outcomes(passed=33)
    pytester.runpytest("--memorybench", "--agent=null", "--span=isolated", suite, "-p", "no:cacheprovider").assert_outcomes(failed=33)
