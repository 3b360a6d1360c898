"""Every shared question side by side: what each run answered, how it was judged, what it retrieved.

The tables of a comparison say whether B is better than A; a reader's next question is where and
why.  `question_rows` lines up, for each item every run scored, the question, the expected answer
and each run's answer, score, verdict, judge's reasons, evidence recall and retrieved memories,
sorted with the items the runs disagree on first; `questions_view` packs them for compare.html,
whose script (templates/compare_questions.js) filters them and draws them a page at a time.
`Outcome` is the filter the terminal reads (`--mb-show`): "A right, B wrong", "all wrong",
"disagree", … where *right* is the item's pass (its score at or above its threshold).
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.reports.compare.comparison import Comparison, keyed_items
from pytest_memorybench.reports.compare.runs import FinishedRun, score_of
from pytest_memorybench.reports.html import json_block
from pytest_memorybench.reports.judging import item_judging_text, judges_disagree
from pytest_memorybench.reports.paged import TextTable, place_choices
from pytest_memorybench.results.losses import loss_class
from pytest_memorybench.results.schema import ItemRecord

PAGE_CHARS = 1_500  # of a question, answer or reason on the page: an answer whole, a runaway reply cut


@dataclass(frozen=True)
class RunAnswer:
    """One run's side of a question."""

    score: float
    passed: bool
    responses: list[str]
    reasons: list[str]
    recall: float | None  # evidence recall of the search before the reply (None: not measured)
    memories: list[str]  # what that search returned, first k, each cut (results.json keeps them so)
    judging: str | None = None  # its score by each rubric, juror and call, under a judge panel
    judges_disagree: bool = False
    lost: str | None = None  # where the answer was lost (`results/losses.py`), when measured
    precision: float | None = None  # the share of those memories that hold evidence (None: not measured)


@dataclass(frozen=True)
class QuestionRow:
    """An item every run scored, and each run's answer to it."""

    key: str
    nodeid: str
    suite: str
    scenario: str
    category: str | None
    questions: list[str]
    expected: list[str]
    answers: list[RunAnswer]

    @property
    def verdicts(self) -> list[bool]:
        return [answer.passed for answer in self.answers]

    @property
    def disagreement(self) -> tuple[int, float]:
        """How split the runs are (the smaller side of right / wrong), then how far apart their scores."""
        right = sum(self.verdicts)
        scores = [answer.score for answer in self.answers]
        return min(right, len(self.verdicts) - right), max(scores) - min(scores)


def question_rows(comparison: Comparison) -> list[QuestionRow]:
    """The shared items, those the runs disagree on most first, then in the tables' order."""
    keyed = [keyed_items(run, comparison.keyed_by) for run in comparison.runs]
    rows = []
    for key in comparison.shared:
        first = keyed[0][key]
        rows.append(
            QuestionRow(
                key,
                str(first["nodeid"]),
                str(first["suite"]),
                str(first["scenario"]),
                first.get("category"),
                [str(text) for text in first.get("questions") or []],
                [str(text) for text in first.get("expected") or []],
                [_answer(items[key]) for items in keyed],
            )
        )
    order = {key: index for index, key in enumerate(comparison.shared)}
    return sorted(rows, key=lambda row: (-row.disagreement[0], -row.disagreement[1], order[row.key]))


def _answer(item: ItemRecord) -> RunAnswer:
    evidence = (item.get("details") or {}).get("evidence") or {}
    return RunAnswer(
        score_of(item),
        bool(item.get("passed")),
        [str(text) for text in item.get("responses") or []],
        [str(text) for text in item.get("reasons") or []],
        evidence.get("recall"),
        [str(text) for text in evidence.get("memories") or []],
        item_judging_text(item.get("judging")),
        judges_disagree(item.get("judging")),
        loss_class(item) if evidence else None,
        evidence.get("precision"),
    )


# -- on the page --------------------------------------------------------------------------------


def questions_view(rows: list[QuestionRow], runs: list[FinishedRun], folder: Path) -> dict[str, Any]:
    """The side-by-side questions: the filters' choices, and the items as the page's script reads them.

    Retrieved memories recur across questions and runs (a conversation's messages), so the data holds
    each text once and the items point at it: a LoCoMo board of 10 runs stays a few megabytes.
    """
    memories = TextTable()
    items = [
        [
            row.nodeid,
            row.suite,
            row.scenario,
            row.category,
            [_cut(text) for text in row.questions],
            [_cut(text) for text in row.expected],
            [
                [
                    answer.score,
                    int(answer.passed),
                    [_cut(text) for text in answer.responses],
                    [_cut(text) for text in answer.reasons],
                    answer.recall,
                    [memories.at(text) for text in answer.memories],
                    answer.judging,
                    int(answer.judges_disagree),
                    answer.lost,
                    answer.precision,
                ]
                for answer in row.answers
            ],
        ]
        for row in rows
    ]
    data = {
        "runs": [
            {"letter": chr(65 + index), "label": run.label, "report": _report_link(run, folder)}
            for index, run in enumerate(runs)
        ],
        "memories": memories.texts,
        "items": items,
    }
    return {
        "count": len(rows),
        **place_choices((row.suite, row.scenario, row.category) for row in rows),
        "data": json_block(data),
    }


def _cut(text: str) -> str:
    """A text as the page keeps it: whole up to PAGE_CHARS (the run's report has the rest)."""
    return (
        text
        if len(text) <= PAGE_CHARS
        else f"{text[:PAGE_CHARS]} … [{len(text) - PAGE_CHARS:,} more characters]"
    )


def _report_link(run: FinishedRun, folder: Path) -> str | None:
    """The run's report.html relative to the comparison's folder, for links to an item's transcript."""
    report = run.source.parent / "report.html"
    if not report.is_file():
        return None
    return Path(os.path.relpath(report.resolve(), folder.resolve())).as_posix()


# -- the outcome filter ---------------------------------------------------------------------------

_CLAUSE = re.compile(r"^(?P<who>[a-z]|all|any)\s+(?P<verdict>right|wrong|passed|failed)$")
OUTCOME_FORMS = "'A right, B wrong', 'B wrong', 'all wrong', 'all right', 'disagree'"


@dataclass(frozen=True)
class Outcome:
    """Which items to show by the runs' verdicts: each clause must hold ("A right, B wrong")."""

    text: str
    runs: tuple[tuple[int, bool], ...]  # (run index, must be right)
    every: bool | None = None  # all right / all wrong
    disagree: bool = False

    @classmethod
    def parse(cls, text: str, run_count: int) -> Outcome:
        """The filter `text` names, for `run_count` runs lettered A, B, …; a UsageError in one line."""
        runs: list[tuple[int, bool]] = []
        every: bool | None = None
        disagree = False
        for clause in (part.strip().lower() for part in text.split(",")):
            if clause in ("disagree", "disagreement"):
                disagree = True
                continue
            match = _CLAUSE.match(" ".join(clause.split()))
            if match is None:
                raise usage_error(f"--mb-show {text!r}: cannot read {clause!r}; write {OUTCOME_FORMS}")
            right = match["verdict"] in ("right", "passed")
            if match["who"] in ("all", "any"):
                every = right
                continue
            index = ord(match["who"]) - ord("a")
            if index >= run_count:
                raise usage_error(
                    f"--mb-show {text!r}: there is no run {match['who'].upper()} (runs A to"
                    f" {chr(64 + run_count)})"
                )
            runs.append((index, right))
        return cls(text, tuple(runs), every, disagree)

    def matches(self, verdicts: Sequence[bool]) -> bool:
        if self.disagree and len(set(verdicts)) < 2:
            return False
        if self.every is not None and any(verdict != self.every for verdict in verdicts):
            return False
        return all(verdicts[index] == right for index, right in self.runs)


def shown(rows: list[QuestionRow], outcome: Outcome, per_scenario: int) -> tuple[list[QuestionRow], int]:
    """The rows the outcome matches, at most `per_scenario` of each scenario; and how many match in all."""
    matching = [row for row in rows if outcome.matches(row.verdicts)]
    taken: dict[str, int] = defaultdict(int)
    chosen = []
    for row in matching:
        if taken[row.scenario] < per_scenario:
            taken[row.scenario] += 1
            chosen.append(row)
    return chosen, len(matching)
