"""`--mb-data NAME=PATH`, or `NAME=PATH@REVISION`: the data files a run reads, and the revision of
each that the user names (a tag or a commit of the authors' repository), which the run records
beside the file's sha256 (`runner/provenance.py`)."""

from __future__ import annotations

from pathlib import Path

from pytest_memorybench.core.errors import usage_error


def data_paths(values: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """`--mb-data NAME=PATH` or `NAME=PATH@REVISION`: the paths, and the revisions given."""
    paths, revisions = {}, {}
    for value in values:
        name, sep, given = value.partition("=")
        if not sep or not name or not given:
            raise usage_error(
                f"--mb-data {value!r}: expected NAME=PATH, e.g. --mb-data chapterbreak=data/chapterbreak.json"
            )
        path, revision = split_revision(given)
        if not Path(path).exists():
            raise usage_error(
                f"--mb-data {value}: {path} does not exist; give the path of the data file or folder"
            )
        paths[name] = str(Path(path).resolve())
        if revision:
            revisions[name] = revision
    return paths, revisions


def split_revision(given: str) -> tuple[str, str | None]:
    """PATH, or PATH@REVISION: (path, revision or None).

    A path may hold an `@` itself (`data@2024/locomo.json`), so the text is a path with a revision
    only when it does not name an existing file or folder as it stands, and the part after its last
    `@` is a revision: not empty, with no `/` or `\\` (a path's separators).
    """
    path, at, revision = given.rpartition("@")
    if not at or Path(given).exists() or not path or not revision or "/" in revision or "\\" in revision:
        return given, None
    return path, revision
