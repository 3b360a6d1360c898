"""What each failure gives the user: every row of docs/failures.md is a drill run here.

Each drill sets up one bad input or fault, runs the plugin as a user would (a fresh process), and
checks the promise: the exit code, and one line saying what is wrong and what to do, with no
traceback and no INTERNALERROR.  The line it printed goes into the table; the last test checks
docs/failures.md against it (`MB_WRITE_FAILURES=1 pytest tests/test_failure_table.py` rewrites it).
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_memorybench.runner.folder import claim
from tests.support.paths import DOCS, FIXTURES

pytestmark = pytest.mark.e2e

DOC = DOCS / "failures.md"
BASE = ("-p", "no:randomly", "-p", "no:cacheprovider", "--memorybench")
QUICK = (*BASE, "--agent=recall", "--span=isolated", "-k", "colours")
AGENTS = """
import os, signal, time
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent

def raises():
    def reply(text):
        raise ConnectionError("model server refused the connection")
    return reply

def none():
    return lambda text: None

def hangs():
    return lambda text: time.sleep(3600)

class Stopping(ExtractiveAgent):
    replies = 0

    async def reply(self, message):
        self.replies += 1
        if self.replies == 6:
            os.kill(os.getpid(), getattr(signal, os.environ["MB_SIGNAL"]))
        return await super().reply(message)

def stopping():
    return Stopping()
"""


@dataclass(frozen=True)
class Drill:
    situation: str
    args: tuple[str, ...]
    exit_code: int
    line: str  # a regular expression for the line the user must see
    setup: Callable[[Path], None] = lambda folder: None
    env: dict[str, str] = field(default_factory=dict)
    file_size_limit: int | None = None  # bytes: the disk "fills up" there


def _write(name: str, content: bytes | str) -> Callable[[Path], None]:
    def setup(folder: Path) -> None:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())

    return setup


def _earlier_run(folder: Path) -> None:
    """A run folder whose run read chapterbreak.json before it was edited (another sha256)."""
    data = folder / "chapterbreak.json"
    data.write_text((FIXTURES / "chapterbreak_mini.json").read_text(encoding="utf-8"), encoding="utf-8")
    source = {
        "path": str(data),
        "sha256": "0" * 64,
        "bytes": 1,
        "files": 1,
        "folder": False,
        "revision": None,
    }
    run = {
        "id": "earlier",
        "clock_start": "2026-01-01T00:00:00+00:00",
        "spans": {"ltm": "isolated"},
        "suites": ["ltm"],
        "data": {"chapterbreak": str(data)},
        "provenance": {"data": {"chapterbreak": source}},
    }
    _write("old/run.json", json.dumps(run))(folder)


BINARY = bytes(range(128, 256)) * 4
USAGE, FAILED, INTERRUPTED = 4, 1, 2
DRILLS = [
    Drill(
        "a suite file that is binary",
        (*BASE, "--agent=recall", "--mb-suite=bin.yaml"),
        USAGE,
        r"ERROR: suite file bin.yaml: not UTF-8 text",
        _write("bin.yaml", BINARY),
    ),
    Drill(
        "a suite file nested thousands deep",
        (*BASE, "--agent=recall", "--mb-suite=deep.yaml"),
        USAGE,
        r"ERROR: suite file deep.yaml: nested too deeply",
        _write("deep.yaml", "a: " + "[" * 5000 + "]" * 5000),
    ),
    Drill(
        "a suite file with an unknown key",
        (*BASE, "--agent=recall", "--mb-suite=typo.yaml"),
        USAGE,
        r"ERROR: suite file typo.yaml: unknown key 'scenarioz'",
        _write("typo.yaml", "name: s\nscenarioz: [ltm.colours]\n"),
    ),
    Drill(
        "a span beyond any benchmark",
        (*BASE, "--agent=recall", "--span=99999999999999999999k"),
        USAGE,
        r"ERROR: --span .* is beyond the largest span supported",
    ),
    Drill(
        "a span that is no span",
        (*BASE, "--agent=recall", "--span=lots"),
        USAGE,
        r"ERROR: --span 'lots' is not a memory span",
    ),
    Drill(
        "an absurd count",
        (*BASE, "--agent=recall", "--mb-conversations=100000000"),
        USAGE,
        r"ERROR: --mb-conversations 100000000 must be from 1 to 1000",
    ),
    Drill("an unknown agent", (*BASE, "--agent=nosuchmodule:make"), USAGE, r"ERROR: .*nosuchmodule"),
    Drill("an unknown judge", (*BASE, "--agent=recall", "--judge=nonsense"), USAGE, r"ERROR: .*nonsense"),
    Drill(
        "an --mb-output that is a file",
        (*QUICK, "--mb-output=taken"),
        USAGE,
        r"ERROR: --mb-output .*taken: a file is there, not a folder",
        _write("taken", "x"),
    ),
    Drill(
        "an --mb-output that cannot be made",
        (*QUICK, "--mb-output=taken/run"),
        USAGE,
        r"ERROR: --mb-output .*taken/run: cannot write there",
        _write("taken", "x"),
    ),
    Drill(
        "an --mb-output another run is using",
        (*QUICK, "--mb-output=busy"),
        USAGE,
        r"ERROR: --mb-output .*busy: another pytest-memorybench run is using this folder",
    ),
    Drill(
        "a binary --mb-baseline",
        (*QUICK, "--mb-baseline=base.json"),
        USAGE,
        r"ERROR: --mb-baseline base.json: not UTF-8 text",
        _write("base.json", BINARY),
    ),
    Drill(
        "a --mb-baseline that is not a results.json",
        (*QUICK, "--mb-baseline=base.json"),
        USAGE,
        r"ERROR: --mb-baseline base.json: not a pytest-memorybench results.json",
        _write("base.json", "[1, 2]"),
    ),
    Drill(
        "--mb-resume on a folder that is no run",
        (*QUICK, "--mb-resume=."),
        USAGE,
        r"ERROR: --mb-resume \.: not a pytest-memorybench run folder",
    ),
    Drill(
        "--mb-replay on a corrupted run.json",
        (*BASE, "--mb-replay=old"),
        USAGE,
        r"ERROR: .*old/run.json: not UTF-8 text",
        _write("old/run.json", BINARY),
    ),
    Drill(
        "--mb-resume on a data file changed since",
        (*QUICK, "--mb-resume=old"),
        USAGE,
        r"ERROR: --mb-resume .*old: changed since that run: data chapterbreak sha256 00000000… then,"
        r" .*… now\. Give it the data and options it ran with, or --mb-allow-drift",
        _earlier_run,
    ),
    Drill(
        "--mb-verify on a folder that is no run",
        ("-p", "no:randomly", "-p", "no:cacheprovider", "--mb-verify=."),
        USAGE,
        r"ERROR: --mb-verify .*: not a pytest-memorybench run folder \(no run.json in it\)",
    ),
    Drill(
        "--mb-data naming a missing file",
        (*QUICK, "--mb-data=chapterbreak=gone.json"),
        USAGE,
        r"ERROR: --mb-data chapterbreak=gone.json: gone.json does not exist",
    ),
    Drill(
        "--mb-data holding broken JSON",
        (*BASE, "--agent=recall", "--span=isolated", "-k", "chapterbreak", "--mb-data=chapterbreak=cb.json"),
        USAGE,
        r"ERROR: .*cb.json: not valid JSON",
        _write("cb.json", '{"a": [1, 2'),
    ),
    Drill(
        "--mb-data naming data no selected suite reads",
        (*QUICK, "--mb-data=chapterbreek=cb.json"),
        USAGE,
        r"ERROR: --mb-data chapterbreek=…: no selected suite \(ltm\) reads data named 'chapterbreek'",
        _write("cb.json", "{}"),
    ),
    Drill(
        "a GoodAI folder without config.yml",
        (*BASE, "--agent=recall", "--mb-suite=goodai-definitions=."),
        USAGE,
        r"ERROR: goodai-definitions=\.: no config.yml there",
    ),
    Drill(
        "an agent that raises",
        (*BASE, "--agent=agents:raises", "--span=isolated", "-k", "colours"),
        FAILED,
        r"^agent agents:raises raised ConnectionError: model server refused the connection",
    ),
    Drill(
        "an agent that returns None",
        (*BASE, "--agent=agents:none", "--span=isolated", "-k", "colours"),
        FAILED,
        r"^agent agents:none returned NoneType, expected str",
    ),
    Drill(
        "an agent that hangs past --mb-timeout",
        (*BASE, "--agent=agents:hangs", "--span=isolated", "-k", "colours and rep1", "--mb-timeout=0.5"),
        FAILED,
        r"^agent agents:hangs gave no reply within 0.5 s",
    ),
    *(
        Drill(
            name,
            (*BASE, "--agent=agents:stopping", "--span=2k", "-k", "colours or name_list", "--mb-output=run"),
            INTERRUPTED,
            r"interrupted: resume with pytest --memorybench --mb-resume=run \(\d of 6 tests have results;"
            rf" {said}\)",
            env={"MB_SIGNAL": signal},
        )
        for name, signal, said in (
            ("Ctrl-C during a run", "SIGINT", "interrupted by Ctrl-C"),
            ("SIGTERM (CI cancels the job)", "SIGTERM", "terminated by SIGTERM"),
        )
    ),
    Drill(
        "-x stops at the first failure",
        (
            *BASE,
            "--agent=recall",
            "--span=isolated",
            "-k",
            "colours or name_list",
            "--mb-output=run",
            "-x",
            "--mb-concurrency=1",
        ),
        FAILED,  # one at a time: what has finished is the same on every machine
        r"stopped early: resume with pytest --memorybench --mb-resume=run \(\d of 6 tests have results;"
        r" stopping after 1 failures\)",
    ),
    Drill(
        "the disk fills up during a run",
        (*BASE, "--agent=recall", "--span=2k", "-k", "colours or name_list", "--mb-output=run"),
        INTERRUPTED,
        r"cannot write the results in run \(File too large\); make room, then --mb-resume=run writes them",
        file_size_limit=12_000,
    ),
]
SEEN: dict[str, tuple[str, int]] = {}


def run_drill(drill: Drill, folder: Path) -> subprocess.CompletedProcess[str]:
    (folder / "agents.py").write_text(AGENTS)
    drill.setup(folder)
    env = {
        **os.environ,
        **drill.env,
        "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")]),
    }

    def limit() -> None:
        if drill.file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (drill.file_size_limit, drill.file_size_limit))

    command = [sys.executable, "-m", "pytest", *drill.args]
    held = claim(folder / "busy", "--mb-output") if "--mb-output=busy" in drill.args else None
    try:
        return subprocess.run(
            command,
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            preexec_fn=limit,
            check=False,
        )
    finally:
        if held is not None:
            held.release()


@pytest.mark.parametrize("drill", DRILLS, ids=[drill.situation for drill in DRILLS])
def test_each_failure_is_one_clear_line(tmp_path: Path, drill: Drill) -> None:
    result = run_drill(drill, tmp_path)
    output = result.stdout + result.stderr
    for noise in (
        "INTERNALERROR",
        "Traceback",
        "Task was destroyed",
        "Event loop is closed",
        "never retrieved",
    ):
        assert noise not in output, output
    assert result.returncode == drill.exit_code, output
    lines = [line for line in output.splitlines() if re.search(drill.line, line)]
    assert lines, output
    SEEN[drill.situation] = (
        lines[0].replace(str(tmp_path) + os.sep, "").replace(str(tmp_path), "."),
        result.returncode,
    )


def failure_table() -> str:
    rows = ["| what happened | what you see | exit |", "| --- | --- | --- |"]
    for drill in DRILLS:
        line, code = SEEN[drill.situation]
        shown = line.replace("|", "\\|")
        rows.append(f"| {drill.situation} | `{shown}` | {code} |")
    return "\n".join(rows) + "\n"


def test_the_table_in_docs_is_what_the_drills_show() -> None:
    if len(SEEN) < len(DRILLS):
        pytest.skip("only when every drill ran in this session")
    intro = DOC.read_text(encoding="utf-8").split("| what happened |")[0]
    table = failure_table()
    if os.environ.get("MB_WRITE_FAILURES"):
        DOC.write_text(intro + table, encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == intro + table, (
        "MB_WRITE_FAILURES=1 pytest tests/test_failure_table.py rewrites it"
    )
