"""Our offline generator: each trap planted as a conversation task, a history task and, where the
trap has an amended decision, a conversation-amended task; sde-bench's three sources.

Files are laid out as sde-bench's planted tasks are (its `build.py`): the package beside boltons'
own, the module's existing test at `tests/test_<name>.py`, the repro at `tests/test_regression.py`,
the hidden test at `tests/test_hidden.py`.  The history planted on the host follows its
`emit_host_h.py`: for a history task the decided code lands with a commit that explains it, then a
noise commit, then a regression with a misleading subject; a conversation task's module lands
buggy in one commit, its decision only in the chats.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from pytest_memorybench.scenarios.sdebench.task import Commit, GradingFiles, Task, Turn
from pytest_memorybench.scenarios.sdebench.traps import TRAPS, Trap

DECIDER = "Priya N."


def generated_tasks() -> list[Task]:
    """Every task of our generator, in a fixed order."""
    tasks: list[Task] = []
    for trap in TRAPS:
        tasks.append(_task(trap, "conversation"))
        if trap.earlier_chat:
            tasks.append(_task(trap, "conversation-amended"))
        tasks.append(_task(trap, "history"))
    return tasks


def _task(trap: Trap, source: str) -> Task:
    suffix = {"conversation": "", "conversation-amended": "-amended", "history": "-history"}[source]
    naive = trap.naive
    if source == "conversation":
        chats: tuple[tuple[tuple[str, str], ...], ...] = (trap.chat,)
    elif source == "conversation-amended":
        chats = (trap.earlier_chat, trap.chat)
    else:
        chats = ()
    return Task(
        id=f"gen-{trap.name}{suffix}",
        source=source,
        tier="planted",
        category=trap.category,
        function=trap.function,
        policy=trap.policy,
        bug_report=trap.bug_report,
        bug=trap.bug,
        correct=trap.correct,
        naive=naive,
        files=_files(trap),
        conversations=tuple(tuple(Turn(role, text) for role, text in chat) for chat in chats),
        commits=_commits(trap, source),
    )


def _files(trap: Trap) -> GradingFiles:
    existing = f"tests/test_{trap.name}.py"
    return GradingFiles(
        module=trap.module,
        sources={f"{trap.package}/__init__.py": trap.init, "tests/__init__.py": ""},
        tests={
            existing: trap.existing_test,
            "tests/test_regression.py": trap.repro_test,
            "tests/test_hidden.py": trap.hidden_test,
        },
        layers={
            "existing": [existing],
            "repro": ["tests/test_regression.py"],
            "hidden": ["tests/test_hidden.py"],
        },
    )


def _commits(trap: Trap, source: str) -> tuple[Commit, ...]:
    stem = PurePosixPath(trap.module).stem
    if source != "history":
        return (Commit(f"feat: add {trap.package} module"),)
    subject, body = trap.decision
    return (
        Commit(f"feat: add {trap.package} module"),
        Commit(subject, body, DECIDER),
        Commit("docs: changelog housekeeping"),
        Commit(f"perf: simplify {stem}", "", DECIDER),
    )


__all__ = ["generated_tasks"]
