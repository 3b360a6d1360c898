"""`--mb-verify FOLDER`: does a run folder still say what its run found?

Three things must hold.  Its files are the ones the run wrote (`checksums.py`: manifest.json's sizes
and sha256).  Its scores follow from its logged replies: the folder is replayed as `--mb-replay`
does, with the judge, profile and seed it recorded, into a folder of its own that is thrown away,
and every item of its results.json must get the same verdict again (a re-score of published results
is re-scored from them again; a merged run's items must be its shards' records).  And its means are
those of its items.  Nothing is asked of any agent; an LLM judge's verdicts come from the judge
cache where the run left them, else the judge is asked again.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.readers import read_json, reading
from pytest_memorybench.results.breakdown import suite_stats
from pytest_memorybench.results.file import read_results
from pytest_memorybench.results.schema import ItemRecord, ResultsRecord
from pytest_memorybench.runner.checksums import check_files
from pytest_memorybench.runner.context import new_run_id, open_run
from pytest_memorybench.runner.folder import MANIFEST, read_manifest
from pytest_memorybench.runner.run import BenchmarkRun
from pytest_memorybench.runner.settings import Settings
from pytest_memorybench.runner.shards import read_shards

TOLERANCE = 1e-9  # a score read back from JSON against one computed again
SHOWN = 3  # differing verdicts named in the line


@dataclass(frozen=True)
class Verification:
    """What verifying a folder found: whether it holds, and the one line that says so."""

    holds: bool
    line: str


@dataclass(frozen=True)
class Recorded:
    """A run folder as verification reads it: its run.json (raw) and its results."""

    folder: Path
    run: dict[str, Any]
    results: ResultsRecord

    def replay_options(self) -> dict[str, Any]:
        """The options that score the run's replies again as it was judged (pytest's option names):
        a replay of its folder, or for a re-score of published results, that re-score again."""
        run, judge = self.results["run"], (self.run.get("provenance") or {}).get("judge") or {}
        panel = run.get("judge_panel")
        jurors = panel["jurors"] if panel else []
        jury = judge.get("jury") or (jurors if len(jurors) > 1 else None)
        published = self.run.get("rescored_from")
        return {
            "mb_replay": None if published else str(self.folder),
            "mb_rescore": published,
            # a replay takes its data files from run.json; a re-score is given them again
            "mb_data": [f"{name}={path}" for name, path in (self.run.get("data") or {}).items()]
            if published
            else None,
            "mb_profile": run["profile"],
            "mb_judge": "local" if jury else judge.get("judge") or run["judge"],
            "mb_jury": ",".join(jury) if jury else None,
            "mb_judge_repeats": judge.get("repeats") or (panel["repeats"] if panel else None) or 1,
            "mb_judge_band": bool(judge.get("band") or (panel is not None and panel["band"])),
            "mb_seed": run["seed"],
            "mb_sample": self.run.get("sample"),
        }


def read_run(folder: Path) -> Recorded:
    """The run in `folder`, or one line (exit 4) when it is not a run folder this tool wrote."""
    if not (folder / MANIFEST).is_file():
        raise usage_error(f"--mb-verify {folder}: not a pytest-memorybench run folder (no {MANIFEST} in it)")
    read_manifest(folder)  # checked: one line when it is not a run manifest
    hint = "give the folder of a finished run"
    with reading(str(folder / MANIFEST), hint):
        run = read_json(folder / MANIFEST)
    results_path = folder / "results.json"
    if not results_path.is_file():
        raise usage_error(f"--mb-verify {folder}: no results.json: the run did not finish; {hint}")
    with reading(str(results_path), hint):
        results = read_results(results_path)
    return Recorded(folder, run, results)


def verify(recorded: Recorded, replay: Callable[[Path], Settings], judge_cache: Path | None) -> Verification:
    """Check `recorded`'s files, re-score its replies with `replay(scratch folder)`'s settings and
    check its means; a usage error (exit 4) only when it cannot be replayed at all."""
    files = check_files(recorded.folder)
    items = recorded.results.get("items") or []
    if recorded.run.get("merged_from"):
        verdicts, compared, how = _against_shards(recorded), len(items), "its shards recorded"
    else:
        (verdicts, compared), how = _rescored(recorded, replay, judge_cache), "the same when re-scored"
    problems = [*files.problems, *verdicts, *_means(recorded.results)]
    where = f"memorybench verify {recorded.folder}"
    if problems:
        return Verification(False, f"{where}: does not hold: {'; '.join(problems)}")
    return Verification(True, f"{where}: holds: {files.files:,} files unchanged, {compared:,} verdicts {how}")


def _rescored(
    recorded: Recorded, replay: Callable[[Path], Settings], judge_cache: Path | None
) -> tuple[list[str], int]:
    """The items' verdicts against those a replay of the folder gives, and how many were compared."""
    items = recorded.results.get("items") or []
    scratch = Path(tempfile.mkdtemp(prefix="memorybench-verify-"))
    run = BenchmarkRun(open_run(replay(scratch), new_run_id(), scratch, judge_cache=judge_cache))
    try:
        context = run.context
        drifted = context.provenance.drift if context.provenance is not None else ()
        problems = [change.partition(": ")[2] for change in drifted]
        planned = [item for item in items if item["nodeid"] in context.tests]
        if len(planned) < len(items):
            problems.append(f"{len(items) - len(planned)} items of results.json are not in the run's plan")
        context.selection.select(item["nodeid"] for item in planned)
        again = {item["nodeid"]: _verdict(run, item["nodeid"]) for item in planned}
    finally:
        run.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return problems + _differing(planned, again, "when re-scored"), len(planned)


def _verdict(run: BenchmarkRun, key: str) -> float | None:
    outcome = run.outcome(key)
    return None if outcome.error is not None else outcome.score.value


def _against_shards(recorded: Recorded) -> list[str]:
    """A merged run's items against the records of the shards it merged (each shard is verified in
    its own folder)."""
    shards = read_shards(Path(folder) for folder in recorded.run["merged_from"])
    items = recorded.results.get("items") or []
    found = {key: record["score"] for key, record in shards.records.items()}
    missing = [item for item in items if item["nodeid"] not in found]
    problems = [f"{len(missing)} items are in none of its shards"] if missing else []
    return problems + _differing([item for item in items if item["nodeid"] in found], found, "in its shards")


def _differing(items: list[ItemRecord], again: Mapping[str, float | None], how: str) -> list[str]:
    """One phrase naming the items whose verdict `again` differs from the recorded one, if any."""
    differ = [item for item in items if not _same(item["score"], again.get(item["nodeid"]))]
    if not differ:
        return []
    shown = ", ".join(
        f"{item['nodeid']}: {_shown(item['score'])} recorded, {_shown(again.get(item['nodeid']))} {how}"
        for item in differ[:SHOWN]
    )
    more = f", and {len(differ) - SHOWN} more" if len(differ) > SHOWN else ""
    return [f"{len(differ)} of {len(items)} verdicts differ {how} ({shown}{more})"]


def _same(first: float | None, second: float | None) -> bool:
    if first is None or second is None:
        return first is None and second is None
    return math.isclose(first, second, abs_tol=TOLERANCE)


def _shown(score: float | None) -> str:
    return "an error" if score is None else f"{score:g}"


def _means(results: ResultsRecord) -> list[str]:
    """The suites' means results.json states against those of its own items."""
    items = results.get("items") or []
    recomputed = suite_stats(items, int(results["run"].get("seed", 0)))
    problems = []
    for name, stats in (results.get("suites") or {}).items():
        mean = recomputed[name]["mean"] if name in recomputed else None
        if not _same(stats.get("mean"), mean):
            problems.append(f"suite {name}'s mean {stats.get('mean')} is not its items' ({mean})")
    scores = [item["score"] for item in items if item["score"] is not None]
    total = round(sum(scores) / len(scores), 6) if scores else None
    if not _same(results["totals"].get("mean"), total):
        problems.append(f"the total mean {results['totals'].get('mean')} is not its items' ({total})")
    return problems
