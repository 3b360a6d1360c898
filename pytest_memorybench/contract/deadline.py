"""The answer deadline (`--mb-answer-deadline S`): an answer has to come in time to count.

DialSim asks its agent to answer within 1, 3 or 5 seconds and counts a later answer as none.  With a
deadline, a scored answer that took longer than it scores 0, and its first reason says so (how long
it took, the deadline, and what it scored on time), so the report shows why and what was lost.  An
answer whose latency is unknown (published results re-scored) is not held to it: nothing says it
was late.  The latency-budget figures (`results/latency_budget.py`) show the same rule for every
budget at once, without changing any score.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_memorybench.core.records import Score

LATE = "late:"  # how a late answer's reason begins


def on_time(score: Score, answer_seconds: float | None, deadline: float | None) -> Score:
    """`score`, or 0 with the reason when the answer took longer than `deadline` seconds.

    A late score keeps its scorer's reasons after its own but not a judge panel's views (each
    would be 0 too): the figures that weigh judges then leave it out as no judged item."""
    if deadline is None or answer_seconds is None or answer_seconds <= deadline:
        return score
    reason = (
        f"{LATE} answered in {answer_seconds:.3g} s, over the {deadline:g} s answer deadline"
        f" (--mb-answer-deadline); on time it would have scored {score.value:.3g}"
    )
    return Score(0.0, (reason, *score.reasons), details=score.details)


def answer_latency(seconds: Sequence[float | None]) -> float | None:
    """A test's answer latency from each of its answers' (its questions' replies): the slowest, as
    the test is answered only when its last answer is in; None when it asked nothing or one
    answer's time is unknown."""
    if not seconds or any(value is None for value in seconds):
        return None
    return round(max(value for value in seconds if value is not None), 6)
