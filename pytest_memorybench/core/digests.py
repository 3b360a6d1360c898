"""sha256 of a file or a folder, streamed: what a run records of the data it read and the files it left.

A file's digest is the sha256 of its bytes.  A folder's is the sha256 of one line per file below
it, in the order of their relative paths (`/`-separated, compared as text):
`<relative path> NUL <size in bytes> NUL <the file's sha256> LF`.  So the same files with the same
contents give the same digest on every machine, and renaming, adding, removing or editing any file
changes it.  Entries whose name starts with a dot (`.git`, an editor's swap file, our own
temporary files) are left out, as are symbolic links to folders (a link to a file is read as the
file).  Each file is read once, a megabyte at a time.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CHUNK = 1 << 20


@dataclass(frozen=True)
class Digest:
    """What a file or a folder holds, in short: its sha256, its bytes and how many files it is."""

    sha256: str
    bytes: int
    files: int = 1
    folder: bool = False


def file_sha256(path: Path) -> tuple[str, int]:
    """The sha256 of a file's bytes and how many there were, read a megabyte at a time."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def files_below(folder: Path) -> Iterator[tuple[str, Path]]:
    """(relative path, path) of every file below `folder`, in the order of their relative paths,
    without entries whose name starts with a dot."""
    found = []
    for root, folders, names in os.walk(folder):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in names:
            if not name.startswith("."):
                path = Path(root, name)
                found.append((path.relative_to(folder).as_posix(), path))
    yield from sorted(found)


def digest(path: Path) -> Digest:
    """The digest of a file, or of a folder as the module says; OSError when it cannot be read."""
    if not path.is_dir():
        sha, size = file_sha256(path)
        return Digest(sha, size)
    lines = hashlib.sha256()
    total = count = 0
    for relative, file in files_below(path):
        sha, size = file_sha256(file)
        lines.update(f"{relative}\0{size}\0{sha}\n".encode())
        total += size
        count += 1
    return Digest(lines.hexdigest(), total, count, folder=True)


def human_size(size: int) -> str:
    """A size as a reader says it: 812 B, 2.8 MB, 1.4 GB (powers of 1000)."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"
