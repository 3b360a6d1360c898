"""`sdebench.tasks`: bug fixes whose right answer rests on a project decision (vectorize-io/sde-bench).

Each task is one conversation group.  Its history is delivered first, a dated session at a time, as a
user's memory would have met it: the task's own developer chats (an amended task's earlier chat and
the later one that amends it), the decoy chats among them, and the repository's commit log (where a
`history` task's decision lives).  Then the bug report is asked with the module and its visible
tests; the agent answers with the corrected module in full (`prompts.py`).  The module is graded in
a fresh temporary copy by the three layers (`grading.py`); on a failure the failing output is fed
back and the agent answers again, up to `retries` times (sde-bench's cap is 5).

Score: 1 when a fix passes all three layers within the cap, else 0.  The details record sde-bench's
primary metric, `corrections` (the retries before passing: 0 is right first time), which layer
failed last, and each grade's seconds.  Without data the tasks are our generator's
(`generator.py`); `--mb-data sdebench=DIR` reads sde-bench's repository (`published.py`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from pytest_memorybench.contract.probes import FamilyPart, ProbeContext, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.load_report import LoadReport
from pytest_memorybench.core.readers import reading
from pytest_memorybench.core.records import Message, Role, Score, TestDefinition
from pytest_memorybench.scenarios.params import at_least, read_params
from pytest_memorybench.scenarios.sdebench.decoys import DECOYS
from pytest_memorybench.scenarios.sdebench.generator import generated_tasks
from pytest_memorybench.scenarios.sdebench.grading import DEFAULT_TIMEOUT, Verdict, grade
from pytest_memorybench.scenarios.sdebench.prompts import NO_MODULE, bug_prompt, feedback, module_in
from pytest_memorybench.scenarios.sdebench.published import load_published
from pytest_memorybench.scenarios.sdebench.summary import summarize
from pytest_memorybench.scenarios.sdebench.task import LAYERS, Task
from pytest_memorybench.scenarios.sdebench.workspace import Workspace

FAMILY = "sdebench"
START = datetime(2025, 1, 6, 9, 30, tzinfo=timezone.utc)
DAY = timedelta(days=1)
TURN = timedelta(seconds=50)
IDS = 1000  # a message's id: its session's number × IDS + its place
HEADER = "Here are earlier sessions of this project: developer chats and the repository's log, one a day."
MAX_RETRIES = 5  # sde-bench's cap on corrections


@dataclass(frozen=True)
class SdebenchParams:
    """Where sde-bench's repository is, how many decoys, the retry cap and the grading timeout."""

    data_path: str = ""
    decoys: int = 6  # decoy chats mixed into each task's history (at most the decoys there are)
    retries: int = MAX_RETRIES
    timeout: float = DEFAULT_TIMEOUT  # seconds for one grading run
    limit: int = 0  # at most this many tasks (0: all)

    def __post_init__(self) -> None:
        at_least("decoys", self.decoys, 0, 1000)
        at_least("retries", self.retries, 0, 20)
        at_least("limit", self.limit, 0)
        if not 1 <= self.timeout <= 3600:
            raise ValueError(f"timeout must be from 1 to 3600 seconds, got {self.timeout}")


@dataclass(frozen=True)
class _Session:
    name: str
    turns: tuple[tuple[Role, str], ...]
    evidence: bool = False  # where the task's decision lives


class SdebenchScenario(FamilyPart):
    """sde-bench's tasks: one item per task, graded by tests."""

    family = FAMILY

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        settings = read_params(SdebenchParams, self.name, params)
        report: LoadReport | None = None
        decoys: Sequence[tuple[str, Sequence[tuple[str, str]]]] = DECOYS
        if settings.data_path:
            with reading(f"sdebench data {settings.data_path}", "give a clone of vectorize-io/sde-bench"):
                loaded = load_published(settings.data_path)
            tasks, report = loaded.tasks, loaded.report
            decoys = loaded.decoys or DECOYS
            skipped = loaded.skipped
        else:
            tasks, skipped = generated_tasks(), []
        if settings.limit:
            tasks = tasks[: settings.limit]
        found = [_context(suite, self.name, seed, task, decoys, settings) for task in tasks]
        found += [_skipped(suite, self.name, seed, task_id, reason) for task_id, reason in skipped]
        return [replace(context, report=report) for context in found] if report else found

    async def follow_up(self, definition: TestDefinition, replies: Sequence[str]) -> str | None:
        """After each reply: the failing output of its fix while corrections are left, else None."""
        task = _task(definition)
        verdict = await _graded(task, replies[-1], definition)
        retries = int(definition.params.get("retries", MAX_RETRIES))  # type: ignore[arg-type]
        if verdict.solved or len(replies) > retries:
            return None
        return feedback(task, verdict, retries - len(replies) + 1)

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        task = _task(definition)
        seconds: list[float] = []
        verdict: Verdict | None = None
        for attempt, reply in enumerate(responses):
            started = time.perf_counter()
            verdict = await _graded(task, reply, definition)
            seconds.append(verdict.seconds or round(time.perf_counter() - started, 3))
            if verdict.solved:
                details = _details(True, attempt, len(responses), verdict, seconds)
                first = "first time" if attempt == 0 else f"after {attempt} correction(s)"
                return Score(1.0, (f"solved {first}: all three layers pass",), details=details)
        if verdict is None:
            return Score(0.0, ("no reply",), details=_details(False, None, 0, None, seconds))
        layer = verdict.failed_layer or "hidden"
        why = NO_MODULE if verdict.output == NO_MODULE else f"the {layer} layer fails"
        tries = len(responses)
        return Score(
            0.0,
            (f"not solved in {tries} attempt(s): {why}",),
            details=_details(False, None, tries, verdict, seconds),
        )

    def workspace(self, definition: TestDefinition) -> Workspace:
        """The files an agent that edits works in for this task (`workspace.py`)."""
        timeout = float(definition.params.get("timeout", DEFAULT_TIMEOUT))  # type: ignore[arg-type]
        return Workspace(_task(definition), timeout)

    def summarize(self, records: Sequence[Mapping[str, Any]]) -> JsonObject:
        return summarize(records)

    def evidence_ids(self, definition: TestDefinition) -> list[int]:
        return list((definition.expected or {}).get("evidence_ids") or ())


async def _graded(task: Task, reply: str, definition: TestDefinition) -> Verdict:
    module = module_in(reply, task.module)
    if module is None:
        return Verdict(dict.fromkeys(LAYERS, False), NO_MODULE)
    timeout = float(definition.params.get("timeout", DEFAULT_TIMEOUT))  # type: ignore[arg-type]
    return await grade(task.files, module, timeout=timeout)


def _details(
    solved: bool, corrections: int | None, attempts: int, verdict: Verdict | None, seconds: list[float]
) -> JsonObject:
    return {
        "solved": solved,
        "corrections": corrections,
        "attempts": attempts,
        # None when solved, or when the last reply held no module (nothing was graded)
        "failed_layer": None
        if solved or verdict is None or verdict.output == NO_MODULE
        else verdict.failed_layer,
        "layers": dict(verdict.layers) if verdict is not None else {},
        "grade_seconds": list(seconds),
    }


def _task(definition: TestDefinition) -> Task:
    return Task.from_json(definition.expected["task"])


def _sessions(
    task: Task, decoys: Sequence[tuple[str, Sequence[tuple[str, str]]]], wanted: int, rng: random.Random
) -> list[_Session]:
    """The task's chats in their order at seeded places among the decoys, then the repository's log."""
    chosen = rng.sample(list(decoys), min(wanted, len(decoys)))
    own = [
        _Session(
            f"chat-{number + 1}",
            tuple((_role(t.role), t.text) for t in chat),
            number == len(task.conversations) - 1,
        )
        for number, chat in enumerate(task.conversations)
    ]
    total = len(chosen) + len(own)
    places = sorted(rng.sample(range(total), len(own)))
    mine, others = (
        iter(own),
        iter(
            _Session(f"decoy-{topic}", tuple((_role(role), text) for role, text in turns))
            for topic, turns in chosen
        ),
    )
    history = [next(mine) if place in places else next(others) for place in range(total)]
    log: tuple[tuple[Role, str], ...] = tuple(
        ("user", _commit_text(task, index)) for index in range(len(task.commits))
    )
    return [*history, _Session("repository-log", log, task.source == "history")]


def _commit_text(task: Task, index: int) -> str:
    commit = task.commits[index]
    body = f"\n\n    {commit.body}" if commit.body else ""
    return f"commit {index + 1} of the log, by {commit.author}\n\n    {commit.subject}{body}"


def _role(role: str) -> Role:
    return "assistant" if role.lower() == "assistant" else "user"


def _context(
    suite: str,
    scenario: str,
    seed: int,
    task: Task,
    decoys: Sequence[tuple[str, Sequence[tuple[str, str]]]],
    settings: SdebenchParams,
) -> ProbeContext:
    rng = random.Random(f"sdebench|{seed}|{task.id}")
    sessions = _sessions(task, decoys, settings.decoys, rng)
    evidence = [
        number * IDS + place
        for number, session in enumerate(sessions)
        if session.evidence
        for place in range(len(session.turns))
        if session.name != "repository-log" or task.commits[place].body  # the commit that explains it
    ]
    asked = START + len(sessions) * DAY
    expected: JsonObject = {"task": task.to_json(), "evidence_ids": evidence}
    definition = probe_definition(
        suite=suite,
        scenario=scenario,
        seed=seed,
        context=task.id,
        probe_id=task.id,
        question=bug_prompt(task),
        ideal_answer=f"```python\n{task.correct.rstrip()}\n```",
        expected=expected,
        category=task.source,
        skills=(task.source.replace("-", "_"),),
        markers=(task.category.replace("-", "_"),),
        params={
            "source": task.source,
            "tier": task.tier,
            "category": task.category,
            "origin": task.origin,
            "retries": settings.retries,
            "timeout": settings.timeout,
            "asked_at": asked.isoformat(),
        },
    )
    return ProbeContext(task.id, (definition,), _stream(sessions), header=HEADER, sessions=len(sessions))


def _skipped(suite: str, scenario: str, seed: int, task_id: str, reason: str) -> ProbeContext:
    definition = probe_definition(
        suite=suite,
        scenario=scenario,
        seed=seed,
        context=task_id,
        probe_id=task_id,
        question="(not run)",
        ideal_answer="",
        expected={},
    )
    return ProbeContext(task_id, (replace(definition, skip_reason=reason),), lambda: iter(()))


def _stream(sessions: list[_Session]) -> Any:
    def turns() -> Iterator[Message]:
        for number, session in enumerate(sessions):
            for place, (role, text) in enumerate(session.turns):
                when = START + number * DAY + place * TURN
                yield Message(text, when, role, number * IDS + place, session.name)

    return turns


SCENARIO = SdebenchScenario("tasks")

__all__ = ["FAMILY", "SCENARIO", "SdebenchParams", "SdebenchScenario"]
