"""The most a right answer can score against LoCoMo's original gold: the audit's ceiling per category.

The audit (`audit.py`) finds 99 of the 1,540 gold answers of categories 1-4 wrong or unanswerable
(every finding but a wrong citation).  A system that answers one of those questions rightly
contradicts its gold, and a judge that holds the answer to the gold it is given marks it wrong.
So under `official` (right or wrong against the original gold) a category of n questions, w of
them with a wrong gold, scores at most (n - w) / n: 0.901 for multi-hop, 0.919 temporal, 0.906
open-domain, 0.957 single-hop, 0.936 over the four (the audit's 93.57 %).  A mean above its
ceiling was given credit for matching answers the audit shows are wrong: the judge accepted
answers that contradict its gold (too lenient), or the run answered with the gold itself (it saw
the answers; the `oracle` does, by design, and is flagged).

Where the bound comes from:
  * the audit the run read (`--mb-data locomo_audit=PATH`, or the audit our generated
    conversations carry): each item's scorer notes what the audit says of its gold
    (its record's `details.scoring.gold_audit`), so any subset of the questions
    (`--mb-sample`, `conversations`) has its exact bound;
  * without it, the audit's counts for the published file (`AUDITED_WRONG`), for a category the
    run holds whole (every question of it, from the published samples `conv-*`).  A subset has no
    bound then: its questions could be the ones with a right gold.

Not checked under `paper` (token F1 gives a right answer partial credit against a wrong gold:
"8 May 2023" against a wrong "7 May 2023" earns 0.67) nor under `audited` (scored against the
corrected gold, the unanswerable questions left out: its ceiling is 1).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from typing_extensions import TypedDict

from pytest_memorybench.scenarios.locomo.data import CATEGORIES
from pytest_memorybench.scoring.profiles import OFFICIAL

# Per category of the published locomo10.json: (gold answers the audit finds wrong or unanswerable,
# questions).  Counted from dial481/locomo-audit's errors.json (commit 9493fb4, 2026-04-02): its
# findings other than WRONG_CITATION, by the category of the question they name; the questions are
# the file's own counts.  tests/scenarios/test_locomo_ceiling.py recounts them from both files.
AUDITED_WRONG = {
    CATEGORIES[1]: (28, 282),
    CATEGORIES[2]: (26, 321),
    CATEGORIES[3]: (9, 96),
    CATEGORIES[4]: (36, 841),
}
PUBLISHED_SAMPLE = "conv-"  # the published samples' ids (conv-26 …); ours are gen-N
_MISSING = object()


class Ceiling(TypedDict):
    """The most a category's mean can honestly be, and why (results.json adds whether it was exceeded)."""

    maximum: float
    wrong: int  # gold answers the audit finds wrong …
    of: int  # … among this many questions
    source: str  # "audit": the audit the run read, item by item; "published counts": its counts


def ceilings(records: Sequence[Mapping[str, Any]], profile: str) -> dict[str, Ceiling]:
    """Each category's ceiling under `profile`, for the categories it bounds: `maximum` (the most
    its mean can honestly be), `wrong` of `of` (the gold answers the audit finds wrong, among how
    many) and `source` (`audit`: the audit this run read, item by item; `published counts`: the
    audit's counts for the whole published category)."""
    if profile != OFFICIAL:
        return {}
    by_category: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        if record.get("category") in AUDITED_WRONG:
            by_category[str(record["category"])].append(record)
    found: dict[str, Ceiling] = {}
    for category, members in by_category.items():
        scored = [record for record in members if record.get("score") is not None]
        if not scored:
            continue
        bound = _from_audit(scored) or _from_counts(category, members, scored)
        if bound is not None:
            found[category] = bound
    return found


def _from_audit(scored: Sequence[Mapping[str, Any]]) -> Ceiling | None:
    """The exact bound of these items, when the run read an audit (every item says what it found)."""
    marks = [
        ((record.get("details") or {}).get("scoring") or {}).get("gold_audit", _MISSING) for record in scored
    ]
    if any(mark is _MISSING for mark in marks):
        return None
    wrong = sum(mark is not None for mark in marks)
    return {
        "maximum": _share(len(scored) - wrong, len(scored)),
        "wrong": wrong,
        "of": len(scored),
        "source": "audit",
    }


def _from_counts(
    category: str, members: Sequence[Mapping[str, Any]], scored: Sequence[Mapping[str, Any]]
) -> Ceiling | None:
    """The bound of a whole published category from the audit's counts.  An item that errored may
    be one of the wrong golds, so the mean over those that scored is bounded by the fewest wrong
    golds they can hold."""
    wrong, questions = AUDITED_WRONG[category]
    if len(members) != questions or not all(
        str(record.get("test_id", "")).startswith(PUBLISHED_SAMPLE) for record in members
    ):
        return None
    left = max(0, wrong - (len(members) - len(scored)))
    return {
        "maximum": _share(len(scored) - left, len(scored)),
        "wrong": wrong,
        "of": questions,
        "source": "published counts",
    }


def _share(right: int, questions: int) -> float:
    return round(right / questions, 6)


__all__ = ["AUDITED_WRONG", "ceilings"]
