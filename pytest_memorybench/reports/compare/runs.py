"""The runs a comparison reads: run folders, their results.json, or a folder of run folders, labelled.

Each file is checked for what pairing and the tables read of it, so a hand-edited or foreign file
is one line; a re-scored GoodAI leaderboard splits into one run per published agent; runs are
named by what tells them apart (agent, span, suites, profile, judge, seed), else by their folder
or run id, unless `--mb-label` names them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.readers import as_list, reading, require
from pytest_memorybench.results.file import part, read_results
from pytest_memorybench.results.schema import ItemRecord, ResultsRecord

IDENTITY = ("agent", "span", "suites", "profile", "judge", "seed")  # what tells runs apart, in label order


@dataclass
class FinishedRun:
    """One side of a comparison: a results.json (or one suite of it, for a re-scored leaderboard)."""

    label: str
    source: Path
    results: ResultsRecord
    suite: str | None = None  # set: only this suite of the file is this run

    @property
    def info(self) -> dict[str, Any]:
        """What ran (results.json's `run`; empty in a file without one)."""
        return part(self.results, "run")

    @property
    def items(self) -> list[ItemRecord]:
        items: list[ItemRecord] = cast(Mapping[str, Any], self.results).get("items", [])
        return [item for item in items if self.suite is None or item["suite"] == self.suite]


def score_of(item: ItemRecord) -> float:
    """The score of an item a comparison pairs: one that scored (`compare._pair` keeps no other)."""
    score = item["score"]
    assert score is not None, item["nodeid"]
    return score


def usage_of(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """An item's usage; empty for a file written before items recorded it."""
    usage: Mapping[str, Any] = item.get("usage") or {}
    return usage


def load_runs(paths: Sequence[str], labels: Sequence[str] = ()) -> list[FinishedRun]:
    """The runs named on the command line (run folders, their results.json files, or folders of run
    folders), labelled; one line per bad input."""
    runs: list[FinishedRun] = []
    for given, path in _run_paths(paths):
        file = path / "results.json" if path.is_dir() else path
        if not path.exists():
            raise usage_error(
                f"--mb-compare {given}: no such file or folder; give run folders or their results.json"
            )
        if not file.is_file():
            raise usage_error(
                f"--mb-compare {given}: no results.json in this folder or the folders in it; give a run"
                " folder of pytest-memorybench, or a folder of them"
            )
        with reading(f"--mb-compare {given}", "give the results.json of a pytest-memorybench run"):
            results = read_results(file)
            _check_items(results)
        runs.extend(_split_leaderboard(file, results))
    if len(runs) < 2:
        raise usage_error("--mb-compare needs two runs or more (run folders or results.json files)")
    if labels:
        if len(labels) != len(runs):
            raise usage_error(
                f"--mb-label was given {len(labels)} time(s) for {len(runs)} runs; give one label per run, in"
                " order"
            )
        for run, label in zip(runs, labels, strict=True):
            run.label = label
    else:
        _label(runs)
    if len({run.label for run in runs}) != len(runs):
        raise usage_error("--mb-label: two runs have the same label; give each run its own")
    return runs


def _run_paths(paths: Sequence[str]) -> list[tuple[str, Path]]:
    """Each path given, a folder of run folders (a board) standing for the runs in it, by name."""
    found: list[tuple[str, Path]] = []
    for given in paths:
        path = Path(given)
        inside = sorted(path.glob("*/results.json")) if path.is_dir() else []
        if inside and not (path / "results.json").exists():
            found.extend((str(file.parent), file.parent) for file in inside)
        else:
            found.append((given, path))
    return found


def _check_items(results: ResultsRecord) -> None:
    """What pairing and the tables read of each item must be there, so a hand-edited file is one line."""
    items = as_list(results.get("items"), "'items' is not a list")
    require(
        isinstance(results.get("run", {}), dict) and isinstance(results.get("suites", {}), dict),
        "'run' or 'suites' is not a mapping",
    )
    for index, item in enumerate(items):
        require(isinstance(item, dict), f"item {index} is not a mapping")
        for key in ("nodeid", "suite", "scenario", "test_id"):
            require(isinstance(item.get(key), str), f"item {index} has no {key!r}")
        score = item.get("score")
        require(
            score is None
            or (isinstance(score, (int, float)) and not isinstance(score, bool) and 0 <= score <= 1),
            f"item {index}: score {score!r} is not a number from 0 to 1",
        )


def _split_leaderboard(file: Path, results: ResultsRecord) -> list[FinishedRun]:
    """A re-score of a whole GoodAI benchmark folder holds one suite per published agent: one run each."""
    suites = list(results.get("suites", {}))
    if part(results, "run").get("rescored_from") and len(suites) > 1:
        return [FinishedRun(suite, file, results, suite=suite) for suite in suites]
    return [FinishedRun("", file, results)]


def _label(runs: list[FinishedRun]) -> None:
    """Name each run by what tells it from the others (agent, span, suites, …), else by its run id."""
    for run in runs:
        if run.suite is not None:
            run.label = run.suite
    unlabelled = [run for run in runs if not run.label]
    differing = [
        key
        for key in IDENTITY
        if len({json.dumps(run.info.get(key), sort_keys=True) for run in unlabelled}) > 1
    ]
    for run in unlabelled:
        parts = [_show(key, run.info.get(key)) for key in differing]
        if not parts:  # alone (beside a leaderboard's agents), or like the others in all but its run
            agent = run.info.get("agent")
            parts = [str(agent)] if agent and len(unlabelled) == 1 else [_folder_or_id(run, unlabelled)]
        run.label = " ".join(parts)
    by_label: dict[str, list[FinishedRun]] = {}
    for run in unlabelled:
        by_label.setdefault(run.label, []).append(run)
    for alike in (runs for runs in by_label.values() if len(runs) > 1):  # alike in all the identity says
        for run in alike:  # (ConvoMem's runs of other sizes): their folders, else their ids, tell them apart
            run.label = f"{run.label} {_folder_or_id(run, alike)}"


def _folder_or_id(run: FinishedRun, runs: list[FinishedRun]) -> str:
    """A run's folder name when the folders tell the runs apart (a board's `runs/mem0`), else its run id."""
    folders = [other.source.parent.name for other in runs]
    if len(set(folders)) == len(folders):
        return run.source.parent.name
    return str(run.info.get("id") or run.source.parent.name)


def _show(key: str, value: Any) -> str:
    if key == "span" and isinstance(value, dict):
        return ",".join(str(span) for span in value.values()) or "-"
    if isinstance(value, list):
        return "+".join(str(part) for part in value)
    return str(value)
