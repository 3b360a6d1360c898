"""Scoring one episodic question, and the paper's summary metrics over a run.

Per question (App. B.3):
  * the judge's "items" task (meaning of Listing 12) lists the items the answer gives and scores
    each ground-truth item 1 / 0.5 / 0; F1 then follows the lenient rule #pred = min(#identified,
    #gt) and the published special cases (`scoring.items.items_f1`): an empty ground truth answered
    with no item scores 1, a hallucination or a miss 0.  "Full event details" questions are
    judged against the chapter's text, as the paper does.
  * chronological questions with at least two (distinct) ground-truth items also go through the
    judge's "order" task (Listing 14) on the identified items; Kendall τ is taken over the items
    both lists share (`scoring.kendall.episodic_tau`) and counts only when every ground-truth item
    was found ("exact match").  Such an item's score is that chronology credit, max(0, τ) on an
    exact match and 0 otherwise, because ordering is what the question asks; its F1 stays in the
    reasons.  Every other question scores its F1.
The two profiles agree here: the published code reports the same lenient F1 under its
`remove_duplicates` policy.

Summary (`summarize`, from the run's item records; the paper's `ranking.py` definitions):
  * Simple Recall = the unweighted mean over bins of the mean F1 of `get = all` questions;
  * Chronological Awareness = ½ · (Latest + max(0, All × τ)), where Latest is the mean F1 of
    `latest` questions in bins 2, 3-5 and 6+, All the share of chronological questions (≥ 2
    items) answered with every item, and τ the mean Kendall τ over those exact matches;
  * and both halves of the picture: the mean score on empty-answer questions and on the rest, so an
    agent that always abstains (1 on the first, 0 on the second) cannot pass for a good memory.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.judges.base import Judge
from pytest_memorybench.scenarios.episodic.questions import BINS
from pytest_memorybench.scoring.judged import score_items, score_order
from pytest_memorybench.scoring.text import unique_in_order

SCORER = "episodic"
LATEST_BINS = ("2", "3-5", "6+")
_CHRONOLOGY = re.compile(
    r"^chronology: (?P<found>\d+) of (?P<total>\d+) items aligned, (?P<exact>exact|not exact), tau"
    r" (?P<tau>-?[\d.]+|undefined)"
)


def chronology_reason(found: int, total: int, tau: float | None) -> str:
    """The reason line that carries a chronological question's result to `summarize`."""
    exact = "exact" if found == total else "not exact"
    return (
        f"chronology: {found} of {total} items aligned, {exact}, tau"
        f" {'undefined' if tau is None else f'{tau:.4f}'}"
    )


def parse_chronology(reasons: Iterable[str]) -> tuple[int, int, float | None] | None:
    """(found, total, tau) from a chronological item's reasons, or None for other items."""
    for reason in reasons:
        match = _CHRONOLOGY.match(reason)
        if match:
            tau = None if match["tau"] == "undefined" else float(match["tau"])
            return int(match["found"]), int(match["total"]), tau
    return None


async def score_question(
    definition: TestDefinition, responses: Sequence[str], context: ScoringContext
) -> Score:
    """The score of one episodic question (see the module docstring)."""
    expected: Mapping[str, Any] = definition.expected
    answer = responses[-1] if responses else ""
    judge: Judge = context.judge or _local_judge()
    truth = list(expected.get("judge_answer") or expected["answer"])
    f1, identified = await score_items(
        judge,
        question=definition.questions[0],
        ground_truth=truth,
        answer=answer,
        retrieval_type=str(expected["retrieval_type"]),
        candidates=list(expected.get("candidates") or ()),
        scorer=SCORER,
    )
    order = unique_in_order(list(expected["answer"]))
    if expected["get"] != "chronological" or len(order) < 2:
        return f1
    tau, found = await score_order(judge, predicted=identified, ground_truth=order, scorer=SCORER)
    exact = found == len(order) and tau is not None
    value = max(0.0, tau) if exact and tau is not None else 0.0
    rule = "max(0, tau) on an exact match" if exact else "0: not every item was found and aligned"
    return Score(
        value,
        (
            *f1.reasons,
            chronology_reason(found, len(order), tau),
            f"score = {value:.3f} ({rule}; F1 above is reported, not scored)",
        ),
    )


def _local_judge() -> Judge:
    from pytest_memorybench.judges.local import LocalJudge

    return LocalJudge()


def _mean(values: Sequence[float]) -> float | None:
    return round(fmean(values), 4) if values else None


def summarize(records: Sequence[Mapping[str, Any]]) -> JsonObject:
    """The paper's headline metrics and the empty / non-empty halves, from results.json item records.

    Records are grouped by their `category`, written `<get>/<bin>` by the scenario; records of
    other shapes are ignored.  Metrics that have no questions behind them are None.
    """
    scores: dict[tuple[str, str], list[float]] = defaultdict(list)
    chronology: list[tuple[int, int, float | None]] = []
    for record in records:
        get, _, bin_label = str(record.get("category") or "").partition("/")
        if bin_label not in BINS:
            continue
        scores[(get, bin_label)].append(float(record.get("score") or 0.0))
        parsed = parse_chronology(record.get("reasons") or ())
        if get == "chronological" and parsed is not None:
            chronology.append(parsed)

    by_bin = {label: _mean(scores[("all", label)]) for label in BINS if scores.get(("all", label))}
    simple_recall = _mean([value for value in by_bin.values() if value is not None])
    latest = _mean([value for label in LATEST_BINS for value in scores.get(("latest", label), [])])
    exact_taus = [tau for found, total, tau in chronology if found == total and tau is not None]
    exact_share = len(exact_taus) / len(chronology) if chronology else None
    tau = fmean(exact_taus) if exact_taus else None
    awareness = None
    if latest is not None and exact_share is not None:
        ordered = exact_share * tau if tau is not None else 0.0  # no exact match: 0, as ranking.py has it
        awareness = round(0.5 * (latest + max(0.0, ordered)), 4)
    empty = [value for (_, label), values in scores.items() if label == "0" for value in values]
    non_empty = [value for (_, label), values in scores.items() if label != "0" for value in values]
    return {
        "simple_recall": simple_recall,
        "chronological_awareness": awareness,
        "empty_answer_mean": _mean(empty),
        "non_empty_mean": _mean(non_empty),
        "empty_answer_questions": len(empty),
        "non_empty_questions": len(non_empty),
        "latest": latest,
        "chronological_exact": None if exact_share is None else round(exact_share, 4),
        "kendall_tau": None if tau is None else round(tau, 4),
        "simple_recall_by_bin": by_bin,
    }
