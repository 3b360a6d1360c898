"""An sde-bench task as the suite holds it: what the agent is told, and what grading needs.

The same record comes from our generator (`generator.py`) and from sde-bench's published layout
(`published.py`), and travels inside the test definition (`Task.to_json`), so a run folder re-scores
without the data: the hidden test goes into the definition file, never into what the agent sees.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pytest_memorybench.core.json_values import JsonObject

Layer = Literal["existing", "repro", "hidden"]
LAYERS: tuple[Layer, ...] = ("existing", "repro", "hidden")
SOURCES = ("conversation", "conversation-amended", "history")


@dataclass(frozen=True)
class Turn:
    """One turn of a past developer conversation."""

    role: str
    text: str


@dataclass(frozen=True)
class Commit:
    """One commit of the host repository's history, as `git log` shows it."""

    subject: str
    body: str = ""
    author: str = "Sam Dev"


@dataclass(frozen=True)
class GradingFiles:
    """A pristine copy of what grading runs: the package around the module, and the tests by layer.

    `sources` are the package's files other than `module` (its `__init__.py`); `tests` maps each test
    path to its text, `layers` each layer to its test paths (sde-bench's `pass_to_pass`,
    `fail_to_pass`, `hidden_to_pass`).
    """

    module: str
    sources: dict[str, str]
    tests: dict[str, str]
    layers: dict[str, list[str]]

    def all_tests(self) -> list[str]:
        return [path for layer in LAYERS for path in self.layers.get(layer, [])]

    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Task:
    """One bug-fix task hinging on a project decision."""

    id: str
    source: str  # conversation, conversation-amended or history
    tier: str  # planted (real-function tasks need boltons' own checkout: see published.py)
    category: str
    function: str
    policy: str  # the decision, for the reports (never shown to the agent)
    bug_report: str
    bug: str  # the module at HEAD
    correct: str  # the decided fix: the oracle's answer
    naive: tuple[str, ...]  # plausible fixes that pass the repro and fail the hidden test
    files: GradingFiles
    conversations: tuple[tuple[Turn, ...], ...] = ()  # the task's own chats, oldest first
    commits: tuple[Commit, ...] = ()  # the history planted on the host, oldest first
    origin: str = "generated"  # generated, or published (sde-bench's files)
    notes: tuple[str, ...] = field(default=())

    @property
    def module(self) -> str:
        return self.files.module

    @property
    def visible_tests(self) -> dict[str, str]:
        """The tests the agent may read: every layer's but the hidden one."""
        hidden = set(self.files.layers.get("hidden", []))
        return {path: text for path, text in self.files.tests.items() if path not in hidden}

    def to_json(self) -> JsonObject:
        data: JsonObject = json.loads(json.dumps(asdict(self)))
        return data

    @classmethod
    def from_json(cls, data: JsonObject) -> Task:
        raw: dict[str, Any] = dict(data)  # what `to_json` wrote: the shape is this record's
        raw["naive"] = tuple(raw.get("naive") or ())
        raw["files"] = GradingFiles(**raw["files"])
        raw["conversations"] = tuple(
            tuple(Turn(**turn) for turn in chat) for chat in raw.get("conversations") or ()
        )
        raw["commits"] = tuple(Commit(**commit) for commit in raw.get("commits") or ())
        raw["notes"] = tuple(raw.get("notes") or ())
        return cls(**raw)
