"""Scorers that ask the judge a narrow semantic question, then apply the paper's rule themselves.

Every function takes the judge explicitly (the run's `--judge`, or `LocalJudge()` when a user test
gives none), so the same rule is scored by an LLM or offline.  A verdict the judge could not give
in valid JSON scores 0 with its `judge-unparseable` reason instead of raising.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Score
from pytest_memorybench.judges.base import Judge, JudgeTask, JudgeVerdict
from pytest_memorybench.judges.replies import ItemsReply, OrderReply
from pytest_memorybench.scoring.items_f1 import items_f1
from pytest_memorybench.scoring.kendall import episodic_common_indexes, episodic_tau
from pytest_memorybench.scoring.nuggets import score_nuggets
from pytest_memorybench.scoring.profiles import PAPER, Profile


def _failed(verdict: JudgeVerdict) -> Score:
    return Score(0.0, (verdict.error or "the judge gave no verdict",))


async def score_reference(
    judge: Judge, *, question: str, expected: str, answer: str, scorer: str = "reference"
) -> Score:
    """GoodAI's checker (Fig. 8): right iff the answer refers to the expected answer and, when
    that is a number, the numbers match."""
    verdict = await judge.judge(
        JudgeTask("reference", {"question": question, "expected": expected, "answer": answer}, scorer)
    )
    if not verdict.ok:
        return _failed(verdict)
    data = verdict.data or {}
    numeric, match = bool(data.get("expected_is_number")), data.get("numbers_match")
    correct = bool(data.get("refers")) and not (numeric and match is False)
    reason = (
        f"the answer {'refers' if data.get('refers') else 'does not refer'} to {expected!r}"
        + (f"; the numbers {'match' if match else 'do not match'}" if numeric else "")
        + f" (judge {judge.name})"
    )
    return Score(1.0 if correct else 0.0, (reason,))


async def score_answer(
    judge: Judge, *, question: str, expected: str, answer: str, rule: str, scorer: str
) -> Score:
    """1 when the judge finds the answer right by `rule` (LoCoMo's J, LongMemEval's checks), else 0."""
    verdict = await judge.judge(
        JudgeTask(
            "answer", {"question": question, "expected": expected, "answer": answer, "rule": rule}, scorer
        )
    )
    if not verdict.ok:
        return _failed(verdict)
    data = verdict.data or {}
    correct = bool(data.get("correct"))
    why = f": {data['reason']}" if data.get("reason") else ""
    reason = (
        f"judge {judge.name} finds the answer {'right' if correct else 'wrong'} against {expected!r} by the"
        f" {rule} rule{why}"
    )
    return Score(1.0 if correct else 0.0, (reason,))


async def score_items(
    judge: Judge,
    *,
    question: str,
    ground_truth: Sequence[str],
    answer: str,
    retrieval_type: str = "",
    candidates: Sequence[str] = (),
    scorer: str = "items",
) -> tuple[Score, list[str]]:
    """Episodic F1 (Listing 12 + the lenient #pred rule); also returns the identified items.

    `candidates`: names of the kind asked for that the answer might give (every place of the
    book, say).  Only the offline local judge reads them, to find items named in prose; an LLM
    judge's prompt does not show them, so its verdicts and cache keys are unchanged.
    """
    payload: JsonObject = {
        "question": question,
        "retrieval_type": retrieval_type,
        "ground_truth": list(ground_truth),
        "answer": answer,
    }
    if candidates:
        payload["candidates"] = list(candidates)
    verdict = await judge.judge(JudgeTask("items", payload, scorer))
    if not verdict.ok:
        return _failed(verdict), []
    data = cast(ItemsReply, verdict.data or {})
    identified = list(data.get("identified", []))
    return items_f1(identified, list(data.get("matching", [])), list(ground_truth)), identified


async def score_order(
    judge: Judge, *, predicted: Sequence[str], ground_truth: Sequence[str], scorer: str = "order"
) -> tuple[float | None, int]:
    """Episodic chronology (Listing 14): Kendall τ over the items found, and how many were found."""
    verdict = await judge.judge(
        JudgeTask("order", {"predicted": list(predicted), "ground_truth": list(ground_truth)}, scorer)
    )
    if not verdict.ok:
        return None, 0
    indexes = list(cast(OrderReply, verdict.data or {}).get("predicted_indexes", []))
    return episodic_tau(indexes, len(ground_truth)), len(episodic_common_indexes(indexes, len(ground_truth)))


async def score_rubric(
    judge: Judge,
    *,
    question: str,
    nuggets: Sequence[str],
    answer: str,
    profile: Profile = PAPER,
    ability: str | None = None,
    scorer: str = "nugget",
) -> Score:
    """BEAM: each nugget judged 0 / 0.5 / 1, then averaged (truncated under `official`)."""
    scores: list[float] = []
    for nugget in nuggets:
        verdict = await judge.judge(
            JudgeTask("nugget", {"question": question, "nugget": nugget, "answer": answer}, scorer)
        )
        if not verdict.ok:
            return _failed(verdict)
        given = (verdict.data or {}).get("score", 0.0)
        scores.append(float(given) if isinstance(given, (int, float)) else 0.0)
    return score_nuggets(scores, profile, ability=ability)
