"""Reading the parts of a GoodAI definition file that every scripted scenario shares."""

from __future__ import annotations

from typing import Any

from pytest_memorybench.core.records import ScriptLine


def script_from_goodai(raw: dict[str, Any]) -> tuple[ScriptLine, ...]:
    """Script lines with their question flags and waits, as the file has them.

    Old (v2) files carry all three wait keys, zeros included; zeros mean no wait.
    """
    return tuple(
        ScriptLine(
            text,
            is_question=bool(question),
            wait={key: value for key, value in (wait or {}).items() if value},
        )
        for text, question, wait in zip(raw["script"], raw["is_question"], raw["waits"], strict=False)
    )
