"""How much a run's score depends on its judge: the items' `judging` records summed up.

Each item a panel judged (`judges/panel.py`) records how many of its tasks every voice decided
alike, how many single verdicts went against their majority, and the item's score under each view:
a rubric of the band, a juror of the jury, one call of a juror asked more than once.  Here they
become, for a run or a suite:

  stability  the share of tasks decided unanimously, the share of single verdicts against their
             task's majority, and per juror asked more than once the run's score under each single
             call (mean ± sd, as MemOS reports it) and the share of its calls against its own
             majority (an estimate of how often one call of it flips)
  jury       each juror's score, Fleiss' kappa over the items (each juror's item score its
             category) and every pair's share of items scored alike
  band       the mean under the strict, official and generous rubrics

An item the judge was not asked about (scored by string match) counts with its own score in every
view, so views are means over the same items as the headline.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import Any, Literal

from typing_extensions import TypedDict

from pytest_memorybench.judges.rubrics import BAND
from pytest_memorybench.results.schema import (
    ItemJudgingRecord,
    ItemRecord,
    JudgingRecord,
    JurorPairRecord,
    JuryRecord,
    RepeatSpreadRecord,
)


class JudgingPart(TypedDict, total=False):
    """`judging` where it stands in a record of results.json (the totals, a suite)."""

    judging: JudgingRecord


def judging_figures(records: Sequence[ItemRecord]) -> JudgingRecord | None:
    """The judge-dependence figures of these items, or None when no panel judged any of them."""
    scored = [record for record in records if record["score"] is not None]
    judged = [judging for record in scored if (judging := record.get("judging"))]
    if not judged:
        return None
    tasks, votes = sum(j["tasks"] for j in judged), sum(j["votes"] for j in judged)
    figures: JudgingRecord = {
        "items": len(judged),
        "tasks": tasks,
        "unanimous": _share(sum(j["unanimous"] for j in judged), tasks),
        "dissent": _share(sum(j["dissent"] for j in judged), votes),
    }
    if any("band" in j for j in judged):
        figures["band"] = {rubric: _view_mean(scored, "band", rubric) for rubric in BAND}
    jurors = _names(judged, "jurors")
    if jurors:
        figures["jury"] = jury_agreement(scored, jurors)
    repeated = _names(judged, "repeats")
    if repeated:
        figures["repeats"] = {juror: _spread(scored, juror) for juror in repeated}
    return figures


def judging_part(records: Sequence[ItemRecord]) -> JudgingPart:
    """`judging`, when a judge panel judged some of these items."""
    figures = judging_figures(records)
    return {"judging": figures} if figures is not None else {}


def jury_agreement(scored: Sequence[ItemRecord], jurors: list[str]) -> JuryRecord:
    """Each juror's score, Fleiss' kappa and pairwise agreement over the items every juror scored."""
    rated = [
        [round(float(views[name]), 3) for name in jurors]
        for record in scored
        if all(name in (views := _views(record, "jurors")) for name in jurors)
    ]
    pairs: list[JurorPairRecord] = [
        {
            "jurors": [jurors[a], jurors[b]],
            "agreement": _share(sum(row[a] == row[b] for row in rated), len(rated)),
        }
        for a, b in combinations(range(len(jurors)), 2)
    ]
    return {
        "scores": {name: _view_mean(scored, "jurors", name) for name in jurors},
        "items": len(rated),
        "fleiss_kappa": fleiss_kappa(rated),
        "pairwise": pairs,
    }


def fleiss_kappa(ratings: Sequence[Sequence[Any]]) -> float | None:
    """Fleiss' kappa of items each rated by the same number of raters (any hashable category).

    None when it is undefined: no items, or every rating the same category (no chance to agree by).
    """
    if not ratings or len(ratings[0]) < 2:
        return None
    raters = len(ratings[0])
    totals: Counter[Any] = Counter()
    agreement = 0.0
    for row in ratings:
        counts = Counter(row)
        totals.update(counts)
        agreement += (sum(n * n for n in counts.values()) - raters) / (raters * (raters - 1))
    observed = agreement / len(ratings)
    expected = sum((n / (len(ratings) * raters)) ** 2 for n in totals.values())
    if expected >= 1.0:
        return None
    return round((observed - expected) / (1.0 - expected), 4)


def _spread(scored: Sequence[ItemRecord], juror: str) -> RepeatSpreadRecord:
    """The run's score under each single call of a juror: the scores, their mean and sd."""
    calls = max(len(_repeats(r).get(juror, [])) for r in scored)
    scores = []
    for call in range(calls):
        values = []
        for record in scored:
            singles = _repeats(record).get(juror)
            values.append(singles[call] if singles and call < len(singles) else record["score"] or 0.0)
        scores.append(round(sum(values) / len(values), 6))
    dissent = [_own_dissent(r, juror) for r in scored]
    return {
        "scores": scores,
        "mean": round(statistics.fmean(scores), 6),
        "sd": round(statistics.stdev(scores), 6) if len(scores) > 1 else 0.0,
        "dissent": _share(sum(pair[0] for pair in dissent), sum(pair[1] for pair in dissent)),
    }


def _view_mean(scored: Sequence[ItemRecord], part: Literal["band", "jurors"], name: str) -> float:
    values = [float(_views(record, part).get(name, record["score"] or 0.0)) for record in scored]
    return round(sum(values) / len(values), 6)


def _views(record: ItemRecord, part: Literal["band", "jurors"]) -> dict[str, float]:
    """The item's score under each rubric of the band, or each juror of the jury: none unjudged."""
    judging = record.get("judging")
    return judging.get(part, {}) if judging is not None else {}


def _repeats(record: ItemRecord) -> dict[str, list[float]]:
    """The item's score under each call of each juror asked more than once."""
    judging = record.get("judging")
    return judging.get("repeats", {}) if judging is not None else {}


def _own_dissent(record: ItemRecord, juror: str) -> list[int]:
    """[a juror's calls on the item against its own majority, its calls]; none when unjudged."""
    judging = record.get("judging")
    return judging.get("repeat_dissent", {}).get(juror, [0, 0]) if judging is not None else [0, 0]


def _names(judged: Sequence[ItemJudgingRecord], part: Literal["jurors", "repeats"]) -> list[str]:
    return list(dict.fromkeys(name for j in judged for name in j.get(part, {})))


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None
