"""The workspace an agent that edits files gets for an sdebench task: read, list, grep, write, run,
and the repository's log.

An agent with `edit(message, workspace)` is handed this instead of being asked for the module in its
reply: a temporary copy of the task's package with the bug at HEAD and its visible tests (never the
hidden one), and the log of the commits planted on the host (`log()`, newest first, as `git log`
shows them: where a `history` task's decision is).  Its tools are plain methods (`tools` maps
each name to it, for an agent that offers them to a model as functions); a path outside the copy
is refused.  `run_tests` grades the module
as it stands by the visible layers only, in the same fenced child as the grader.  When the agent
is done, only the module the task asks to fix is taken (test edits are ignored, as sde-bench's
grader ignores them) and graded by all three layers in a fresh copy.
"""

from __future__ import annotations

import builtins
import dataclasses
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_memorybench.scenarios.sdebench.grading import grade
from pytest_memorybench.scenarios.sdebench.task import Task

GREP_LIMIT = 200  # matching lines a grep returns


class Workspace:
    """A task's files, for one agent's edits; `close()` removes them."""

    def __init__(self, task: Task, timeout: float) -> None:
        self._task = task  # holds the decided fix and the hidden test: not the agent's to read
        self.timeout = timeout
        self.root = Path(tempfile.mkdtemp(prefix="mb-sdebench-workspace-"))
        for path, text in {**task.files.sources, task.module: task.bug, **task.visible_tests}.items():
            self.write(path, text)

    @property
    def tools(self) -> dict[str, Callable[..., Any]]:
        """The workspace's tools by name: read, list, grep, write, run_tests, log."""
        return {
            "read": self.read,
            "list": self.list,
            "grep": self.grep,
            "write": self.write,
            "run_tests": self.run_tests,
            "log": self.log,
        }

    def read(self, path: str) -> str:
        """The text of the file at `path` (relative to the repository's root)."""
        return self._path(path).read_text(encoding="utf-8")

    def list(self, folder: str = ".") -> list[str]:
        """The files under `folder`, as paths from the root."""
        base = self._path(folder)
        return sorted(str(p.relative_to(self.root)) for p in base.rglob("*") if p.is_file())

    def grep(self, pattern: str, folder: str = ".") -> builtins.list[str]:  # `list` is a tool here
        """Lines matching the regular expression `pattern`, as `path:line: text`."""
        found: builtins.list[str] = []
        expression = re.compile(pattern)
        for path in self.list(folder):
            for number, line in enumerate(self.read(path).splitlines(), 1):
                if expression.search(line):
                    found.append(f"{path}:{number}: {line}")
                    if len(found) >= GREP_LIMIT:
                        return found
        return found

    def write(self, path: str, text: str) -> None:
        """Write `text` to the file at `path`, creating its folders."""
        target = self._path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    async def run_tests(self) -> str:
        """The visible tests (the existing ones and the repro) on the module as it stands."""
        files = self._task.files
        visible = dataclasses.replace(
            files,
            tests=self._task.visible_tests,
            layers={layer: paths for layer, paths in files.layers.items() if layer != "hidden"},
        )
        verdict = await grade(visible, self.module(), timeout=self.timeout)
        if all(verdict.layers.values()):
            return "the visible tests pass"
        return verdict.output or "the visible tests fail"

    def log(self) -> str:
        """The repository's commits, newest first: author, subject and body, as `git log` shows."""
        entries = []
        for number, commit in reversed(list(enumerate(self._task.commits, 1))):
            body = "".join(f"\n    {line}" for line in commit.body.splitlines())
            entries.append(
                f"commit {number}\nAuthor: {commit.author}\n\n    {commit.subject}\n{body}".rstrip()
            )
        return "\n\n".join(entries)

    def module(self) -> str:
        """The module the task asks to fix, as the agent left it."""
        path = self._path(self._task.module)
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    def answer(self, said: str) -> str:
        """The agent's reply as the run keeps it: what it said, then the module it left, fenced
        (what the grader reads, so a replayed run grades the same module)."""
        return f"{said.rstrip()}\n\n`{self._task.module}` after the edits:\n```python\n{self.module()}```\n"

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def _path(self, path: str) -> Path:
        target = (self.root / path).resolve()
        if target != self.root.resolve() and self.root.resolve() not in target.parents:
            raise PermissionError(f"{path!r} is outside the workspace")
        return target


__all__ = ["Workspace"]
