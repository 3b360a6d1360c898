"""syrupy extensions: snapshot a run's score table and its test definitions in your own tests.

    from pytest_memorybench.reports.snapshot import DefinitionsExtension, ScoreTableExtension, latest_run

    def test_memory_scores_hold(snapshot):
        assert latest_run() == snapshot(extension_class=ScoreTableExtension)

`pytest --snapshot-update` accepts a new table.  Scores of a model-backed agent wobble from run to
run, so the table is compared with a tolerance (`ScoreTableExtension.tolerance`, 0.02 on every
mean; subclass to change it); counts and names must match exactly.  Definitions are deterministic
for a seed, so `DefinitionsExtension` compares them exactly: a snapshot that changes means the
benchmark's content changed, and scores before and after are not comparable.

Under pytest-xdist, syrupy's workers can race when writing snapshot files (syrupy #535): run
`--snapshot-update` without `-n`; checking snapshots under `-n` is fine.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, cast

from syrupy.extensions.json import JSONSnapshotExtension

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.readers import reading
from pytest_memorybench.results.file import read_results
from pytest_memorybench.results.schema import ResultsRecord

DEFAULT_RUNS = Path(".memorybench") / "runs"


def load_results(path: str | Path) -> ResultsRecord:
    """A run's results.json, given the file or its run folder."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.json"
    with reading(f"{path}: cannot read a results.json", "give a finished run folder or its results.json"):
        return read_results(path)


def latest_run(root: str | Path = DEFAULT_RUNS) -> Path:
    """The most recently finished run folder under `root` (the default run folder of a project)."""
    finished = list(Path(root).glob("*/results.json"))
    if not finished:
        raise usage_error(f"{root}: no finished run (no */results.json); run pytest --memorybench first")
    return max(finished, key=lambda path: path.stat().st_mtime_ns).parent


def score_table(results: ResultsRecord) -> dict[str, Any]:
    """The part of results.json a team gates on: means and counts per suite, scenario and category.

    Intervals are left out (they follow the means), and so are costs and times (they are not
    properties of the agent's memory).  A scenario's scalar metrics stay in.  Numbers are rounded
    to 6 places, as results.json rounds them, so a snapshot diff shows no float noise.
    """
    scenarios = {}
    for name, stats in results["scenarios"].items():
        row: dict[str, Any] = {"mean": _round(stats["mean"]), "n": stats["n"]}
        if stats.get("categories"):
            row["categories"] = {
                c: {"mean": _round(s["mean"]), "n": s["n"]} for c, s in stats["categories"].items()
            }
        metrics = {
            key: _round(value)
            for key, value in (stats.get("metrics") or {}).items()
            if isinstance(value, (int, float, str)) and not isinstance(value, bool)
        }
        if metrics:
            row["metrics"] = metrics
        scenarios[name] = row
    totals = results["totals"]
    mean = totals.get("mean")
    if mean is None and totals.get("max"):
        mean = totals["score"] / totals["max"]
    return {
        "total": {"mean": _round(mean), "n": totals["max"]},
        "suites": {name: {"mean": _round(s["mean"]), "n": s["n"]} for name, s in results["suites"].items()},
        "scenarios": scenarios,
    }


def _round(value: Any) -> Any:
    return round(value, 6) if isinstance(value, float) else value


def within(actual: Any, expected: Any, tolerance: float) -> bool:
    """Equal, except that floats may differ by `tolerance`; keys, lengths and strings exactly."""
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(
            within(actual[k], expected[k], tolerance) for k in actual
        )
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(
            within(a, e, tolerance) for a, e in zip(actual, expected, strict=True)
        )
    if isinstance(actual, float) or isinstance(expected, float):
        if isinstance(actual, bool) or isinstance(expected, bool):
            return actual is expected
        if not isinstance(actual, (int, float)) or not isinstance(expected, (int, float)):
            return False
        return math.isclose(actual, expected, rel_tol=0.0, abs_tol=tolerance + 1e-12)
    return bool(actual == expected)


class ScoreTableExtension(JSONSnapshotExtension):
    """A run's score table as a JSON snapshot, compared with a tolerance on the means.

    Accepts results.json content (a dict), a results.json path or a run folder.
    """

    tolerance: float = 0.02

    def serialize(self, data: Any, **_: Any) -> str:
        results = cast(ResultsRecord, data) if isinstance(data, dict) else load_results(data)
        return json.dumps(score_table(results), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    def matches(self, *, serialized_data: Any, snapshot_data: Any) -> bool:
        try:
            return within(json.loads(serialized_data), json.loads(snapshot_data), self.tolerance)
        except (TypeError, ValueError):
            return False  # no snapshot yet, or not JSON: a plain mismatch syrupy reports


class DefinitionsExtension(JSONSnapshotExtension):
    """Every test definition of a run (script, waits, expected answers), compared exactly.

    Accepts a run folder (its `definitions/` is read) or a list of `TestDefinition`.
    """

    def serialize(self, data: Any, **_: Any) -> str:
        if isinstance(data, (str, Path)):
            folder = Path(data) / "definitions"
            files = sorted(folder.glob("*/*.json"))
            if not files:
                raise usage_error(f"{folder}: no test definitions in this run folder")
            table = {f"{p.parent.name}::{p.stem}": json.loads(p.read_text(encoding="utf-8")) for p in files}
        else:
            table = {f"{d.suite}::{d.test_id}": json.loads(d.to_json()) for d in data}
        return json.dumps(table, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
