"""Scores in JUnit XML: properties on each test case, and the run's totals on the test suite.

CI servers (GitLab, Jenkins, Azure) read JUnit XML, so the numbers a reviewer needs belong there.
Per item we write `item.user_properties` directly: `record_property` would warn under the default
xunit2 family.  For the suite, pytest's `record_testsuite_property` fixture does not work under
xdist (pytest #7767: it runs on a worker, whose XML is never written); the totals only exist on
the controller anyway, so we hand them to the controller's junitxml writer ourselves, before it
writes the file.
"""

from __future__ import annotations

from typing import Final

import pytest

from pytest_memorybench.results.schema import GateRecord, ItemRecord, ResultsRecord

ITEM_PROPERTIES: Final = ("score", "threshold", "scenario", "span_tokens")


def item_properties(record: ItemRecord) -> list[tuple[str, object]]:
    """`score`, `threshold`, `scenario`, `span_tokens`, `skills`, `category` when it has one, and for
    an item that errored (no score) `error_kind` in place of the score."""
    properties: list[tuple[str, object]] = [
        (name, record[name]) for name in ITEM_PROPERTIES if record[name] is not None
    ]
    properties.append(("skills", " ".join(record["skills"])))
    if record.get("category") is not None:
        properties.append(("category", record["category"]))
    if record["score"] is None:
        properties.append(("error_kind", record.get("error_kind") or "agent"))
    return properties


def suite_properties(results: ResultsRecord, gate: GateRecord | None) -> list[tuple[str, object]]:
    """The run's identity, totals, suite means and gate verdict, named `memorybench.*`."""
    run, totals = results["run"], results["totals"]
    properties: list[tuple[str, object]] = [
        ("memorybench.run", run["id"]),
        ("memorybench.agent", run["agent"]),
        ("memorybench.judge", run["judge"]),
        ("memorybench.span", " ".join(f"{name}={span}" for name, span in run["span"].items())),
        ("memorybench.seed", run["seed"]),
        ("memorybench.profile", run["profile"]),
        ("memorybench.mean", totals["mean"]),
        ("memorybench.ci95", _interval(totals.get("ci95"))),
        ("memorybench.passed", f"{totals['passed']}/{totals['max']}"),
        ("memorybench.errors", totals.get("errors", 0)),
        ("memorybench.agent_tokens_in", totals["agent_tokens_in"]),
        ("memorybench.agent_tokens_out", totals["agent_tokens_out"]),
        ("memorybench.agent_seconds", totals["agent_seconds"]),
        ("memorybench.cost_usd", totals["cost_usd"]),
        ("memorybench.judge_calls", totals["judge_calls"]),
        ("memorybench.judge_cache_hits", totals["judge_cache_hits"]),
        ("memorybench.judge_cost_usd", totals["judge_cost_usd"]),
    ]
    for suite, stats in results["suites"].items():
        properties.append((f"memorybench.suite.{suite}.mean", stats["mean"]))
        properties.append((f"memorybench.suite.{suite}.ci95", _interval(stats.get("ci95"))))
    if gate is not None:
        properties.append(("memorybench.gate", "passed" if gate["passed"] else "failed"))
        properties.extend(("memorybench.gate.failure", failure) for failure in gate["failures"])
    return properties


def add_suite_properties(config: pytest.Config, properties: list[tuple[str, object]]) -> bool:
    """Give the properties to the junitxml writer, if `--junitxml` is on; True if it took them."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pytest moved its private key: keep the run, lose only these properties
        return False
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return False
    for name, value in properties:
        xml.add_global_property(name, value)
    return True


def _interval(value: list[float] | None) -> str:
    return f"{value[0]:.4f} {value[1]:.4f}" if value else ""
