"""A benchmark run from a test, and what it left: the one way tests run one and read its results
(`run_benchmark`, `results_in`), or drive a plan through the runner alone (`drive_plan`).

Every results.json a test reads goes through the package's one reader and is checked against the
schema (every field, and no other), so a field the writer adds or drops without the schema fails
the run's tests, not a user's reader.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.agents.supply import Source
from pytest_memorybench.conversation.event_schema import validate_event
from pytest_memorybench.core.readers import reading
from pytest_memorybench.core.records import TestOutcome
from pytest_memorybench.reports.report_items import ITEM_FIELDS
from pytest_memorybench.results.file import read_results
from pytest_memorybench.results.schema import ResultsRecord, validate
from pytest_memorybench.runner.context import open_run
from pytest_memorybench.runner.run import BenchmarkRun
from pytest_memorybench.runner.settings import Settings

# Plugins off for a run a test starts: a random order (pytest-randomly) would reorder the plan, and
# the cache would carry state between runs.
QUIET = ("-p", "no:randomly", "-p", "no:cacheprovider")

# A test of a run by itself and under xdist (`parallel`: the options to add); the xdist one starts two
# worker processes, so it is in the e2e group, which CI runs (the default run checks -n once:
# tests/pytest_integration/test_plugin.py's split conversations).
SERIAL_AND_XDIST = pytest.mark.parametrize(
    "parallel", [(), pytest.param(("-n", "2"), marks=pytest.mark.e2e)], ids=["serial", "xdist"]
)


def first_by_default(
    values: Iterable[Any], *, keep: int = 1, marks: Mapping[Any, pytest.MarkDecorator] | None = None
) -> list[Any]:
    """Parameters of a whole run repeated per store or mechanism: the first `keep` run in the default
    `pytest`, the rest in the e2e group CI runs (`pytest -m slow`), so every one is still checked and
    a contributor's run stays short (issue 80).  `marks` adds a value's own mark."""
    params = []
    for i, value in enumerate(values):
        own = [marks[value]] if marks and value in marks else []
        params.append(pytest.param(value, marks=own if i < keep else [*own, pytest.mark.e2e]))
    return params


def results_in(folder: Path | str) -> ResultsRecord:
    """The results.json of run folder `folder` (or the file itself), read and checked, and every
    event its logs hold checked too."""
    path = Path(folder)
    if path.is_dir():
        check_events(path)
    path = path / "results.json" if path.is_dir() else path
    with reading(str(path), "a run's tests read only what it wrote"):
        return validate(read_results(path))


def report_items(folder: Path | str) -> list[dict[str, Any]]:
    """The items report.html of run folder `folder` holds (its script draws them), each as a record
    of ITEM_FIELDS with its texts looked up: what a reader can open on the page."""
    page = (Path(folder) / "report.html").read_text(encoding="utf-8")
    block = page.split('<script type="application/json" id="mb-i-data">', 1)[1].split("</script>", 1)[0]
    data = json.loads(block)
    texts = data["texts"]
    items = []
    for packed in data["items"]:
        item = dict(zip(ITEM_FIELDS, packed, strict=True))
        item["transcript_title"] = texts[item["transcript_title"]]
        item["details"] = [
            [label, [texts[at] for at in value] if isinstance(value, list) else value]
            for label, value in item["details"]
        ]
        if item["transcript"] is not None:
            item["transcript"] = [
                entry
                if isinstance(entry, str)
                else [texts[entry[0]], None if entry[1] is None else texts[entry[1]], *entry[2:]]
                for entry in item["transcript"]
            ]
        items.append(item)
    return items


def usage_error_line(result: pytest.RunResult) -> str:
    """The one line a run that cannot start says (pytest's usage error, no traceback), for a test
    to check what it names."""
    errors = [line for line in result.errlines if line.startswith("ERROR")]
    assert result.ret == pytest.ExitCode.USAGE_ERROR and len(errors) == 1, result.errlines
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    return errors[0]


def check_events(folder: Path) -> None:
    """Every event of `folder`'s logs against its kind's record (a line torn by an interruption,
    not JSON, is where the log ends, as resume reads it)."""
    for log in sorted(folder.glob("events*.jsonl")):
        for number, line in enumerate(log.read_text(encoding="utf-8").splitlines(), 1):
            try:
                event = json.loads(line)
            except ValueError:
                continue
            try:
                validate_event(event)
            except ValueError as exc:
                pytest.fail(f"{log.name}:{number}: {exc}", pytrace=False)


@dataclass(frozen=True)
class Benchmark:
    """A finished run: pytest's outcome, its run folder, and its results."""

    outcome: pytest.RunResult
    folder: Path
    results: ResultsRecord


def run_benchmark(pytester: pytest.Pytester, *args: str, folder: str | None = None) -> Benchmark:
    """`pytest --memorybench *args` in `pytester`, into a run folder of its own (`folder`, else the
    next `run-N`); fails with pytest's last lines when the run wrote no results."""
    out = pytester.path / (folder or f"run-{len(list(pytester.path.glob('run-*')))}")
    outcome = pytester.runpytest("--memorybench", *QUIET, f"--mb-output={out}", *args)
    if not (out / "results.json").is_file():
        pytest.fail("the run wrote no results.json:\n" + "\n".join(outcome.outlines[-20:]), pytrace=False)
    return Benchmark(outcome, out, results_in(out))


def drive_plan(
    pytester: pytest.Pytester, *args: str, agent: Callable[[], object], folder: str = "run"
) -> dict[str, TestOutcome]:
    """The outcome of every test `pytest --memorybench *args` would plan, driven by the runner
    alone (no pytest session, no reports): each conversation with an agent `agent` makes."""
    config = pytester.parseconfig("--memorybench", "-p", "no:cacheprovider", *args)
    context = open_run(
        Settings.from_options(config.option, paths_given=False), "contract", pytester.path / folder
    )
    run = BenchmarkRun(context, fixtures=[Source.FACTORY_FIXTURE.value])
    run.agents.provide(agent)  # as the first item hands in a memorybench_agent_factory fixture's value
    try:
        return {
            key: run.outcome(key) for key, test in context.tests.items() if not test.definition.skip_reason
        }
    finally:
        run.close()
