"""Grading an sdebench fix: three layers in a fresh copy, in a fenced child that cannot get out.

The isolation tests plant hostile modules: one that writes (and deletes) outside its temporary copy,
one that starts a process, one that spins and one that sleeps past the timeout.  None of them may
touch a file outside the copy or keep the grading from returning.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pytest_memorybench.scenarios.sdebench.generator import generated_tasks
from pytest_memorybench.scenarios.sdebench.grading import clear_cache, grade

TASK = generated_tasks()[0]  # gen-postage


@pytest.fixture(autouse=True)
def _fresh() -> None:
    clear_cache()


def _grade(module: str, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    return asyncio.run(grade(TASK.files, module, timeout=timeout))


def test_the_decided_fix_solves_and_a_naive_one_fails_the_hidden_layer() -> None:
    right = _grade(TASK.correct)
    assert right.solved and right.failed_layer is None and right.output == ""
    naive = _grade(TASK.naive[0])
    assert naive.layers == {"existing": True, "repro": True, "hidden": False}
    assert naive.failed_layer == "hidden" and "test_weightless_parcels_are_refused" in naive.output


def test_a_module_that_does_not_import_fails_every_layer() -> None:
    verdict = _grade("this is not python(\n")
    assert not verdict.solved and verdict.failed_layer == "existing" and "SyntaxError" in verdict.output


def test_a_hostile_patch_cannot_write_or_delete_outside_its_copy(tmp_path: Path) -> None:
    target, keep = tmp_path / "planted.txt", tmp_path / "keep.txt"
    keep.write_text("mine")
    hostile = (
        "import os, shutil\n"
        f"for attempt in (lambda: open({str(target)!r}, 'w').write('x'),\n"
        f"                lambda: os.remove({str(keep)!r}),\n"
        f"                lambda: os.rename({str(keep)!r}, {str(target)!r}),\n"
        f"                lambda: shutil.rmtree({str(tmp_path)!r})):\n"
        "    try:\n        attempt()\n    except PermissionError:\n        pass\n" + TASK.correct
    )
    verdict = _grade(hostile)
    assert not target.exists() and keep.read_text() == "mine"
    assert verdict.solved  # refused quietly, the module still works: only its reach was fenced


def test_a_hostile_patch_cannot_start_a_process(tmp_path: Path) -> None:
    target = tmp_path / "by-shell.txt"
    hostile = f"import os\nos.system('touch {target}')\n" + TASK.correct
    verdict = _grade(hostile)
    assert not target.exists()
    assert not verdict.solved and "os.system is refused" in verdict.output


@pytest.mark.parametrize("hang", ["while True:\n    pass\n", "import time\ntime.sleep(600)\n"])
def test_a_patch_that_hangs_is_stopped_at_the_timeout(hang: str) -> None:
    verdict = _grade(hang + TASK.correct, timeout=1)
    assert verdict.timed_out and not verdict.solved and "did not finish in 1 s" in verdict.output


def test_a_hostile_patch_cannot_read_the_users_files_into_its_output(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cr3t-token")
    hostile = f"print(open({str(secret)!r}).read())\n" + TASK.correct
    verdict = _grade(hostile)
    assert "s3cr3t-token" not in verdict.output and "outside the task copy is refused" in verdict.output
