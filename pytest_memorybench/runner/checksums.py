"""A run folder's manifest.json: every file it holds, its size and sha256, written last at session end.

Anyone handed a run folder can then check that nothing in it changed since the run wrote it
(`pytest --mb-verify FOLDER`, `verify.py`): results.json, the event logs, the definitions, run.json,
the reports.  The manifest lists every file below the folder except those whose name starts with
a dot (the run's lock, temporary files) and itself; a resumed run writes it again when it ends.
It proves the files are the ones the run wrote, to whoever trusts the manifest: anyone who can
rewrite the files can rewrite it too, which is why verification also re-scores the logged replies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from pytest_memorybench.core.digests import file_sha256, files_below
from pytest_memorybench.core.files import write_atomically
from pytest_memorybench.core.readers import Malformed, read_json, reading, require

CHECKSUMS = "manifest.json"
SCHEMA = "memorybench.manifest/1"


def write_checksums(folder: Path, run_id: str) -> None:
    """manifest.json: each file of `folder` (but itself and dot files) with its size and sha256."""
    files: dict[str, ListedFile] = {}
    for relative, path in files_below(folder):
        if relative != CHECKSUMS:
            sha, size = file_sha256(path)
            files[relative] = ListedFile(bytes=size, sha256=sha)
    manifest = {
        "schema": SCHEMA,
        "run": run_id,
        "written": datetime.now(timezone.utc).isoformat(),
        "files": files,
    }
    write_atomically(folder / CHECKSUMS, json.dumps(manifest, indent=1) + "\n")


@dataclass(frozen=True)
class FileCheck:
    """What checking a folder against its manifest found: how many files held, and what did not."""

    files: int
    problems: tuple[str, ...]


def check_files(folder: Path) -> FileCheck:
    """Each file manifest.json lists, read again: missing, resized or rewritten ones, and files
    added since, each a short phrase; a manifest that is absent or unreadable is the one problem."""
    path = folder / CHECKSUMS
    if not path.is_file():
        unsealed = f"no {CHECKSUMS}: the run did not finish, or was written before runs listed their files"
        return FileCheck(0, (unsealed,))
    try:
        with reading(CHECKSUMS, error=_Unreadable):
            listed = _listed(read_json(path))
    except _Unreadable as exc:
        return FileCheck(0, (str(exc),))
    problems = []
    present = {relative: file for relative, file in files_below(folder) if relative != CHECKSUMS}
    for relative, expected in listed.items():
        file = present.get(relative)
        if file is None:
            problems.append(f"{relative} is missing")
            continue
        sha, size = file_sha256(file)
        if (sha, size) != (expected["sha256"], expected["bytes"]):
            problems.append(f"{relative} changed (sha256 {expected['sha256'][:8]}… then, {sha[:8]}… now)")
    problems += [f"{relative} was added" for relative in sorted(set(present) - set(listed))]
    return FileCheck(len(listed), tuple(problems))


class _Unreadable(Exception):
    """manifest.json cannot be read, or is not a manifest: the one line verification reports."""


class ListedFile(TypedDict):
    """A file as manifest.json lists it."""

    bytes: int
    sha256: str


def _listed(raw: Any) -> dict[str, ListedFile]:
    require(isinstance(raw, dict) and raw.get("schema") == SCHEMA, f"not a {SCHEMA} manifest")
    files: dict[str, ListedFile] = raw.get("files")
    require(isinstance(files, dict), "'files' is not a mapping")
    for name, entry in files.items():
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("sha256"), str)
            and type(entry.get("bytes")) is int
        ):
            raise Malformed(f"files.{name}: expected its bytes and sha256")
    return files
