"""A task's host repository built on boltons from its package: sde-bench's commits, HEAD buggy."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_memorybench.scenarios.sdebench.generator import generated_tasks
from pytest_memorybench.scenarios.sdebench.host import build_host, main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
TASKS = {task.id: task for task in generated_tasks()}


def _boltons(tmp_path: Path) -> Path:
    package = tmp_path / "site" / "boltons"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""A stand-in for boltons\' package."""\n')
    (package / "strutils.py").write_text("def slugify(text):\n    return text.lower()\n")
    return package


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def test_a_history_task_keeps_its_decision_in_the_log_and_its_bug_at_head(tmp_path: Path) -> None:
    task = TASKS["gen-postage-history"]
    out = build_host(task, tmp_path / "repo", _boltons(tmp_path))
    assert _git(out, "log", "--format=%s").splitlines() == [
        "perf: simplify rates",
        "docs: changelog housekeeping",
        "fix: charge postage by started block and refuse weightless parcels",
        "feat: add parcelpost module",
        "boltons from its package",
    ]
    assert (out / task.module).read_text() == task.bug
    assert _git(out, "show", f"HEAD~2:{task.module}") == task.correct
    assert (out / "boltons" / "strutils.py").is_file()
    assert _git(out, "status", "--porcelain").splitlines() == ["?? tests/test_regression.py"]
    everything = _git(out, "log", "-p", "--all") + "".join(p.read_text() for p in out.rglob("*.py"))
    assert task.files.tests["tests/test_hidden.py"] not in everything


def test_a_conversation_task_has_no_decision_in_the_repository(tmp_path: Path) -> None:
    task = TASKS["gen-stockmerge"]
    out = build_host(task, tmp_path / "repo", _boltons(tmp_path))
    assert _git(out, "log", "--format=%s").splitlines() == [
        "feat: add stockroom module",
        "boltons from its package",
    ]
    assert "back-order" not in _git(out, "log", "-p").lower()


def test_the_command_says_what_is_wrong_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gen-nothing", str(tmp_path / "a")]) == 4
    assert capsys.readouterr().err.startswith("error: no task 'gen-nothing'; the tasks: gen-backoff")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    assert main(["gen-postage", str(tmp_path / "full"), "--boltons", str(_boltons(tmp_path))]) == 4
    assert "is not empty" in capsys.readouterr().err
