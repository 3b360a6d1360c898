"""Drift refused: a run that continues, re-scores or joins another refuses when what it ran on changed.

A resume on a data file edited since, or under a judge whose prompts changed, would put two runs'
worth of answers or verdicts under one score and say nothing.  So `--mb-resume`, `--mb-replay` and
`--mb-merge` compare what they would run on now (`provenance.Provenance`) with what the earlier run
recorded in its run.json, and refuse in one line that says what changed:

- `--mb-resume`: the data, the suites' definitions, the answering prompts and the judge;
- `--mb-replay`: the data and the definitions, and the judge's version when it is the same judge
  (another judge is what a replay is for: re-judging, said in the header); no agent answers, so the
  answering prompts play no part;
- `--mb-merge`: every shard against the first on all four, and the data and definitions against now.

`--mb-allow-drift` lets the run go on; what changed is recorded in run.json and results.json
(`provenance.drift`).  A run folder written before runs recorded their provenance goes on with a
note: there is nothing to compare.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import UsageError, usage_error
from pytest_memorybench.runner.folder import Manifest, read_manifest

ALLOW = "--mb-allow-drift"
ALL_PARTS = ("data", "definitions", "answer_prompts", "judge")
REPLAYED = ("data", "definitions", "judge")  # no agent answers a replay: its prompts play no part


@dataclass(frozen=True)
class DriftCheck:
    """What the check found: the changes let through (`--mb-allow-drift`), and a note for the header
    (an earlier run that recorded nothing to compare, or a replay judged by another judge)."""

    changes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def changes(
    recorded: Mapping[str, Any],
    current: Mapping[str, Any],
    parts: Sequence[str] = ALL_PARTS,
    *,
    seeds: tuple[int | None, int] | None = None,
) -> list[str]:
    """What differs between two `provenance` records, one short phrase each ("then" is `recorded`).

    Each part counts where both record it (a run that asked no LLM judge recorded no judge prompts).
    `seeds`: (the earlier run's seed, now), named when the definitions differ.
    """
    found: list[str] = []
    if "data" in parts:
        found += _data_changes(recorded.get("data") or {}, current.get("data") or {})
    if "definitions" in parts and recorded.get("definitions") and current.get("definitions"):
        if recorded["definitions"] != current["definitions"]:
            seed = (
                f" (seed {seeds[0]} then, {seeds[1]} now: give --mb-seed {seeds[0]})"
                if seeds is not None and seeds[0] is not None and seeds[0] != seeds[1]
                else ""
            )
            found.append(f"the suites' definitions differ{seed}")
    if "answer_prompts" in parts:
        changed = _changed_keys(recorded.get("answer_prompts"), current.get("answer_prompts"))
        if changed:
            found.append(f"answering prompts {', '.join(changed)}")
    if "judge" in parts:
        found += judge_changes(recorded.get("judge") or {}, current.get("judge") or {})
    return found


def _data_changes(then: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    found = []
    for name in sorted(set(then) | set(now)):
        if name not in now:
            found.append(f"data {name} is not read now")
        elif name not in then:
            found.append(f"data {name} was not read by the run")
        elif then[name].get("sha256") != now[name].get("sha256"):
            before, after = str(then[name].get("sha256"))[:8], str(now[name].get("sha256"))[:8]
            found.append(f"data {name} sha256 {before}… then, {after}… now")
    return found


def judge_changes(
    then: Mapping[str, Any], now: Mapping[str, Any], *, version_only: bool = False
) -> list[str]:
    """How two planned judges differ; `version_only`: only a change of the same judge's version."""
    if not then or not now:
        return []
    if then.get("name") != now.get("name"):
        return [] if version_only else [f"judge {then.get('name')} then, {now.get('name')} now"]
    found = []
    if (
        then.get("local_version")
        and now.get("local_version")
        and then["local_version"] != now["local_version"]
    ):
        found.append(f"local judge rules {then['local_version']} then, {now['local_version']} now")
    changed = _changed_keys(then.get("prompts"), now.get("prompts"))
    if changed:
        found.append(f"judge prompts {', '.join(changed)}")
    return found


def _changed_keys(then: Any, now: Any) -> list[str]:
    if not isinstance(then, Mapping) or not isinstance(now, Mapping):
        return []
    return sorted(key for key in set(then) & set(now) if then[key] != now[key])


def refusal(flag: str, folder: Path, found: Sequence[str]) -> UsageError:
    """The one line a drifted run ends with."""
    return usage_error(
        f"{flag} {folder}: changed since that run: {'; '.join(found)}. Give it the data and options it ran"
        f" with, or {ALLOW} to go on anyway (what changed is recorded in run.json and results.json)"
    )


def check(
    flag: str,
    folder: Path,
    manifest: Manifest,
    current: Mapping[str, Any],
    *,
    seed: int,
    allow: bool,
    parts: Sequence[str] = ALL_PARTS,
    rejudging: bool = False,
) -> DriftCheck:
    """`current` against the run in `folder` that `flag` continues or re-scores, on `parts`; raises
    the one-line usage error when something changed, unless `allow`.  `rejudging` (a replay): another judge is
    no drift, only another version of the same judge is."""
    recorded = manifest.provenance
    if recorded is None:
        return DriftCheck(notes=(_unrecorded(flag, folder),))
    compared = [part for part in parts if not (rejudging and part == "judge")]
    found = changes(recorded, current, compared, seeds=(manifest.seed, seed))
    notes: tuple[str, ...] = ()
    if rejudging:
        recorded_judge = recorded.get("judge")
        then = recorded_judge if isinstance(recorded_judge, Mapping) else {}
        now = current.get("judge") or {}
        found += judge_changes(then, now, version_only=True)
        if then.get("name") and now.get("name") and then["name"] != now["name"]:
            notes = (f"re-judging with {now['name']}: the run was judged by {then['name']}",)
    if found and not allow:
        raise refusal(flag, folder, found)
    return DriftCheck(tuple(f"{flag}: {change}" for change in found), notes)


def check_shards(
    folders: Sequence[Path], current: Mapping[str, Any], *, seed: int, allow: bool
) -> DriftCheck:
    """`--mb-merge`: every shard's record against the first's, and the first's data and definitions
    against now (the merge asks no agent and no judge); raises the one-line usage error when something
    differs, unless `allow`."""
    manifests = [(folder, read_manifest(folder)) for folder in folders]
    unrecorded = [folder for folder, manifest in manifests if manifest.provenance is None]
    if unrecorded:
        return DriftCheck(notes=(_unrecorded("--mb-merge", unrecorded[0]),))
    first_folder, first = manifests[0]
    assert first.provenance is not None
    let_through: list[str] = []
    for folder, manifest in manifests[1:]:
        assert manifest.provenance is not None
        found = changes(first.provenance, manifest.provenance, seeds=(first.seed, manifest.seed or seed))
        if found and not allow:
            raise usage_error(
                f"--mb-merge: {folder} ran on other sources than {first_folder}: {'; '.join(found)}. Merge"
                f" the shards of one run, or give {ALLOW} to merge them anyway (recorded in results.json)"
            )
        let_through += [f"--mb-merge {folder}: {change}" for change in found]
    now = check(
        "--mb-merge", first_folder, first, current, seed=seed, allow=allow, parts=("data", "definitions")
    )
    return DriftCheck((*let_through, *now.changes), now.notes)


def _unrecorded(flag: str, folder: Path) -> str:
    return (
        f"{flag} {folder}: that run recorded no provenance (it was written before runs did), so its data,"
        " definitions, prompts and judge cannot be checked against now"
    )
