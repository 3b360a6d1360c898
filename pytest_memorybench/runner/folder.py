"""The run folder: claimed by one run at a time, its manifest and definitions read back with care.

A run folder outlives its run: `--mb-resume` continues it, `--mb-replay` and `--mb-definitions`
read it, and any of them may meet a folder another version wrote, a file cut short by a full disk,
or someone's edits.  Reading it is checked (one line per problem); writing it is claimed with a
lock, so two runs never interleave their events in one folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from pytest_memorybench.contract.probes import file_stem
from pytest_memorybench.core.errors import UsageError, usage_error
from pytest_memorybench.core.files import write_atomically
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.readers import Malformed, read_json, reading, require
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.core.spans import Span, parse_span

MANIFEST = "run.json"
LOCK = ".lock"

MAX_CONVERSATIONS = 1000  # per suite; a suite has fewer tests than that to deal out
MAX_SHARDS = 1000


@dataclass(frozen=True)
class Manifest:
    """What `run.json` says about a run: enough to continue or re-score it as it was planned."""

    id: str
    clock_start: datetime
    spans: dict[str, Span]
    conversations: int
    shard: tuple[int, int] | None = None  # (index, count) when the run was one part of a split run
    suites: tuple[
        str, ...
    ] = ()  # the suites it ran, as --mb-suite names them (older folders: its spans' names)
    data: dict[str, str] = field(default_factory=dict)  # the data files it read (--mb-data)
    profile: str | None = None  # the scoring profile it ran under (older folders: not recorded)
    no_context: bool = False  # its questions were asked with no context delivered (--mb-no-context)
    # what it ran on (runner/provenance.py): data digests, definitions, prompts, judge; None in folders
    # written before runs recorded it
    provenance: JsonObject | None = None
    seed: int | None = None

    @property
    def revisions(self) -> dict[str, str]:
        """The revisions the user gave of its data files (`--mb-data NAME=PATH@REVISION`)."""
        data = (self.provenance or {}).get("data")
        return {
            name: revision
            for name, record in (data.items() if isinstance(data, Mapping) else ())
            if isinstance(record, Mapping) and isinstance(revision := record.get("revision"), str)
        }

    options: JsonObject = field(default_factory=dict)  # the options a resume takes (runner.resumed)
    selected: tuple[str, ...] | None = None  # the tests pytest selected (-k, -m, ...); None: not recorded


def read_manifest(folder: Path) -> Manifest:
    """The manifest of an earlier run's folder, checked; one line when it is not one this tool wrote."""
    path = folder / MANIFEST
    with reading(str(path), "give a run folder this tool wrote, or start a new run"):
        raw = read_json(path)
        require(isinstance(raw, dict), "not a run manifest (a JSON object was expected)")
        require(isinstance(raw.get("id"), str) and raw["id"], "no run id in it")
        require(isinstance(raw.get("clock_start"), str), "no clock_start in it")
        spans = raw.get("spans", {})
        require(isinstance(spans, dict), "'spans' is not a mapping")
        conversations = raw.get("conversations", 1)
        require(
            isinstance(conversations, int) and 1 <= conversations <= MAX_CONVERSATIONS,
            f"'conversations' is not a number from 1 to {MAX_CONVERSATIONS}",
        )
        part = _shard_part(raw.get("shard"))
        suites = raw.get("suites", list(spans)) or []  # null: re-scored published results, no suite to name
        require(
            isinstance(suites, list) and all(isinstance(name, str) for name in suites),
            "'suites' is not a list of names",
        )
        data = raw.get("data") or {}
        require(
            isinstance(data, dict) and all(isinstance(path, str) for path in data.values()),
            "'data' is not a mapping of paths",
        )
        provenance = raw.get("provenance")
        require(provenance is None or isinstance(provenance, dict), "'provenance' is not a mapping")
        options = raw.get("options") or {}
        require(isinstance(options, dict), "'options' is not a mapping")
        selected = raw.get("selected")
        require(
            selected is None or (isinstance(selected, list) and all(isinstance(k, str) for k in selected)),
            "'selected' is not a list of test ids",
        )
        return Manifest(
            raw["id"],
            datetime.fromisoformat(raw["clock_start"]),
            _spans(spans),
            conversations,
            part,
            tuple(suites),
            dict(data),
            raw["profile"] if isinstance(raw.get("profile"), str) else None,
            raw.get("no_context") is True,
            provenance,
            raw["seed"] if type(raw.get("seed")) is int else None,
            dict(options),
            tuple(selected) if selected is not None else None,
        )


def _shard_part(shard: object) -> tuple[int, int] | None:
    """A manifest's (index, count) of its shard, or None for a run that is not a shard."""
    if shard is None:
        return None
    index, count = (shard.get("index"), shard.get("count")) if isinstance(shard, dict) else (None, None)
    if not (type(index) is int and type(count) is int and 1 <= index <= count <= MAX_SHARDS):
        raise Malformed(f"'shard' needs an index and a count, 1 <= index <= count <= {MAX_SHARDS}")
    return index, count


def _spans(raw: Mapping[str, object]) -> dict[str, Span]:
    try:
        return {str(name): parse_span(str(span)) for name, span in raw.items()}
    except UsageError as exc:
        raise Malformed(f"'spans': {exc}") from None


def definition_path(folder: Path, definition: TestDefinition) -> Path:
    """Where a run folder keeps a test's definition."""
    return folder / "definitions" / definition.suite / f"{file_stem(definition.test_id)}.json"


def load_definition(folder: Path, generated: TestDefinition) -> TestDefinition:
    """The definition a previous run saved for the test `generated` stands for."""
    path = definition_path(folder, generated)
    if not path.exists():
        raise usage_error(
            f"{path} is missing: that run did not define {generated.suite}::{generated.test_id}"
        )
    with reading(f"definition file {path}", "give the folder of a run that finished planning"):
        return TestDefinition.from_dict(read_json(path))


def write_plan(folder: Path, definitions: Iterable[TestDefinition], manifest: JsonObject) -> None:
    """Every definition, then the manifest that makes the folder a run folder."""
    for definition in definitions:
        write_atomically(definition_path(folder, definition), definition.to_json())
    write_atomically(folder / MANIFEST, json.dumps(manifest, indent=2) + "\n")


def update_manifest(folder: Path, **fields: Any) -> None:
    """Add `fields` to the run.json a run planned (what it selected, what a resume ran with)."""
    manifest = read_json(folder / MANIFEST)
    write_atomically(folder / MANIFEST, json.dumps({**manifest, **fields}, indent=2) + "\n")


def claim(folder: Path, flag: str) -> FileLock:
    """Create `folder` if need be and lock it for this run, or say in one line why it cannot be.

    The lock is an OS file lock: it ends with the process, so a run killed with -9 leaves no stale
    lock behind.  xdist workers write into their controller's claim and take none of their own.
    """
    if folder.exists() and not folder.is_dir():
        raise usage_error(f"{flag} {folder}: a file is there, not a folder; give a folder for the run")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = FileLock(folder / LOCK)
        lock.acquire(timeout=0)
    except Timeout:
        raise usage_error(
            f"{flag} {folder}: another pytest-memorybench run is using this folder; "
            "wait for it to end, or give another folder"
        ) from None
    except OSError as exc:
        raise usage_error(
            f"{flag} {folder}: cannot write there ({exc.strerror or exc}); give a folder you can write to"
        ) from None
    return lock


LEVELS = "levels.json"


def write_levels(folder: Path, concurrency: Mapping[str, Any]) -> None:
    """The level `--mb-concurrency auto` ended at for each provider (results.json's record), kept
    small beside the results for the next run to start from: where xdist workers each measured a
    provider, the lowest of their levels."""
    levels: dict[str, int] = {}
    for provider in concurrency.get("providers", []):
        name, level = str(provider["provider"]), int(provider["level"])
        levels[name] = min(level, levels.get(name, level))
    if levels:
        write_atomically(folder / LEVELS, json.dumps(levels, indent=1, sort_keys=True) + "\n")


def remembered_levels(folder: Path, *, resumed: bool) -> dict[str, int]:
    """The levels `write_levels` kept in the run `folder` continues (`resumed`), or else in the
    newest run beside it: a run that starts there skips the climb a short run would spend most of
    its time on.  A file that cannot be read is passed over: a head start is never a reason to stop.
    """
    if resumed:
        found = [folder / LEVELS]
    else:
        try:
            found = [path / LEVELS for path in folder.parent.iterdir() if path != folder]
        except OSError:
            return {}
        found = sorted((path for path in found if path.is_file()), key=_modified, reverse=True)
    for path in found:
        try:
            levels = json.loads(path.read_text())
            return {str(name): max(1, int(level)) for name, level in levels.items()}
        except (OSError, ValueError, TypeError, AttributeError):
            continue
    return {}


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
