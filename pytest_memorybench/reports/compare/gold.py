"""Above gold: a comparison's rows where a run scores above the `gold` store with its answering model.

The `gold` store is given exactly each question's labelled evidence, so with the same answering
model it is what perfect memory scores.  A memory above it was given credit remembering cannot
earn: the judge is too lenient, or the run saw the answers; or, the one honest cause, the labelled
evidence misses what an answer needs (a question resting on more turns than k, a label left out).
A run without a gold run of its model beside it has only its own ceilings (`ceilings.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_memorybench.reports.ceilings import CAUSE, ceiling_summary
from pytest_memorybench.reports.compare.board import answering_model, is_gold
from pytest_memorybench.reports.compare.comparison import Comparison
from pytest_memorybench.results.ceilings import EPSILON


@dataclass(frozen=True)
class AboveGold:
    """A run's row of a comparison table that scores above the gold store with its answering model."""

    run: int  # the run's index (its letter: chr(65 + run))
    gold: int  # the gold store run's index
    model: str  # the answering model both use
    suite: str
    label: str
    mean: float
    gold_mean: float

    def to_json(self) -> dict[str, Any]:
        return {
            "run": chr(65 + self.run),
            "gold": chr(65 + self.gold),
            "model": self.model,
            "suite": self.suite,
            "row": self.label,
            "mean": self.mean,
            "gold_mean": self.gold_mean,
        }

    @property
    def place(self) -> str:
        return self.label if self.label == self.suite else f"{self.suite} · {self.label}"


def above_gold(comparison: Comparison) -> list[AboveGold]:
    """Every row where a run scores above a `gold` store run that answers with the same model."""
    models = [answering_model(run) for run in comparison.runs]
    golds = {
        model: index
        for index, (run, model) in enumerate(zip(comparison.runs, models, strict=True))
        if model is not None and is_gold(run)
    }
    found = []
    for suite, rows in comparison.tables.items():
        for row in rows:
            for index, (cell, model) in enumerate(zip(row.cells, models, strict=True)):
                gold = golds.get(model) if model is not None else None
                if gold is None or gold == index:
                    continue
                reference = row.cells[gold].mean
                if cell.mean is not None and reference is not None and cell.mean > reference + EPSILON:
                    found.append(AboveGold(index, gold, model or "", suite, row.label, cell.mean, reference))
    return found


def gold_lines(flags: list[AboveGold]) -> list[str]:
    """A line for each run above a gold store: the rows, and what it means."""
    by_pair: dict[tuple[int, int], list[AboveGold]] = {}
    for flag in flags:
        by_pair.setdefault((flag.run, flag.gold), []).append(flag)
    return [
        f"{chr(65 + run)} above the gold store {chr(65 + gold)} with the same answering model"
        f" ({rows[0].model}): "
        + ", ".join(f"{row.place} {row.mean:.3f} > {row.gold_mean:.3f}" for row in rows)
        + f"; {CAUSE}, or the labelled evidence misses what an answer needs"
        for (run, gold), rows in by_pair.items()
    ]


def comparison_ceiling_lines(comparison: Comparison) -> list[str]:
    """Under a comparison: each run's own categories above their ceilings, then each run above gold."""
    own = [
        f"{chr(65 + index)} {summary}"
        for index, run in enumerate(comparison.runs)
        if run.suite is None and (summary := ceiling_summary(run.results)) is not None
    ]
    return own + gold_lines(above_gold(comparison))
