"""Scoring a reply to a BEAM probing question (paper §2.4, App. D; research/peers.md (b) §2).

Nine abilities: each rubric nugget is judged 0 / 0.5 / 1 by the judge (`nugget` task), then
  paper     the verdicts are averaged;
  official  each verdict goes through `int()` first, as `compute_metrics.py` does, so 0.5 counts 0;
            and the judge is not shown the question: the published prompt's `<question>`
            placeholder is never filled, so the judge sees that placeholder in its place.

Event ordering: the reply is cut into items, each item is aligned greedily with the first unused
rubric event the judge finds equivalent (`equivalence` task) and replaced by that event's text,
then Kendall tau-b is computed over the union of both lists with tie ranks for missing items and
normalised, tau_norm = (tau_b + 1) / 2 (scoring/kendall.py).  The item's score is tau_norm, the
number BEAM's report uses, under both profiles; precision, recall, F1 and tau_norm × F1 (the code's
`final_score`) go to the item's details and to the summary.  The suite parameter
`ordering_score: tau_norm_f1` makes tau_norm × F1 the item's score instead.
  paper     items are the reply's non-blank lines without list markers ("1.", "2)", "-"); a one-line
            reply enumerating "1) …, 2) …" is split at its numbers; rubric events lose the
            "LLM response should mention:" stem some files put before them;
  official  items are `reply.split("\\n")` (blank lines included, as the code does) and events are
            compared as written.
Blank items are never sent to the judge: they cannot state an event (the answer is "no").

Calibration consequence (measured in tests/scenarios/test_beam_scoring.py): an abstaining reply earns
tau_norm > 0 on event ordering, because a single unmatched item ranked against n missing events
gives tau_b = -n / sqrt(n (n + 1) / 2 · n): 0.184 for n = 4.  Its tau_norm × F1 is 0, which is why
`tau_norm_f1` exists: a gate on event ordering that an abstaining agent cannot pass.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.judges.base import Judge, JudgeTask
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.beam.questions import ORDERING
from pytest_memorybench.scoring.judged import score_rubric
from pytest_memorybench.scoring.kendall import score_beam_ordering
from pytest_memorybench.scoring.profiles import OFFICIAL, Profile

UNFILLED_QUESTION = "<question>"  # what BEAM's judge sees where the question should be
SCORER = "beam"
TAU_NORM, TAU_NORM_F1 = "tau_norm", "tau_norm_f1"
ORDERING_SCORES = (TAU_NORM, TAU_NORM_F1)
_STEM = re.compile(
    r"^\s*(?:the\s+)?llm\s+response\s+should\s+(?:mention|state|contain|include)\s*:\s*", re.IGNORECASE
)
_LIST_MARK = re.compile(r"^\s*(?:[-*•·]+|\(?\d{1,2}[.):]|\d{1,2}(?:st|nd|rd|th)\s*[:.)-])\s*")
_INLINE_NUMBER = re.compile(r"(?:^|[\s,;:])\(?(\d{1,2})[.)]\s+")


async def score_reply(definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
    """The score of the last response to a BEAM probe, under the run's profile."""
    expected = definition.expected
    ability = expected["ability"]
    rubric = [str(nugget) for nugget in expected["rubric"]]
    reply = responses[-1] if responses else ""
    judge = context.judge or LocalJudge()
    if ability == ORDERING:
        with_f1 = definition.params.get("ordering_score", TAU_NORM) == TAU_NORM_F1
        return await score_ordering(judge, rubric, reply, context.profile, with_f1=with_f1)
    question = UNFILLED_QUESTION if context.profile == OFFICIAL else definition.questions[0]
    return await score_rubric(
        judge,
        question=question,
        nuggets=rubric,
        answer=reply,
        profile=context.profile,
        ability=ability,
        scorer=SCORER,
    )


def event_label(nugget: str) -> str:
    """A rubric event without the "LLM response should mention:" stem."""
    return _STEM.sub("", nugget).strip()


def reply_items(reply: str, profile: Profile) -> list[str]:
    """The reply as a list of events to align (see the module docstring for the two rules)."""
    if profile == OFFICIAL:
        return reply.split("\n")
    lines = [_LIST_MARK.sub("", line).strip() for line in reply.splitlines()]
    lines = [line for line in lines if line]
    if len(lines) == 1:
        numbers = list(_INLINE_NUMBER.finditer(lines[0]))
        if len(numbers) >= 2 and [int(m.group(1)) for m in numbers] == list(range(1, len(numbers) + 1)):
            # The lead-in before "1)" ("Your focus developed in this sequence:") is no event.
            cuts = [m.start() for m in numbers] + [len(lines[0])]
            pieces = [
                _LIST_MARK.sub("", lines[0][a:b].strip(" ,;:")).strip(" ,;.") for a, b in pairwise(cuts)
            ]
            lines = [piece for piece in pieces if piece] or lines
    return lines


async def align(
    judge: Judge, reference: Sequence[str], items: Sequence[str]
) -> tuple[list[str], int, str | None]:
    """Each item replaced by the first unused reference event the judge finds equivalent to it.

    Returns the aligned list, how many items were aligned and, if the judge failed, its error
    (alignment stops there).
    """
    used: set[int] = set()
    aligned: list[str] = []
    for item in items:
        match = None
        if item.strip():
            for index, event in enumerate(reference):
                if index in used:
                    continue
                verdict = await judge.judge(
                    JudgeTask("equivalence", {"first": item, "second": event}, SCORER)
                )
                if not verdict.ok:
                    return aligned, len(used), verdict.error or "the judge gave no verdict"
                if (verdict.data or {}).get("equivalent"):
                    match = index
                    break
        if match is None:
            aligned.append(item)
        else:
            used.add(match)
            aligned.append(reference[match])
    return aligned, len(used), None


async def score_ordering(
    judge: Judge, rubric: Sequence[str], reply: str, profile: Profile, *, with_f1: bool = False
) -> Score:
    """BEAM event ordering: equivalence alignment, then tau-b over the union (score = tau_norm, or
    tau_norm × F1 `with_f1`)."""
    reference = list(rubric) if profile == OFFICIAL else [event_label(nugget) for nugget in rubric]
    items = reply_items(reply, profile)
    aligned, found, error = await align(judge, reference, items)
    if error is not None:
        return Score(0.0, (error,))
    score = score_beam_ordering(reference, aligned)
    lead = (
        f"{len(items)} reply item(s) ({profile} profile), {found} aligned to rubric events by judge"
        f" {judge.name}"
    )
    if not with_f1:
        return Score(score.value, (lead, *score.reasons), score.details)
    final = score.details["final_score"]
    value = min(1.0, max(0.0, float(final))) if isinstance(final, (int, float)) else 0.0
    note = f"score = tau_norm × F1 = {value:.3f} (ordering_score: tau_norm_f1)"
    return Score(value, (lead, *score.reasons[:-1], note), score.details)


__all__ = [
    "ORDERING_SCORES",
    "UNFILLED_QUESTION",
    "align",
    "event_label",
    "reply_items",
    "score_ordering",
    "score_reply",
]
