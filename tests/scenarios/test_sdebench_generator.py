"""Our sdebench generator's tasks discriminate as sde-bench's validator demands, and a reply is read.

For each trap (in-process, so the whole table costs milliseconds; the subprocess grader is
`test_sdebench_grading.py`'s): HEAD passes its existing test and fails the repro and the hidden test;
the decided fix passes all three; every naive fix passes the existing test and the repro and fails
the hidden test (an amended task's superseded rule among them).
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

import pytest

from pytest_memorybench.scenarios.sdebench.generator import generated_tasks
from pytest_memorybench.scenarios.sdebench.prompts import bug_prompt, module_in
from pytest_memorybench.scenarios.sdebench.task import Task

TASKS = generated_tasks()


def _layers(task: Task, module: str, tmp_path: Path) -> dict[str, bool]:
    """Each layer's verdict, the module planted in `tmp_path` and the tests' functions called."""
    root = tmp_path / f"copy{len(list(tmp_path.iterdir()))}"
    for path, text in {**task.files.sources, task.module: module}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    package = task.module.split("/")[0]
    sys.path.insert(0, str(root))
    try:
        for name in [n for n in sys.modules if n == package or n.startswith(f"{package}.")]:
            del sys.modules[name]
        importlib.invalidate_caches()
        return {
            layer: all(_passes(task.files.tests[p]) for p in paths)
            for layer, paths in task.files.layers.items()
        }
    finally:
        sys.path.remove(str(root))


def _passes(test_source: str) -> bool:
    namespace = types.ModuleType("sdebench_layer")
    exec(compile(test_source, "layer", "exec"), namespace.__dict__)  # our own generator's tests
    try:
        for name, function in vars(namespace).items():
            if name.startswith("test_"):
                function()
    except (Exception, pytest.fail.Exception):  # a failed assert, an error, a pytest.raises unmet
        return False
    return True


def test_the_generator_covers_the_three_sources_and_amends_with_a_proven_naive_rule() -> None:
    sources = {task.source for task in TASKS}
    assert sources == {"conversation", "conversation-amended", "history"}
    for task in TASKS:
        if task.source == "conversation-amended":
            assert len(task.conversations) == 2
        if task.source == "history":
            assert not task.conversations and any(commit.body for commit in task.commits)
    assert len({task.id for task in TASKS}) == len(TASKS)


@pytest.mark.parametrize("task", [t for t in TASKS if t.source == "conversation"], ids=lambda t: t.id)
def test_head_correct_and_naive_fixes_fall_where_sde_bench_demands(task: Task, tmp_path: Path) -> None:
    assert _layers(task, task.bug, tmp_path) == {"existing": True, "repro": False, "hidden": False}
    assert _layers(task, task.correct, tmp_path) == {"existing": True, "repro": True, "hidden": True}
    assert len(task.naive) >= 2
    for naive in task.naive:
        assert _layers(task, naive, tmp_path) == {"existing": True, "repro": True, "hidden": False}


def test_the_prompt_shows_the_module_and_visible_tests_never_the_hidden_one() -> None:
    task = TASKS[0]
    prompt = bug_prompt(task)
    assert task.bug_report in prompt and task.bug.strip() in prompt
    assert task.files.tests["tests/test_regression.py"].strip() in prompt
    assert task.files.tests["tests/test_hidden.py"].strip() not in prompt
    assert task.policy not in prompt


@pytest.mark.parametrize(
    "reply, found",
    [
        ("Here it is:\n```python\nX = 1\n```\n", "X = 1\n"),
        ("Tests:\n```python\nassert 1\n```\nand `parcelpost/rates.py`:\n```py\nY = 2\n```", "Y = 2\n"),
        ("```\nZ = 3\n```", "Z = 3\n"),
        ("```text\nnot code\n```", None),
        ("def f():\n    return 1", "def f():\n    return 1\n"),
        ("I don't know.", None),
        ("def broken(:\n", None),
    ],
)
def test_the_module_is_read_from_a_reply(reply: str, found: str | None) -> None:
    assert module_in(reply, "parcelpost/rates.py") == found
