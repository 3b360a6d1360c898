"""The mechanism of docs/memory-systems.md ("Your own mechanism"), run as a user would run it.

Its code is taken from the page as written, so the example cannot drift from the public names it
imports; the scripted model answers from what reaches its prompt.
"""

from __future__ import annotations

import asyncio
import re
import sys
from datetime import datetime
from pathlib import Path
from types import ModuleType

import pytest

from pytest_memorybench.core.records import Message
from tests.support.memory_model import scripted_memory_server
from tests.support.paths import DOCS
from tests.support.runs import results_in

PAGE = DOCS / "memory-systems.md"


def example_source() -> str:
    found = re.search(r"<!-- example: own mechanism[^\n]*-->\n```python\n(.*?)```", PAGE.read_text(), re.S)
    assert found, "docs/memory-systems.md lost its example mechanism"
    return found[1]


def load_example(folder: Path) -> ModuleType:
    (folder / "notes_memory.py").write_text(example_source())
    sys.path.insert(0, str(folder))
    try:
        sys.modules.pop("notes_memory", None)
        import notes_memory  # type: ignore[import-not-found]

        return notes_memory
    finally:
        sys.path.remove(str(folder))


def test_the_example_remembers_through_its_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with scripted_memory_server() as (server, script):
        monkeypatch.setenv("NOTES_MODEL_URL", server.openai_url)
        agent = load_example(tmp_path).make_agent()

        async def talk() -> tuple[str, list[str], list[str]]:
            when = datetime(2024, 3, 1, 9, 0)
            await agent.reply(Message("My locker code is 4512, please remember it.", when))
            for number in range(12):
                await agent.reply(Message(f"Filler number {number} about trains and tea.", when))
            answer = await agent.reply(Message("What is my locker code?", when))
            return answer, await agent.retrieve("locker code", 3), await agent.context()

        answer, found, shown = asyncio.run(talk())
    assert "4512" in answer
    assert any("4512" in note for note in found), "search finds the note without the model"
    assert "## Notes" in script.answer_prompts[-1]
    assert any("4512" in note for note in shown), "context() holds the notes the prompt showed"
    assert agent.phase_usage["read"].calls == 14 and agent.phase_usage["write"].calls == 0


def test_the_example_runs_the_benchmark_from_the_command_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    (pytester.path / "notes_memory.py").write_text(example_source())
    monkeypatch.delitem(sys.modules, "notes_memory", raising=False)  # the run imports it from its folder
    with scripted_memory_server() as (server, _):
        monkeypatch.setenv("NOTES_MODEL_URL", server.openai_url)
        result = pytester.runpytest(
            "--memorybench",
            "--agent=notes_memory:make_agent",
            "--span=isolated",
            "-k",
            "colours",
            f"--mb-output={pytester.path / 'run'}",
        )
    results = results_in(pytester.path / "run")
    assert results["items"] and all(item["score"] is not None for item in results["items"]), result.stdout
    assert results["totals"]["memory"]["read"]["calls"] > 0
