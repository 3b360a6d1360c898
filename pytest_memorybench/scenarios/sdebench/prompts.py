"""What a plain chat agent is told, and how its corrected module is read from its reply.

An agent that cannot edit files answers with the corrected module in full (a planted task's fix is
one file), in a fenced Python block.  It is shown what sde-bench's agent finds in the repository:
the bug report, the module as it is, and the visible tests (the module's existing test and the
repro); never the hidden test.  After a failing grade it is told which layer failed and the failing
output, as sde-bench's harness feeds back the failing tests, and answers again.
"""

from __future__ import annotations

import re

from pytest_memorybench.scenarios.sdebench.grading import Verdict
from pytest_memorybench.scenarios.sdebench.task import Task

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n(.*?)```", re.DOTALL)
LAYER_NAMES = {
    "existing": "the existing tests",
    "repro": "the repro (tests/test_regression.py)",
    "hidden": "the maintainers' held-out test",
}
NO_MODULE = "no module in the reply"


def bug_prompt(task: Task) -> str:
    """The bug report as the agent meets it, with the files it would open first."""
    parts = [
        "A bug report for this repository:",
        "",
        task.bug_report,
        "",
        f"`{task.module}` as it is now:",
        _block(task.bug),
    ]
    for path, text in task.visible_tests.items():
        parts += [f"`{path}`:", _block(text)]
    parts += [
        f"Reply with the corrected `{task.module}` in full, in one ```python block. Only that file is"
        " applied; changes to tests are ignored. Follow this project's decisions where you know them.",
    ]
    return "\n".join(parts)


def feedback(task: Task, verdict: Verdict, attempts_left: int) -> str:
    """What the agent is told after a failing grade: the failing layers and their output."""
    if verdict.output == NO_MODULE:
        said = f"Your reply held no module. Reply with the corrected `{task.module}` in one ```python block."
    else:
        failed = [LAYER_NAMES[layer] for layer, passed in verdict.layers.items() if not passed]
        said = (
            f"Your fix of `{task.module}` was graded and fails {', '.join(failed)}. The failing output:\n"
            f"{_block(verdict.output, 'text')}\nReply with the corrected `{task.module}` in full again."
        )
    return f"{said} ({attempts_left} correction{'s' if attempts_left != 1 else ''} left.)"


def module_in(reply: str, module: str) -> str | None:
    """The module a reply gives: the fenced block after the module's path if there is one, else the
    last Python (or untagged) block; a reply of bare code that defines something is taken whole."""
    blocks = [(match.start(), match.group(1).lower(), match.group(2)) for match in _FENCE.finditer(reply)]
    code = [(start, text) for start, tag, text in blocks if tag in ("", "python", "py", "python3")]
    if code:
        named = reply.rfind(module)
        after = [text for start, text in code if named != -1 and start > named]
        return after[0] if after else code[-1][1]
    stripped = reply.strip()
    if re.search(r"^(def|class|import|from)\s", stripped, re.MULTILINE):
        try:
            compile(stripped, module, "exec")
        except (SyntaxError, ValueError):
            return None
        return stripped + "\n"
    return None


def _block(text: str, language: str = "python") -> str:
    return f"```{language}\n{text.rstrip()}\n```"


__all__ = ["NO_MODULE", "bug_prompt", "feedback", "module_in"]
