"""The stale-fact rate: over the questions whose answer replaced a value, how often the old value
reached what the answer was given, and how often the answer asserted it (`contract/stale.py` records
both per item, in `details.stale`).

A memory that keeps every version of a fact finds the new one (its recall is high) and offers the
old one beside it; a model that reads both may give either.  The two rates tell them apart: a high
`reached` rate is the memory's (it did not let the old value go, or ranked it above the new), an
`asserted` rate is what reached the user.
"""

from __future__ import annotations

from collections.abc import Sequence

from typing_extensions import TypedDict

from pytest_memorybench.results.schema import ItemRecord, StaleRecord


class StalePart(TypedDict, total=False):
    """`stale_facts` where it stands in a record of results.json (the totals, a scenario)."""

    stale_facts: StaleRecord


def stale_rate(records: Sequence[ItemRecord]) -> StaleRecord | None:
    """The stale-fact figures over the scored items that record `stale`, or None when none does."""
    measured = [
        stale
        for record in records
        if record.get("score") is not None
        and isinstance(stale := (record.get("details") or {}).get("stale"), dict)
    ]
    if not measured:
        return None
    asserted = sum(bool(stale.get("asserted")) for stale in measured)
    shown = [bool(stale["reached"]) for stale in measured if stale.get("reached") is not None]
    return {
        "questions": len(measured),
        "asserted": asserted,
        "asserted_rate": round(asserted / len(measured), 6),
        "reached_questions": len(shown),
        "reached": sum(shown),
        "reached_rate": round(sum(shown) / len(shown), 6) if shown else None,
    }


def stale_part(records: Sequence[ItemRecord]) -> StalePart:
    """`stale_facts`, where some item's scenario knows what its answer superseded."""
    rate = stale_rate(records)
    return {"stale_facts": rate} if rate is not None else {}


def stale_lines(stale: StaleRecord | None) -> list[str]:
    """The stale-fact rates in lines of a terminal's width, for the terminal and report.html."""
    if not stale:
        return []
    lines = [
        f"stale facts: {stale['asserted']} of {stale['questions']} answers ({stale['asserted_rate']:.0%})"
        " assert a superseded value, negation-aware"
    ]
    if stale["reached_rate"] is not None:
        lines.append(
            f"  one reached what the answer was given in {stale['reached']} of {stale['reached_questions']}"
            f" ({stale['reached_rate']:.0%})"
        )
    return lines
