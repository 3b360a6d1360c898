"""Every command the manual shows is run here as written, so the manual cannot drift from the code.

A command is a line of a shell block (indented or fenced) in README.md or docs/ that starts with
`pytest`, `python` or `mkdocs`. Each block runs in a fresh folder holding a copy of `examples/`,
its commands in order (a second command sees the first one's run folder), and must end as a run
does: exit 0, or 1 when items or a gate failed, never a usage error or a crash. The output a page
shows for it (the block's lines after its last command, or a later block headed `<!-- output -->`)
must appear, in order (`…` stands for anything). A block that cannot run here says why on the line
before it:
`<!-- not run: needs OPENAI_API_KEY -->`. An install line (`pip install …`) is not run; the extras
it names must exist.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import tomllib

from tests.support.paths import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
COMMAND = re.compile(r"^(\w+=\S+\s+)*(pytest|python3?|mkdocs|ruff|mypy|pre-commit)\b")  # what a reader types
RUNS_HERE = ("pytest", "python", "python3", "mkdocs")  # what this test can run
INSTALL = re.compile(r"^(CMAKE_ARGS=\S+ )?pip install ")
NOT_RUN = re.compile(r"<!--\s*not run:\s*(\S.*?)\s*-->")
OUTPUT = re.compile(r"<!--\s*output\s*-->")
SECONDS = 600

pytestmark = [pytest.mark.docs]


@dataclass
class Block:
    page: Path
    line: int  # 1-based, the block's first line
    lines: list[str]
    not_run: str | None = None
    is_output: bool = False  # headed <!-- output -->: what the command block before it prints
    output: list[str] = field(default_factory=list)  # what the page shows its commands print

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"

    @property
    def commands(self) -> list[str]:
        """The block's commands, continuation lines joined and trailing comments dropped."""
        joined: list[str] = []
        for raw in self.lines:
            line = raw.rstrip()
            if joined and joined[-1].endswith("\\"):
                joined[-1] = joined[-1][:-1] + " " + line.strip()
            else:
                joined.append(line.strip())
        return [_without_comment(line) for line in joined if COMMAND.match(line)]

    @property
    def installs(self) -> list[str]:
        return [line.strip() for line in self.lines if INSTALL.match(line.strip())]


def _without_comment(line: str) -> str:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return shlex.join(list(lexer))


def _blocks(page: Path) -> list[Block]:
    """The page's code blocks, each with the comment before it and the output block after it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        if line.startswith("```"):
            language = line[3:].strip()
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            body, start, i = lines[i + 1 : end], i + 1, end + 1
            if language not in ("", "bash", "sh", "shell", "console", "text"):
                continue
        elif line.startswith("    ") and (i == 0 or not lines[i - 1].strip()) and not _in_list(lines, i):
            start = i
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                i += 1
            body = [text[4:] for text in lines[start:i]]
            while body and not body[-1].strip():
                body.pop()
        else:
            i += 1
            continue
        not_run = NOT_RUN.search(before)
        found.append(
            Block(page, start + 1, body, not_run.group(1) if not_run else None, bool(OUTPUT.search(before)))
        )
    last_command: Block | None = None
    for block in found:
        if block.commands:
            last_command = block
            end = max(i for i, line in enumerate(block.lines) if COMMAND.match(line.strip()))
            while block.lines[end].rstrip().endswith("\\"):  # the command goes on
                end += 1
            block.output = block.lines[end + 1 :]
        elif block.is_output and last_command is not None:
            last_command.output = block.lines
    return found


def _in_list(lines: list[str], i: int) -> bool:
    """An indented line that continues a list item is text, not code."""
    for j in range(i - 1, -1, -1):
        if not lines[j].strip():
            continue
        return bool(re.match(r"^\s*([-*]|\d+\.)\s", lines[j])) and not lines[j].startswith("    ")
    return False


ALL_BLOCKS = [block for page in PAGES for block in _blocks(page)]
RUNNABLE = [block for block in ALL_BLOCKS if block.commands and block.not_run is None]


def _alike(blocks: list[Block]) -> list[list[Block]]:
    """The blocks grouped by their commands: pages that show the same commands (the README and the
    page it summarises) are run once, and what each page shows is looked for in that output."""
    groups: dict[tuple[str, ...], list[Block]] = {}
    for block in blocks:
        groups.setdefault(tuple(block.commands), []).append(block)
    return list(groups.values())


ALIKE = _alike(RUNNABLE)


def test_the_pages_show_commands_and_each_runs_or_says_why_not() -> None:
    assert len(RUNNABLE) >= 15, [block.where for block in RUNNABLE]
    for block in ALL_BLOCKS:
        if block.not_run is not None:
            assert block.commands, f"{block.where}: 'not run' above a block with no command"


def test_the_extras_the_install_lines_name_exist() -> None:
    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    lines = [line for block in ALL_BLOCKS for line in block.installs]
    assert lines
    for line in lines:
        named = re.search(r"\.\[([\w,-]+)\]", line)
        assert named is None or set(named.group(1).split(",")) <= extras, line


@pytest.mark.parametrize("blocks", ALIKE, ids=["+".join(block.where for block in alike) for alike in ALIKE])
def test_the_command_runs_as_written(blocks: list[Block], tmp_path: Path) -> None:
    block = blocks[0]
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    env["NO_MKDOCS_2_WARNING"] = "1"
    output = ""
    for command in block.commands:
        argv = shlex.split(command)
        assert argv[0] in RUNS_HERE, f"{block.where}: `{command}` cannot run here: mark its block not run"
        argv = (
            [sys.executable, "-m", argv[0], *argv[1:]]
            if argv[0] in ("pytest", "mkdocs")
            else [sys.executable, *argv[1:]]
        )
        if argv[2:3] == ["mkdocs"]:
            argv += ["--config-file", str(REPO / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")]
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=SECONDS)
        output = done.stdout + done.stderr
        assert done.returncode in (0, 1), (
            f"{block.where}: `{command}` exited {done.returncode}:\n{output[-3000:]}"
        )
        assert "Traceback" not in output and "INTERNALERROR" not in output, (
            f"{block.where}: `{command}`:\n{output[-3000:]}"
        )
    for alike in blocks:
        if alike.output:
            _shown_in(alike.output, output, alike.where)


def _shown_in(shown: list[str], output: str, where: str) -> None:
    """Each line the page shows appears in the output, in order; `…` stands for anything."""
    produced = output.splitlines()
    at = 0
    for line in shown:
        if not line.strip() or line.strip() == "…":
            continue
        pattern = re.sub(r"\s+", " ", line.strip()).replace("[", "[[]").replace("…", "*")
        for index in range(at, len(produced)):
            if fnmatch.fnmatchcase(re.sub(r"\s+", " ", produced[index].strip()), pattern):
                at = index + 1
                break
        else:
            raise AssertionError(
                f"{where}: the output shown has\n  {line.strip()}\nwhich the command did not"
                f" print:\n{output[-3000:]}"
            )
