"""Grading a candidate module: a fresh copy of the task, pytest in a fenced child, three layers.

As sde-bench's grader does, only the agent's source change is applied (the module it was asked to
fix; a test edit never reaches the copy), into a pristine copy of the task's package and tests, and
the three layers are run: the existing tests (`pass_to_pass`), the visible repro (`fail_to_pass`)
and the held-out decision test (`hidden_to_pass`).  Solved iff all three pass.

Each grade gets its own temporary directory (removed after), never the user's checkout, and one
child process (`sandbox.py`: writes outside the copy, processes, native code and network refused,
so it leaves nothing running) that is killed with its whole process group at the timeout.  Its
environment is ours alone (no `PYTHON*` variable of the user's, a fixed hash seed, so a grade is the
same on every run).  One pytest run covers the three layers (its JUnit XML says which file failed):
a planted task grades in about a second, pytest's start-up.  Verdicts are
kept per (task, module text) for the process, so the retries' grading and the score's do not run the
same module twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import os
import signal
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from pytest_memorybench.scenarios.sdebench.task import LAYERS, GradingFiles

SANDBOX = Path(__file__).with_name("sandbox.py")
DEFAULT_TIMEOUT = 60.0
OUTPUT_LIMIT = 4000  # characters of failing output fed back to the agent
_CACHE: dict[str, Verdict] = {}


@dataclass(frozen=True)
class Verdict:
    """What grading found: each layer's pass or fail, and the failing output to feed back."""

    layers: dict[str, bool]
    output: str = ""
    timed_out: bool = False
    seconds: float = 0.0  # the grading run's wall time (0: not run, e.g. no module in the reply)

    @property
    def solved(self) -> bool:
        return bool(self.layers) and all(self.layers.values())

    @property
    def failed_layer(self) -> str | None:
        """The first layer that failed, in sde-bench's order (existing, repro, hidden)."""
        return next((layer for layer in LAYERS if not self.layers.get(layer, False)), None)


async def grade(files: GradingFiles, module: str, *, timeout: float = DEFAULT_TIMEOUT) -> Verdict:
    """Grade `module` (the full text of the file the task asks to fix) against the task's layers."""
    key = hashlib.sha256(f"{files.fingerprint()}\0{timeout}\0{module}".encode()).hexdigest()
    known = _CACHE.get(key)
    if known is None:
        known = _CACHE[key] = await _grade(files, module, timeout)
    return known


async def _grade(files: GradingFiles, module: str, timeout: float) -> Verdict:
    started = time.perf_counter()
    verdict = await _run(files, module, timeout)
    return dataclasses.replace(verdict, seconds=round(time.perf_counter() - started, 3))


async def _run(files: GradingFiles, module: str, timeout: float) -> Verdict:
    with tempfile.TemporaryDirectory(prefix="mb-sdebench-") as scratch:
        root = Path(scratch) / "task"
        _plant(root, files, module)
        (root / ".tmp").mkdir()
        report = root / ".tmp" / "junit.xml"
        args = [
            sys.executable,
            "-s",  # no user site; the environment below is the whole environment
            "-B",
            str(SANDBOX),
            str(root),
            str(int(timeout) + 1),
            "--",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(root),
            "--basetemp",
            str(root / ".tmp" / "basetemp"),
            "--junitxml",
            str(report),
            "-o",
            "junit_family=xunit2",
            "--tb=short",
            *files.all_tests(),
        ]
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(root),
            "TMPDIR": str(root / ".tmp"),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PYTHONHASHSEED": "0",
            "LANG": "C.UTF-8",
        }
        child = await asyncio.create_subprocess_exec(
            *args,
            cwd=root,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            out, _ = await asyncio.wait_for(child.communicate(), timeout)
        except BaseException as stopped:  # the timeout, or the run itself cancelled
            _kill(child.pid)  # its whole group, while the child is still there to name it
            await child.wait()
            if not isinstance(stopped, asyncio.TimeoutError):
                raise
            return Verdict(
                dict.fromkeys(LAYERS, False),
                f"the tests did not finish in {timeout:g} s (the run was stopped)",
                timed_out=True,
            )
        text = out.decode("utf-8", "replace")
        if child.returncode and child.returncode < 0:  # killed by a signal (a CPU or file-size limit)
            text += f"\n(the tests were stopped by signal {-child.returncode})"
        return Verdict(_layers(files, report), _tail(text) if child.returncode else "")


def _plant(root: Path, files: GradingFiles, module: str) -> None:
    """The pristine copy: the package, the candidate module, and the three layers' tests."""
    for path, text in files.sources.items():
        _write(root / path, text)
    _write(root / files.module, module)
    for path, text in files.tests.items():
        _write(root / path, text)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _layers(files: GradingFiles, report: Path) -> dict[str, bool]:
    """Each layer passed iff all its files ran and none of their tests failed or errored."""
    failed: set[str] = set()
    ran: set[str] = set()
    try:
        tree = ElementTree.parse(report)
    except (OSError, ElementTree.ParseError):
        return dict.fromkeys(LAYERS, False)  # pytest never got to write it (a crash, a refusal)
    for case in tree.iter("testcase"):
        path = _case_file(case.get("classname") or "", case.get("file"))
        ran.add(path)
        if any(child.tag in ("failure", "error") for child in case):
            failed.add(path)
    for case in tree.iter("testcase"):  # collection errors come as a case without a file
        if case.get("name") == "" or case.get("classname") == "":
            failed.update(files.all_tests())
    return {
        layer: bool(paths) and all(path in ran and path not in failed for path in paths)
        for layer, paths in files.layers.items()
    }


def _case_file(classname: str, file: str | None) -> str:
    if file:
        return file
    parts = classname.split(".")
    while parts and not parts[-1].startswith("test_"):
        parts.pop()
    return "/".join(parts) + ".py"


def _tail(text: str) -> str:
    return text if len(text) <= OUTPUT_LIMIT else "...\n" + text[-OUTPUT_LIMIT:]


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def clear_cache() -> None:
    """Forget the verdicts kept (tests grade the same module under changed conditions)."""
    _CACHE.clear()


__all__ = ["DEFAULT_TIMEOUT", "Verdict", "clear_cache", "grade"]
