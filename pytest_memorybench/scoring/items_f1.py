"""Item-level F1 for the episodic-memory benchmark (Huet et al., ICLR 2025).

A judge lists the items the answer gives (`identified`) and scores each ground-truth item 1 (found),
0.5 (related but not explicit) or 0 (missing) (`matching`, aligned with `ground_truth`).  The F1
below is computed from that verdict without another judge call, exactly as
`epbench/src/evaluation/scoring_answers.py` (`generate_metric`, `f1_score_func`) does.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_memorybench.core.f1 import harmonic_f1
from pytest_memorybench.core.records import Score
from pytest_memorybench.scoring.text import unique_in_order


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _f1(precision: float | None, recall: float | None) -> tuple[float, str]:
    """F1 with the published rules for undefined precision or recall, and why."""
    if precision == 0 and recall == 0:
        return 0.0, "P = R = 0"
    if precision is not None and recall is not None:
        return harmonic_f1(precision, recall), "2PR / (P + R)"
    if precision is None and recall is None:
        return 1.0, "nothing to find and nothing identified: abstention credit"
    if precision is None:
        return 0.0, "ground truth present but nothing identified"
    return 0.0, "items identified where the ground truth is empty"


def _check_matching(matching: Sequence[float], ground_truth: Sequence[str]) -> None:
    if len(matching) != len(ground_truth):
        raise ValueError(f"{len(matching)} matching scores for {len(ground_truth)} ground-truth items")
    for value in matching:
        if isinstance(value, bool) or not 0.0 <= float(value) <= 1.0:
            raise ValueError(f"matching score {value!r} is not a number in [0, 1]")


def items_f1(
    identified: Sequence[str],
    matching: Sequence[float],
    ground_truth: Sequence[str],
    *,
    lenient: bool = True,
    remove_duplicates: bool = True,
) -> Score:
    """Episodic F1 from a judge's item verdict.

    Rules, as published:
      * with `remove_duplicates` (the reported policy), repeated identified items and repeated
        ground-truth items are dropped, first occurrences kept in order; a repeated
        ground-truth item keeps the score of its first occurrence;
      * S = Σ matching scores, #gt = number of ground-truth items;
      * #pred = #identified (harsh); lenient: min(#identified, #gt) when #gt > 0, because
        full-event, latest and other-entity answers rightly list more details than the ground
        truth holds;
      * P = S / #pred (undefined when #pred = 0), R = S / #gt (undefined when #gt = 0);
      * F1 = 0 when P = R = 0; 2PR / (P + R) when both are defined; 1 when both are undefined
        (nothing to find and nothing claimed: the abstention credit of empty-answer questions);
        0 when exactly one is undefined (a miss, or a hallucination where nothing exists).
    A judge that credits more ground-truth items than it identified makes P exceed 1 and F1
    exceed 1 in the original code; here F1 is capped at 1 and the reasons say so.
    """
    _check_matching(matching, ground_truth)
    reasons: list[str] = []
    preds = list(identified)
    pairs = list(zip(ground_truth, (float(v) for v in matching), strict=True))
    if remove_duplicates:
        preds = unique_in_order(preds)
        first: dict[str, float] = {}
        for item, value in pairs:
            first.setdefault(item, value)
        pairs = list(first.items())
        dropped = (len(identified) - len(preds), len(ground_truth) - len(pairs))
        if any(dropped):
            reasons.append(f"duplicates removed: {dropped[0]} identified, {dropped[1]} ground-truth item(s)")

    n_gt = len(pairs)
    n_identified = len(preds)
    n_pred = min(n_identified, n_gt) if lenient and n_gt > 0 else n_identified
    total = sum(value for _, value in pairs)
    precision = total / n_pred if n_pred > 0 else None
    recall = total / n_gt if n_gt > 0 else None

    f1, why = _f1(precision, recall)
    rule = f"lenient #pred = min({n_identified}, {n_gt})" if lenient and n_gt > 0 else "#pred = #identified"
    reasons.append(
        f"#identified = {n_identified}, #gt = {n_gt}, {rule} = {n_pred}, S = {total:g}; "
        f"P = {_fmt(precision)}, R = {_fmt(recall)}"
    )
    reasons.append(f"F1 = {f1:.3f} ({why})")
    if f1 > 1.0:
        reasons.append("the judge credited more ground-truth items than it identified: F1 capped at 1")
        f1 = 1.0
    return Score(f1, tuple(reasons))
