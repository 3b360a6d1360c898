"""Runs that differ only in how much history they hold, as curves: where does a memory start to pay?

GoodAI's span curve (score against the memory span in tokens) and ConvoMem's scale curve (score
against the number of conversations in each question's history) are the same figure: the runs of
one agent, alike in everything but that size, joined in order of it.  Beside the score, what each
run cost and how fast it answered, since a memory that wins at 300 conversations may cost less
than the history it replaces.  Where two agents' curves cross, the crossing is named: "bm25
overtakes full-context at 4 conversations", the point a buyer of a memory needs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.core.spans import parse_span
from pytest_memorybench.reports.compare.runs import IDENTITY, FinishedRun
from pytest_memorybench.results.file import part

SPAN_UNIT = "memory span (tokens)"
MEASURES = {"score": "mean score", "cost": "cost, agent and judge ($)", "latency": "reply latency p50 (s)"}
CONVERSATION_UNIT = "conversations in each question's history"


@dataclass(frozen=True)
class Point:
    """One run on the curve."""

    size: float
    score: float
    ci95: list[float] | None
    cost: float  # agent and judge, USD
    latency: float | None  # a reply's p50, seconds


@dataclass(frozen=True)
class Crossing:
    """Where `ahead` first scores above `behind`, having scored at most as much at the size before."""

    ahead: str
    behind: str
    size: float
    ahead_score: float
    behind_score: float

    def text(self, unit: str) -> str:
        return (
            f"{self.ahead} overtakes {self.behind} at {_size(self.size)} {_short(unit)}"
            f" ({self.ahead_score:.3f} against {self.behind_score:.3f})"
        )


@dataclass(frozen=True)
class Scale:
    """The curves of a comparison: one per agent, over one unit of size."""

    unit: str
    series: dict[str, list[Point]]

    def curves(self, measure: str) -> dict[str, list[tuple[float, float, list[float] | None]]]:
        """One measure of the points (score with its interval, cost, latency) as the figure draws it."""
        drawn: dict[str, list[tuple[float, float, list[float] | None]]] = {}
        for agent, points in self.series.items():
            values = [
                (point.size, getattr(point, measure), point.ci95 if measure == "score" else None)
                for point in points
            ]
            drawn[agent] = [(size, float(value), ci) for size, value, ci in values if value is not None]
        return drawn

    def crossings(self) -> list[Crossing]:
        found = []
        for ahead, ahead_points in self.series.items():
            for behind, behind_points in self.series.items():
                if ahead == behind:
                    continue
                theirs = {point.size: point.score for point in behind_points}
                common = [
                    point for point in sorted(ahead_points, key=lambda p: p.size) if point.size in theirs
                ]
                for before, now in zip(common, common[1:], strict=False):
                    if before.score <= theirs[before.size] and now.score > theirs[now.size]:
                        found.append(Crossing(ahead, behind, now.size, now.score, theirs[now.size]))
                        break
        return found

    def lines(self) -> list[str]:
        """The terminal's lines: the curve's sizes, then each crossing."""
        sizes = sorted({point.size for points in self.series.values() for point in points})
        over = ", ".join(_size(size) for size in sizes)
        head = f"scale: {len(self.series)} curve(s) over {over} {_short(self.unit)}"
        crossings = [f"  {crossing.text(self.unit)}" for crossing in self.crossings()]
        return [head, *(crossings or ["  no curve overtakes another"])]

    def to_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "series": {
                name: [point.__dict__ for point in sorted(points, key=lambda p: p.size)]
                for name, points in self.series.items()
            },
            "crossings": [crossing.text(self.unit) for crossing in self.crossings()],
        }


def size_of(run: FinishedRun) -> tuple[float, str] | None:
    """How much history the run held: its one interleaved span, else the one number of sessions
    its items' histories held (ConvoMem's conversations, `details.sessions`)."""
    spans = {str(span) for span in (run.info.get("span") or {}).values()}
    if len(spans) == 1:
        tokens = parse_span(spans.pop()).tokens
        if tokens:
            return float(tokens), SPAN_UNIT
    counts = {
        int(sessions)
        for item in run.results.get("items") or []
        if isinstance(sessions := (item.get("details") or {}).get("sessions"), int)
    }
    if len(counts) == 1:
        return float(counts.pop()), CONVERSATION_UNIT
    return None


def scale(runs: list[FinishedRun]) -> Scale | None:
    """The curves of runs that differ only in size (two sizes at least), one per agent; None when
    no runs do."""
    groups: dict[str, list[tuple[float, str, FinishedRun]]] = {}
    for run in runs:
        size = size_of(run)
        if size is None:
            continue
        identity = {key: run.info.get(key) for key in IDENTITY if key not in ("span", "seed")}
        groups.setdefault(json.dumps(identity, sort_keys=True, default=str), []).append((*size, run))
    series: dict[str, list[Point]] = {}
    units = set()
    for members in groups.values():
        points = [_point(size, run) for size, _, run in members]
        kept = [point for point in points if point is not None]
        if len({point.size for point in kept}) >= 2:
            first = members[0][2]
            series[str(first.info.get("agent") or first.label)] = kept
            units.add(members[0][1])
    if not series or len(units) != 1:
        return None
    return Scale(units.pop(), series)


def _point(size: float, run: FinishedRun) -> Point | None:
    totals = part(run.results, "totals")
    mean = totals.get("mean")
    if mean is None:
        return None
    latency = (totals.get("latency") or {}).get("p50")
    cost = float(totals.get("cost_usd") or 0.0) + float(totals.get("judge_cost_usd") or 0.0)
    return Point(size, float(mean), totals.get("ci95"), cost, latency)


def _size(size: float) -> str:
    return str(parse_span(int(size))) if size >= 1000 else f"{size:g}"


def _short(unit: str) -> str:
    return "tokens" if unit == SPAN_UNIT else "conversations"


__all__ = ["CONVERSATION_UNIT", "SPAN_UNIT", "Crossing", "Point", "Scale", "scale", "size_of"]
