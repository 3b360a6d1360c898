"""sdebench as a suite: sde-bench's layout read (a fixture of ours in it), the history delivered as
dated sessions, corrections fed back and counted, and whole runs on generated and published tasks."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Message
from pytest_memorybench.scenarios.sdebench.published import NEEDS_BOLTONS, load_published
from pytest_memorybench.scenarios.sdebench.scenario import SCENARIO
from tests.support.memory_model import scripted_memory_server
from tests.support.paths import FIXTURES
from tests.support.runs import drive_plan, first_by_default, run_benchmark, usage_error_line

LAYOUT = FIXTURES / "sdebench"


def _contexts(**params: object):  # type: ignore[no-untyped-def]
    return {c.id: c for c in SCENARIO.contexts("sdebench", params, 0)}


def _reply(module: str) -> str:
    return f"Here is the fix.\n```python\n{module}```\n"


def test_the_published_layout_is_read_as_its_build_py_plants_it() -> None:
    loaded = load_published(LAYOUT)
    by_id = {task.id: task for task in loaded.tasks}
    assert sorted(by_id) == [
        "boltons-mentions-001",
        "boltons-mentions-history-001",
        "boltons-postage-amended-001",
    ]
    assert loaded.skipped == [("boltons-titlecase-001", NEEDS_BOLTONS)]
    amended = by_id["boltons-postage-amended-001"]
    assert len(amended.conversations) == 2 and amended.conversations[1][0].role == "user"
    assert list(amended.files.tests) == [
        "tests/test_postage.py",
        "tests/test_regression.py",
        "tests/test_hidden.py",
    ]
    assert amended.files.sources["parcelpost/__init__.py"].startswith('"""parcelpost package.')
    history = by_id["boltons-mentions-history-001"]
    assert not history.conversations
    assert [c.subject for c in history.commits][-1] == "perf: simplify mentions"
    assert history.commits[0].body.startswith("A mention starts the text")
    assert [line for line in loaded.report.lines("sdebench")] == [
        "sdebench data: 4 tasks, 2 decoy chats → 0 items",
        "  sdebench: tasks that need boltons' own checkout, skipped: 1 (boltons-titlecase-001)",
    ]
    assert len(loaded.decoys) == 2


def test_a_folder_without_tasks_or_generator_says_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no task folders"):
        load_published(tmp_path)
    shutil.copytree(LAYOUT / "boltons-mentions", tmp_path / "boltons-mentions")
    with pytest.raises(FileNotFoundError, match="gen/traps.py is missing"):
        load_published(tmp_path)


def test_the_history_comes_as_dated_sessions_before_the_bug_report() -> None:
    context = _contexts()["gen-postage-amended"]
    turns = list(context.turns())
    sessions = list(dict.fromkeys(message.session for message in turns))
    assert sessions[-1] == "repository-log" and "chat-1" in sessions and "decoy-CI cache" in sessions
    assert sessions.index("chat-1") < sessions.index("chat-2")  # the amendment comes later
    days = {m.session: m.timestamp.date() for m in turns}
    assert len(set(days.values())) == len(sessions), "one session a day"
    (probe,) = context.probes
    asked = probe.params["asked_at"]
    assert isinstance(asked, str) and asked > turns[-1].timestamp.isoformat()
    evidence = {m.id for m in turns if m.session == "chat-2"}
    assert set(probe.expected["evidence_ids"]) == evidence
    history = _contexts()["gen-postage-history"]
    (decision,) = [m for m in history.turns() if m.id in history.probes[0].expected["evidence_ids"]]
    assert "refuse weightless parcels" in decision.text and decision.session == "repository-log"


def test_a_failing_fix_gets_its_failing_output_and_a_correction_counts() -> None:
    (definition,) = _contexts()["gen-postage"].probes
    task = _task(definition)
    naive, right = _reply(task.naive[0]), _reply(task.correct)
    said = asyncio.run(SCENARIO.follow_up(definition, [naive]))
    assert said is not None and "held-out test" in said and "test_weightless_parcels_are_refused" in said
    assert "(5 corrections left.)" in said
    assert asyncio.run(SCENARIO.follow_up(definition, [naive, right])) is None
    score = asyncio.run(SCENARIO.score(definition, [naive, right], ScoringContext()))
    assert score.value == 1.0 and score.details["corrections"] == 1
    assert score.reasons == ("solved after 1 correction(s): all three layers pass",)
    failed = asyncio.run(SCENARIO.score(definition, [naive] * 6, ScoringContext()))
    assert failed.value == 0.0 and failed.details["failed_layer"] == "hidden"
    assert asyncio.run(SCENARIO.follow_up(definition, [naive] * 6)) is None, "the cap is 5 corrections"


def _task(definition):  # type: ignore[no-untyped-def]
    from pytest_memorybench.scenarios.sdebench.task import Task

    return Task.from_json(definition.expected["task"])


class _Learner:
    """Answers the bug report with a naive fix, and the failing output with the decided one."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def reply(self, message: Message) -> str:
        self.seen.append(message.text)
        task = next((t for t in _tasks() if t.bug_report in message.text), None)
        if task is not None:
            return _reply(task.naive[0])
        failing = next((t for t in _tasks() if f"Your fix of `{t.module}`" in message.text), None)
        return _reply(failing.correct) if failing is not None else "Noted."

    async def observe(self, messages: list[Message]) -> None:
        self.seen.extend(f"{m.session}|{m.role}|{m.text}" for m in messages)


def _tasks():  # type: ignore[no-untyped-def]
    from pytest_memorybench.scenarios.sdebench.generator import generated_tasks

    return generated_tasks()


def test_an_agent_that_learns_from_the_failing_output_needs_one_correction(pytester: pytest.Pytester) -> None:
    outcomes = drive_plan(pytester, "--mb-suite=sdebench", "--span=isolated", "--mb-sample=2", agent=_Learner)
    assert outcomes and [o.error for o in outcomes.values()] == [None] * len(outcomes)
    for outcome in outcomes.values():
        assert outcome.score.value == 1.0 and outcome.score.details["corrections"] == 1
        assert len(outcome.responses) == 2 and len(outcome.transcript) == 2


def test_published_tasks_run_with_mb_data_and_the_skipped_ones_say_why(pytester: pytest.Pytester) -> None:
    run = run_benchmark(
        pytester, "--agent=oracle", "--mb-suite=sdebench", f"--mb-data=sdebench={LAYOUT}", "-rs"
    )
    items = {item["test_id"]: item for item in run.results["items"]}
    assert sorted(items) == [
        "boltons-mentions-001",
        "boltons-mentions-history-001",
        "boltons-postage-amended-001",
    ]
    assert {item["score"] for item in items.values()} == {1.0}
    assert run.outcome.parseoutcomes()["skipped"] == 1
    run.outcome.stdout.fnmatch_lines(["*boltons-titlecase-001*needs boltons' own checkout*"])


def test_a_bad_data_folder_is_one_line(pytester: pytest.Pytester, tmp_path: Path) -> None:
    result = pytester.runpytest(
        "--memorybench", "--agent=oracle", "--mb-suite=sdebench", f"--mb-data=sdebench={tmp_path}"
    )
    line = usage_error_line(result)
    assert "sdebench data" in line and "no task folders" in line


class _Editor:
    """Edits in the workspace: first the naive fix (the visible tests pass), then, told the held-out
    test fails, the decided one; it also edits a test and tries a path outside, both in vain."""

    def __init__(self) -> None:
        self.said: list[str] = []

    async def reply(self, message: Message) -> str:
        return "Noted."

    async def edit(self, message: Message, workspace) -> str:  # type: ignore[no-untyped-def]
        (module,) = [
            p for p in workspace.list() if p.endswith(".py") and "tests" not in p and "__init__" not in p
        ]
        task = next(t for t in _tasks() if t.module == module)
        first = "Your fix of" not in message.text
        assert workspace.read(module) == (task.bug if first else task.naive[0])  # the same files throughout
        assert workspace.grep(f"def {task.function}")
        assert (
            workspace.log().startswith("commit ") and f"add {module.split('/')[0]} module" in workspace.log()
        )
        assert "tests/test_hidden.py" not in workspace.list()
        with pytest.raises(PermissionError):
            workspace.write("../outside.py", "x = 1\n")
        if first:
            workspace.write(module, task.naive[0])
            self.said.append(await workspace.run_tests())
            return "Fixed the reported bug."
        workspace.write(module, task.correct)
        workspace.write("tests/test_regression.py", "def test_nothing():\n    pass\n")  # ignored
        return "Applied the project's rule."


def test_an_agent_that_edits_gets_a_workspace_and_only_its_module_is_graded(
    pytester: pytest.Pytester,
) -> None:
    editors: list[_Editor] = []

    def make() -> _Editor:
        editors.append(_Editor())
        return editors[-1]

    outcomes = drive_plan(pytester, "--mb-suite=sdebench", "--span=isolated", "--mb-sample=2", agent=make)
    assert outcomes and [o.error for o in outcomes.values()] == [None] * len(outcomes)
    for outcome in outcomes.values():
        assert outcome.score.details["corrections"] == 1 and outcome.score.value == 1.0
        assert "after the edits:\n```python" in outcome.responses[0]
    assert {said for editor in editors for said in editor.said} == {"the visible tests pass"}


def test_the_summary_gives_the_corrections_histogram_and_what_failed() -> None:
    from pytest_memorybench.scenarios.sdebench.summary import summarize

    def item(solved: bool, corrections: int | None = None, layer: str | None = None) -> dict[str, object]:
        scoring = {"solved": solved, "corrections": corrections, "failed_layer": layer}
        return {"score": float(solved), "details": {"scoring": scoring}}

    records = [item(True, 0), item(True, 2), item(True, 0), item(False, layer="hidden"), item(False)]
    records.append({"score": None, "error": "agent error"})
    assert summarize(records) == {
        "solved": 0.6,
        "solved first time": 0.4,
        "mean corrections (solved)": 0.6667,
        "tasks solved after 0 corrections": 2,
        "tasks solved after 1 corrections": 0,
        "tasks solved after 2 corrections": 1,
        "tasks unsolved": 2,
        "unsolved: hidden layer failed": 1,
        "unsolved: no module in the last reply": 1,
    }


@pytest.mark.parametrize("mechanism", first_by_default(["rag", "memgpt", "light"]))
def test_memory_mechanisms_over_the_scripted_model_run_it_with_no_item_error(
    pytester: pytest.Pytester, mechanism: str
) -> None:
    with scripted_memory_server() as (server, _):
        run = run_benchmark(
            pytester,
            "--mb-suite=sdebench",
            f"--agent={mechanism}:openai:fake-model@{server.openai_url}",
            "-m",
            "history",
        )
    records = run.results["items"]
    assert len(records) == 4 and [r["error"] for r in records] == [None] * 4, run.outcome.stdout.str()
    # the scripted model answers with a line of its prompt, never a module: 5 corrections asked
    assert {r["details"]["scoring"]["attempts"] for r in records} == {6}
    assert run.results["totals"]["evidence_recall"]["questions"] == 4
