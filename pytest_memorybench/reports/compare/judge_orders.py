"""Whether "B beat A" survives another judge: each pair's order under every rubric and juror the runs
were judged by.

A run judged by a panel (`judges/panel.py`) keeps each item's score under each rubric of the band
and each juror of the jury.  For a pair of runs, the order of their means over the shared items is
worked out under every such view both runs have; a win that holds under all of them is robust, one
that holds under some and turns under others is judge-dependent, and the comparison says which.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.judges.rubrics import BAND
from pytest_memorybench.reports.compare.runs import score_of
from pytest_memorybench.results.schema import ItemRecord

TIE = 5e-7  # mean differences this small are a tie (the means are rounded to 6 places)


@dataclass(frozen=True)
class JudgeOrder:
    """A pair's mean difference (b − a) under each view both runs were judged by."""

    a: str
    b: str
    differences: dict[str, float]  # view ("strict rubric", "juror openai:…") → mean of b − a

    @property
    def robust(self) -> bool:
        """Whether the same run is ahead under every view (a tie under every view is robust too)."""
        return len({_sign(value) for value in self.differences.values()}) == 1

    def text(self, a: str | None = None, b: str | None = None) -> str:
        """The order in words, with the runs named `a` and `b` (their letters, say)."""
        a, b = a or self.a, b or self.b
        ahead = {
            sign: [view for view, value in self.differences.items() if _sign(value) == sign]
            for sign in (1, -1, 0)
        }
        if self.robust:
            sign = _sign(next(iter(self.differences.values())))
            order = f"{b} > {a}" if sign > 0 else f"{a} > {b}" if sign < 0 else f"{a} = {b}"
            return f"{order} under all {len(self.differences)}: {_listed(list(self.differences))}"
        parts = [f"{b} > {a} only under {_listed(ahead[1])}" if ahead[1] else ""]
        parts.append(f"{a} > {b} under {_listed(ahead[-1])}" if ahead[-1] else "")
        parts.append(f"a tie under {_listed(ahead[0])}" if ahead[0] else "")
        return "; ".join(part for part in parts if part) + ": judge-dependent"

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "differences": self.differences, "robust": self.robust}


def judge_orders(
    labels: Sequence[str],
    keyed: Sequence[Mapping[str, ItemRecord]],
    shared: Sequence[str],
    couples: Sequence[tuple[int, int]],
) -> list[JudgeOrder]:
    """Each couple's order under the views both runs have; none when they share fewer than two."""
    views = [_views(items, shared) for items in keyed]
    orders = []
    for a, b in couples:
        common = [view for view in views[a] if view in views[b]]
        if len(common) < 2:
            continue
        differences = {
            _label(view): round(
                sum(_view_score(keyed[b][key], view) - _view_score(keyed[a][key], view) for key in shared)
                / len(shared),
                6,
            )
            for view in common
        }
        orders.append(JudgeOrder(labels[a], labels[b], differences))
    return orders


def _views(items: Mapping[str, ItemRecord], shared: Sequence[str]) -> list[tuple[str, str]]:
    """The (part, name) views a run's shared items were judged under: band rubrics, then jurors."""
    seen: dict[tuple[str, str], None] = {}
    for key in shared:
        judging = items[key].get("judging")
        if judging is None:
            continue
        for rubric in BAND if judging.get("band") else ():
            seen[("band", rubric)] = None
        for juror in judging.get("jurors", {}):
            seen[("jurors", juror)] = None
    return list(seen)


def _view_score(item: ItemRecord, view: tuple[str, str]) -> float:
    part, name = view
    judging = item.get("judging")
    scores = (judging.get("band", {}) if part == "band" else judging.get("jurors", {})) if judging else {}
    return float(scores.get(name, score_of(item)))


def _label(view: tuple[str, str]) -> str:
    part, name = view
    return f"{name} rubric" if part == "band" else f"juror {name}"


def _sign(value: float) -> int:
    return 0 if abs(value) < TIE else 1 if value > 0 else -1


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
