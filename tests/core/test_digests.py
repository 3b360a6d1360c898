"""The digests a run records of its data: a file's is hashlib's sha256 of its bytes; a folder's
changes with any file in it, and only with what a reader would call its content."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pytest_memorybench.core.data_paths import data_paths, split_revision
from pytest_memorybench.core.digests import CHUNK, digest, human_size
from pytest_memorybench.core.errors import UsageError


def test_a_files_digest_is_the_sha256_of_its_bytes_read_in_chunks(tmp_path: Path) -> None:
    data = bytes(range(256)) * (CHUNK // 256 * 2 + 3)  # more than two chunks
    path = tmp_path / "locomo10.json"
    path.write_bytes(data)
    found = digest(path)
    assert found.sha256 == hashlib.sha256(data).hexdigest()
    assert (found.bytes, found.files, found.folder) == (len(data), 1, False)


def _folder(root: Path) -> Path:
    (root / "evidence" / "user_evidence").mkdir(parents=True)
    (root / "evidence" / "user_evidence" / "1.json").write_text('{"q": "Where?"}')
    (root / "filler.json").write_text("[]")
    return root


def test_a_folders_digest_follows_its_files_paths_and_contents(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "data")
    first = digest(folder)
    assert (first.files, first.bytes, first.folder) == (2, len('{"q": "Where?"}') + 2, True)
    lines = "".join(
        f"{relative}\0{len(content)}\0{hashlib.sha256(content.encode()).hexdigest()}\n"
        for relative, content in (("evidence/user_evidence/1.json", '{"q": "Where?"}'), ("filler.json", "[]"))
    )
    assert first.sha256 == hashlib.sha256(lines.encode()).hexdigest()  # the rule the docs state
    assert digest(_folder(tmp_path / "copy")) == first  # the same files elsewhere: the same digest

    (folder / "evidence" / "user_evidence" / "1.json").write_text('{"q": "Where now?"}')
    edited = digest(folder)
    assert edited.sha256 != first.sha256
    (folder / "filler.json").rename(folder / "filler2.json")
    assert digest(folder).sha256 not in (first.sha256, edited.sha256)


def test_dot_files_and_folders_are_left_out(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "data")
    before = digest(folder)
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / ".filler.json.swp").write_text("x")
    assert digest(folder) == before


def test_sizes_read_as_a_reader_says_them() -> None:
    assert [human_size(n) for n in (812, 2_805_274, 1_400_000_000)] == ["812 B", "2.8 MB", "1.4 GB"]


def test_a_revision_is_split_from_the_path_only_where_the_path_is_not_one_already(tmp_path: Path) -> None:
    data = tmp_path / "data@2024" / "locomo10.json"
    data.parent.mkdir()
    data.write_text("[]")
    assert split_revision(f"{data}@v1.2") == (str(data), "v1.2")
    assert split_revision(str(data)) == (str(data), None)  # an @ in a folder's name is the path's
    odd = tmp_path / "odd@name.json"
    odd.write_text("[]")
    assert split_revision(str(odd)) == (str(odd), None)  # the whole exists: no revision taken from it
    assert split_revision(f"{tmp_path}/data@2024/missing.json") == (
        f"{tmp_path}/data@2024/missing.json",
        None,
    )
    assert split_revision(f"{data}@") == (f"{data}@", None)


def test_data_paths_keep_the_revisions_given(tmp_path: Path) -> None:
    data = tmp_path / "locomo10.json"
    data.write_text("[]")
    paths, revisions = data_paths([f"locomo={data}@3f2a1b2", f"beam={data}"])
    assert paths == {"locomo": str(data), "beam": str(data)}
    assert revisions == {"locomo": "3f2a1b2"}
    with pytest.raises(UsageError, match=r"missing.json does not exist"):
        data_paths([f"locomo={tmp_path}/missing.json@v1"])
