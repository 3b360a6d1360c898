"""Where a run ran: the platform, and the commit of a checkout read from its .git without git."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest_memorybench
from pytest_memorybench.core.environment import (
    checkout_commit,
    distribution_version,
    package_record,
    platform_record,
)

COMMIT = "3f2a1b2c" * 5
OTHER = "9b8c7d6e" * 5


def _repository(root: Path, head: str = "ref: refs/heads/main\n") -> Path:
    git = root / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text(head)
    return git


def test_a_branch_checkout_names_its_branchs_commit(tmp_path: Path) -> None:
    git = _repository(tmp_path)
    (git / "refs" / "heads" / "main").write_text(COMMIT + "\n")
    assert checkout_commit(tmp_path) == COMMIT


def test_a_packed_branch_and_a_detached_head(tmp_path: Path) -> None:
    git = _repository(tmp_path)
    (git / "packed-refs").write_text(
        f"# pack-refs with: peeled\n{OTHER} refs/heads/other\n{COMMIT} refs/heads/main\n"
    )
    assert checkout_commit(tmp_path) == COMMIT
    (git / "HEAD").write_text(OTHER + "\n")
    assert checkout_commit(tmp_path) == OTHER


def test_a_worktree_reads_its_own_head_and_the_shared_branches(tmp_path: Path) -> None:
    main = _repository(tmp_path / "main")
    (main / "refs" / "heads" / "feature").write_text(OTHER + "\n")
    worktree_git = main / "worktrees" / "feature"
    worktree_git.mkdir(parents=True)
    (worktree_git / "HEAD").write_text("ref: refs/heads/feature\n")
    (worktree_git / "commondir").write_text("../..\n")
    checkout = tmp_path / "feature"
    checkout.mkdir()
    (checkout / ".git").write_text(f"gitdir: {worktree_git}\n")
    assert checkout_commit(checkout) == OTHER


def test_no_checkout_or_an_unreadable_head_records_no_commit(tmp_path: Path) -> None:
    assert checkout_commit(tmp_path) is None  # a wheel's site-packages
    _repository(tmp_path, head="ref: refs/heads/gone\n")
    assert checkout_commit(tmp_path) is None
    (tmp_path / ".git" / "HEAD").write_text("not a commit\n")
    assert checkout_commit(tmp_path) is None


def test_the_platform_and_package_records() -> None:
    assert platform_record()["python"] == platform.python_version()
    assert package_record()["version"] == pytest_memorybench.__version__
    assert distribution_version("pytest") is not None
    assert distribution_version("no-such-distribution-here") is None
