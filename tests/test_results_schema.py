"""results.json against its schema: what a run writes follows it exactly, the docs publish it, and a
file written before (or a part of one) still reads."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from pytest_memorybench.results.schema import SCHEMA, json_schema, validate
from tests.support.runs import run_benchmark
from tests.test_plugin import colours_only  # noqa: F401  (autouse: a Colours-only ltm)

PUBLISHED = Path(__file__).parent.parent / "docs" / "results.schema.json"
ARGS = ("-p", "no:randomly", "--span=isolated")


@pytest.fixture
def written(pytester: pytest.Pytester) -> dict:
    run = run_benchmark(pytester, *ARGS, "--agent=recall", folder="run")  # checked against the schema
    return json.loads((run.folder / "results.json").read_text())


def test_the_docs_publish_the_schema_the_records_define() -> None:
    published = json_schema()
    if os.environ.get("MB_WRITE_SCHEMA"):
        PUBLISHED.write_text(json.dumps(published, indent=2, sort_keys=True) + "\n")
    assert json.loads(PUBLISHED.read_text()) == published, "MB_WRITE_SCHEMA=1 pytest this file rewrites it"
    assert published["$id"] == SCHEMA
    assert set(published["$defs"]["ItemRecord"]["required"]) >= {"nodeid", "score", "passed", "usage"}


def test_a_field_the_writer_adds_or_changes_without_the_schema_is_named(written: dict) -> None:
    added = copy.deepcopy(written)
    added["items"][0]["confidence"] = 0.5
    with pytest.raises(
        ValueError, match=r"^results.json does not follow memorybench.results/1: items.0.confidence"
    ):
        validate(added)
    changed = copy.deepcopy(written)
    changed["totals"]["passed"] = "3"
    with pytest.raises(ValueError, match=r"totals.passed: Input should be a valid integer"):
        validate(changed)
    dropped = copy.deepcopy(written)
    del dropped["run"]["seed"]
    with pytest.raises(ValueError, match=r"run.seed: Field required"):
        validate(dropped)


def test_validation_leaves_the_file_as_written(written: dict) -> None:
    """A count stays an int: readers get what the run wrote, not pydantic's coerced copy."""
    before = copy.deepcopy(written)
    assert validate(written) is written and written == before


def test_a_file_from_before_its_newer_fields_still_compares_and_gates(
    pytester: pytest.Pytester, written: dict
) -> None:
    older = copy.deepcopy(written)
    for name in ("evidence_recall", "store", "memory", "latency", "errors_by_kind", "mean"):
        older["totals"].pop(name)
    for name in ("judge_identity", "concurrency", "token_counter"):
        older["run"].pop(name)
    for item in older["items"]:
        item.pop("details", None)
        item.pop("usage")
    folder = pytester.path / "older"
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(older))
    compared = pytester.runpytest("--mb-compare", "run", "older", "--mb-output=cmp")
    assert compared.ret == 0, compared.outlines[-10:]
    gated = run_benchmark(pytester, *ARGS, "--agent=recall", "--mb-baseline=older/results.json")
    assert gated.outcome.ret == 0, gated.outcome.outlines[-10:]
    assert gated.results["gate"]["passed"] is True
