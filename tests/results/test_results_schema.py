"""results.json and events.jsonl against their schemas: what a run writes follows them exactly, the
docs publish them, and a file written before (or a part of one) still reads."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable

import pytest

from pytest_memorybench.conversation.event_schema import EVENTS_SCHEMA, events_json_schema, validate_event
from pytest_memorybench.results.schema import SCHEMA, json_schema, validate
from tests.pytest_integration.test_plugin import colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.support.paths import DOCS
from tests.support.runs import run_benchmark

PUBLISHED = DOCS / "results.schema.json"
ARGS = ("-p", "no:randomly", "--span=isolated")


@pytest.fixture
def written(pytester: pytest.Pytester) -> dict:
    run = run_benchmark(pytester, *ARGS, "--agent=recall", folder="run")  # checked against the schema
    return json.loads((run.folder / "results.json").read_text())


@pytest.mark.parametrize(
    "name, made", [("results.schema.json", json_schema), ("events.schema.json", events_json_schema)]
)
def test_the_docs_publish_the_schemas_the_records_define(name: str, made: Callable[[], dict]) -> None:
    published = made()
    if os.environ.get("MB_WRITE_SCHEMA"):
        (DOCS / name).write_text(json.dumps(published, indent=2, sort_keys=True) + "\n")
    assert json.loads((DOCS / name).read_text()) == published, (
        "MB_WRITE_SCHEMA=1 pytest this file rewrites it"
    )


def test_the_schemas_name_their_versions_and_what_a_reader_needs() -> None:
    assert json_schema()["$id"] == SCHEMA
    assert set(json_schema()["$defs"]["ItemRecord"]["required"]) >= {"nodeid", "score", "passed", "usage"}
    assert events_json_schema()["$id"] == EVENTS_SCHEMA
    kinds = {
        definition["properties"]["kind"]["const"]
        for definition in events_json_schema()["$defs"].values()
        if "kind" in definition["properties"]  # (not a part of events, as `usage` is)
    }
    assert {"log_begin", "message", "reply", "observed", "test_end", "probe_answer"} <= kinds


def test_an_event_of_an_unknown_kind_or_with_a_field_the_schema_lacks_is_named(written: dict) -> None:
    assert written  # the run's own events were checked as it was read (tests/support/runs.check_events)
    with pytest.raises(ValueError, match=r"Input tag 'guess' found using 'kind' does not match"):
        validate_event({"seq": 3, "kind": "guess", "group": "c1"})
    with pytest.raises(ValueError, match=r"^an event does not follow memorybench.events/1: score.confidence"):
        validate_event(
            {
                "seq": 3,
                "kind": "score",
                "group": "c1",
                "test": "t",
                "value": 1.0,
                "reasons": [],
                "confidence": 1,
            }
        )


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
