"""JUnit XML: scores on every test case, and the run's totals on the test suite, with or without xdist."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pytest_memorybench.reports.junit import item_properties
from tests.pytest_integration.test_plugin import WARNINGS_AS_ERRORS, colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.support.runs import SERIAL_AND_XDIST

ISOLATED = ("--memorybench", "--span=isolated", "-p", "no:cacheprovider")


def properties(element: ET.Element) -> dict[str, str]:
    block = element.find("properties")
    return {} if block is None else {p.get("name", ""): p.get("value", "") for p in block.iter("property")}


@SERIAL_AND_XDIST
def test_cases_carry_scores_and_the_suite_carries_totals(
    pytester: pytest.Pytester, parallel: tuple[str, ...]
) -> None:
    """`record_testsuite_property` would lose these under xdist (pytest #7767); ours are added on the
    controller."""
    result = pytester.runpytest(
        *ISOLATED,
        "--agent=oracle",
        "--junitxml=report.xml",
        "--mb-min-score=0.9",
        *WARNINGS_AS_ERRORS,
        *parallel,
    )
    result.assert_outcomes(passed=3)
    suite = ET.parse(pytester.path / "report.xml").getroot().find("testsuite")
    assert suite is not None
    totals = properties(suite)
    assert totals["memorybench.agent"] == "oracle" and totals["memorybench.span"] == "ltm=isolated"
    assert totals["memorybench.mean"] == "1.0" and totals["memorybench.passed"] == "3/3"
    assert totals["memorybench.ci95"] == "1.0000 1.0000" and totals["memorybench.suite.ltm.mean"] == "1.0"
    assert totals["memorybench.gate"] == "passed" and totals["memorybench.judge"] == "local"
    assert int(totals["memorybench.agent_tokens_in"]) > 0 and totals["memorybench.cost_usd"] == "0.0"
    cases = suite.findall("testcase")
    assert len(cases) == 3
    for case in cases:
        item = properties(case)
        assert set(item) == {"score", "threshold", "scenario", "span_tokens", "skills"}
        assert item["score"] == "1.0" and item["threshold"] == "1.0" and item["scenario"] == "ltm.colours"
        assert item["skills"] == "recall" and int(item["span_tokens"]) > 0


def test_a_failed_gate_is_in_the_suite_properties(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        *ISOLATED, "--agent=null", "--mb-threshold=0", "--mb-min-score=0.5", "--junitxml=r.xml"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    totals = properties(ET.parse(pytester.path / "r.xml").getroot().find("testsuite"))  # type: ignore[arg-type]
    assert totals["memorybench.gate"] == "failed"
    assert totals["memorybench.gate.failure"] == "total mean 0.000 is below --mb-min-score 0.500"


def test_a_category_becomes_a_property_too() -> None:
    record = {
        "score": 0.5,
        "threshold": 1.0,
        "scenario": "beam.probes",
        "span_tokens": 10,
        "skills": ["a", "b"],
    }
    assert item_properties({**record, "category": "abstention"})[-2:] == [
        ("skills", "a b"),
        ("category", "abstention"),
    ]
    assert [name for name, _ in item_properties(record)] == [
        "score",
        "threshold",
        "scenario",
        "span_tokens",
        "skills",
    ]
