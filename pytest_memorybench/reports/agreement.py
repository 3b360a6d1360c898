"""How far our verdicts agree with published ones, for a run that re-scores stored results.

An item of such a run carries the published automatic verdict in `details.published`; this module
compares it with ours per scenario: how many results, how many exactly equal, and the two means.
The table is built from results.json alone, so it can be recomputed from any re-score's file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.reports.table import short_name
from pytest_memorybench.results.schema import ResultsRecord

EXACT = 1e-6  # scores are rounded to 6 places: closer than this is the same verdict
LABEL = 28


@dataclass(frozen=True)
class AgreementRow:
    """Agreement of our verdicts with published ones for one scenario or category."""

    label: str
    results: int
    agreeing: int
    ours: float
    published: float

    @property
    def share(self) -> float:
        return self.agreeing / self.results if self.results else 0.0

    @property
    def difference(self) -> float:
        return self.ours - self.published


def published_items(items: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The items with a published verdict and one of ours (an item that errored has none to compare)."""
    return [
        item
        for item in items
        if isinstance((item.get("details") or {}).get("published"), dict) and item.get("score") is not None
    ]


def agrees(item: Mapping[str, Any]) -> bool:
    """Whether our score equals the published one for an item."""
    return bool(abs(item["score"] - item["details"]["published"]["score"]) < EXACT)


def corrections(items: Sequence[Mapping[str, Any]]) -> tuple[int, int, int]:
    """Among the disagreements, the verdicts GoodAI's reviewers corrected by hand: how many, how
    many of ours are nearer the correction than the automatic verdict was, and how many equal it."""
    corrected = nearer = equal = 0
    for item in published_items(items):
        published = item["details"]["published"]
        human = published.get("human_score")
        if human is None or agrees(item):
            continue
        corrected += 1
        nearer += abs(item["score"] - human) < abs(published["score"] - human)
        equal += abs(item["score"] - human) < EXACT
    return corrected, nearer, equal


def agreement_rows(items: Sequence[Mapping[str, Any]]) -> list[AgreementRow]:
    """One row per scenario (over every agent's results) and, under it, one per category its items
    have (LoCoMo's), then the total."""
    compared = published_items(items)
    by_scenario: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for item in compared:
        by_scenario[item["scenario"]].append(item)
    rows = []
    for name, group in sorted(by_scenario.items()):
        rows.append(_row(short_name(name, "ltm"), group))
        by_category: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for item in group:
            if item.get("category"):
                by_category[str(item["category"])].append(item)
        rows.extend(_row(f"  {category}", members) for category, members in sorted(by_category.items()))
    if compared:
        rows.append(_row("all", compared))
    return rows


def _row(label: str, items: Sequence[Mapping[str, Any]]) -> AgreementRow:
    return AgreementRow(
        label,
        len(items),
        sum(agrees(item) for item in items),
        sum(item["score"] for item in items) / len(items),
        sum(item["details"]["published"]["score"] for item in items) / len(items),
    )


def disagreements(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The items whose verdict differs from the published one, with both sides' reasons."""
    return [
        {
            "nodeid": item["nodeid"],
            "ours": item["score"],
            "published": item["details"]["published"]["score"],
            "reviewed": item["details"]["published"].get("human_score"),
            "our_reasons": item.get("reasons", []),
            "published_reasons": item["details"]["published"].get("reasons", []),
            "responses": item.get("responses", []),
            "file": item["details"]["published"].get("file"),
        }
        for item in published_items(items)
        if not agrees(item)
    ]


def agreement_lines(results: ResultsRecord, problems: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The terminal table (80 columns), the count of disagreements and any skipped files."""
    rows = agreement_rows(results["items"])
    if not rows:  # answers without published verdicts: only what could not be used is said
        return _skipped(problems)
    run = results["run"]
    lines = [
        f"published automatic verdicts vs ours (profile {run.get('profile')}, judge {run.get('judge')})",
        f"{'scenario':<{LABEL}}{'results':>8}{'agree':>9}{'ours':>8}{'published':>11}{'diff':>8}",
    ]
    for row in rows:
        label = row.label if len(row.label) < LABEL else row.label[: LABEL - 2] + "…"
        lines.append(
            f"{label:<{LABEL}}{row.results:>8}{row.share:>9.1%}{row.ours:>8.3f}{row.published:>11.3f}{row.difference:>+8.3f}"
        )
    different = rows[-1].results - rows[-1].agreeing
    if different:
        lines.append(
            f"{different} disagreement(s): each with both sides' reasons in report.html (section Agreement)"
        )
        corrected, nearer, equal = corrections(results["items"])
        if corrected:
            lines.append(
                f"{corrected} of them are verdicts GoodAI's reviewers corrected by hand: ours is nearer their"
                f" correction in {nearer} (equal to it in {equal})"
            )
    return lines + _skipped(problems)


def _skipped(problems: Sequence[str]) -> list[str]:
    """A line for each of the first five files or records a re-score could not use."""
    lines = [f"skipped: {problem}" for problem in problems[:5]]
    if len(problems) > 5:
        lines.append(f"skipped: … and {len(problems) - 5} more (results.json, run.rescore_skipped)")
    return lines
