"""The questions a run planned, each with the item that answered it: what every export reads.

An export needs both: the definition says what the benchmark calls the question (its id, sample,
source, ability, gold), the item what the agent answered and how we judged it.  Order matters to
the formats that pair answers with questions by position (MemoryAgentBench's, BEAM's), so the
questions come in the plan's order, those the run did not answer (deselected, skipped, cut short)
included as None.  An item that errored has no answer: its text is empty and it has no verdict.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.files import write_atomically
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.results.schema import ItemRecord, ResultsRecord


@dataclass(frozen=True)
class Answer:
    """A planned question and the item that answered it."""

    definition: TestDefinition
    item: ItemRecord

    @property
    def text(self) -> str:
        """The reply the scorer judged (the last one), or empty when the item errored."""
        responses = self.item["responses"]
        return responses[-1] if responses and self.item["error"] is None else ""

    @property
    def errored(self) -> bool:
        return self.item["error"] is not None

    @property
    def passed(self) -> bool | None:
        """Our verdict: whether the item passed; None when it errored (no verdict)."""
        return None if self.errored else self.item["passed"]


class Planned:
    """A run's planned questions, in the plan's order, each with its item when it has one."""

    def __init__(self, results: ResultsRecord, definitions: Sequence[tuple[str, TestDefinition]]) -> None:
        self.results = results
        self._definitions = definitions
        self._items = {item["nodeid"]: item for item in results["items"]}

    def of(self, keep: Callable[[TestDefinition], bool]) -> list[tuple[TestDefinition, Answer | None]]:
        """The questions `keep` takes, in order, each with its answer or None."""
        pairs: list[tuple[TestDefinition, Answer | None]] = []
        for key, definition in self._definitions:
            if keep(definition):
                item = self._items.get(key)
                pairs.append((definition, Answer(definition, item) if item is not None else None))
        return pairs


def answered_prefix(pairs: Sequence[tuple[TestDefinition, Answer | None]]) -> tuple[list[Answer], int]:
    """The answers up to the first question without one, and how many answers come after it: a
    format that pairs answers with questions by position cannot skip a question, so those are
    left out."""
    answers: list[Answer] = []
    for _, answer in pairs:
        if answer is None:
            break
        answers.append(answer)
    return answers, sum(answer is not None for _, answer in pairs) - len(answers)


def write_json(path: Path, data: Any) -> None:
    """A JSON file as the benchmarks' scripts write theirs (indented, UTF-8 kept as it is)."""
    write_atomically(path, json.dumps(data, indent=4, ensure_ascii=False) + "\n")


def counted(written: int, noun: str, answers: Sequence[Answer], *more: str) -> str:
    """The export's line after its path: how many records, and how many of them errored."""
    errored = sum(answer.errored for answer in answers)
    parts = [f"{written} {noun}"]
    if errored:
        parts.append(f"{errored} errored, written with an empty answer")
    return "; ".join([*parts, *(part for part in more if part)])


__all__ = ["Answer", "Planned", "answered_prefix", "counted", "write_json"]
