"""Where a run ran: the platform, this package's version and, from a checkout, its git commit.

A score is checked by running it again, so a run records what it ran on.  The commit is read from
the checkout's `.git` (its HEAD, the branch file it names or `packed-refs`), without running git;
a package installed from a wheel has no checkout beside it and records none.
"""

from __future__ import annotations

import importlib.metadata
import platform
from pathlib import Path

import pytest_memorybench

_HEX = frozenset("0123456789abcdef")


def platform_record() -> dict[str, str]:
    """The Python and the operating system this process runs on."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "os": platform.platform(),
        "machine": platform.machine(),
    }


def package_record() -> dict[str, str | None]:
    """This package's version, and its git commit when it runs from a checkout (else None)."""
    return {"version": pytest_memorybench.__version__, "commit": checkout_commit(_package_root())}


def distribution_version(name: str) -> str | None:
    """The installed version of distribution `name` (a product's SDK), or None when it is not installed."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _package_root() -> Path:
    return Path(pytest_memorybench.__file__).resolve().parent.parent


def checkout_commit(root: Path) -> str | None:
    """The commit `root`'s checkout has out, read from its `.git` (a folder, or a worktree's file
    naming one); None when `root` is no checkout or its HEAD cannot be read."""
    try:
        git = _git_folder(root / ".git")
        if git is None:
            return None
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref:"):
            return head if _is_commit(head) else None
        ref = head.partition(":")[2].strip()
        common = _common_folder(git)
        for folder in dict.fromkeys((git, common)):
            path = folder / ref
            if path.is_file():
                value = path.read_text(encoding="utf-8").strip()
                return value if _is_commit(value) else None
        return _packed(common / "packed-refs", ref)
    except (OSError, UnicodeDecodeError):
        return None


def _git_folder(dot_git: Path) -> Path | None:
    """The git folder: `.git` itself, or the one a worktree's `.git` file names (`gitdir: PATH`)."""
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        text = dot_git.read_text(encoding="utf-8").strip()
        if text.startswith("gitdir:"):
            folder = Path(text.partition(":")[2].strip())
            return folder if folder.is_absolute() else (dot_git.parent / folder).resolve()
    return None


def _common_folder(git: Path) -> Path:
    """Where a worktree's branches are kept: the folder its `commondir` names, or its own."""
    common = git / "commondir"
    if common.is_file():
        folder = Path(common.read_text(encoding="utf-8").strip())
        return folder if folder.is_absolute() else (git / folder).resolve()
    return git


def _packed(path: Path, ref: str) -> str | None:
    if not path.is_file():
        return None
    for line in path.read_text(encoding="utf-8").splitlines():
        value, _, name = line.partition(" ")
        if name.strip() == ref and _is_commit(value):
            return value
    return None


def _is_commit(value: str) -> bool:
    return len(value) in (40, 64) and set(value) <= _HEX
