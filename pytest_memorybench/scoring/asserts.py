"""Public asserts: the library's scorers as one-line checks in users' own pytest tests.

    from pytest_memorybench import assert_regex, assert_items_f1
    assert_regex(r"\\bBiscuit\\b", chat.ask("What is my dog called?"))

Each fails with what was expected, what the agent said, the score and the scorer's reasons.
Asserts that need a judge use the offline `LocalJudge` unless given one.

Four check what a memory must not give (docs/writing-tests.md): `assert_not_returned` (a search
did not return X), `assert_not_stale` (an answer does not assert a superseded value, negation-aware:
`scoring/negation.py`), `assert_isolated` (one namespace's search holds none of another's memories)
and `assert_forgotten` (a deleted memory is gone).  A memory holds a text as evidence recall finds
evidence (`agents/evidence_match.py`: all its content words in one memory, whatever else it says),
and a text of one or two content words ("12 Elm Street", "red") wherever it stands as whole words.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memorybench.agents.evidence_match import names
from pytest_memorybench.core.blocking import run_blocking
from pytest_memorybench.core.records import Score
from pytest_memorybench.judges.base import Judge
from pytest_memorybench.scoring import judged
from pytest_memorybench.scoring.choice import score_choice
from pytest_memorybench.scoring.exact import score_regex
from pytest_memorybench.scoring.negation import asserted
from pytest_memorybench.scoring.profiles import PAPER, Profile
from pytest_memorybench.scoring.rouge import score_rouge_l


def assert_regex(pattern: str | re.Pattern[str], reply: str, *, flags: int = 0) -> Score:
    """Full credit when `pattern` is found in `reply` (`re.search`, with `flags`)."""
    __tracebackhide__ = True
    return _check(
        "regex", score_regex(pattern, reply, flags=flags), 1.0, getattr(pattern, "pattern", pattern), reply
    )


def assert_rouge_l(reference: str, reply: str, *, threshold: float = 0.75) -> Score:
    """Full credit when ROUGE-L F is above `threshold` (GoodAI's Trigger Response uses > 0.75)."""
    __tracebackhide__ = True
    return _check("rouge_l", score_rouge_l(reference, reply, threshold=threshold), 1.0, reference, reply)


def assert_choice(correct: str, reply: str, options: Mapping[str, str]) -> Score:
    """Full credit when `reply` picks option `correct` of `options` (letter to text), by letter or by text."""
    __tracebackhide__ = True
    return _check(
        "choice", score_choice(correct, reply, options), 1.0, f"{correct}) {options.get(correct, '')}", reply
    )


def assert_items_f1(
    ground_truth: Sequence[str],
    reply: str,
    *,
    question: str = "",
    min_f1: float = 1.0,
    judge: Judge | None = None,
) -> Score:
    """The episodic item F1 (lenient #pred rule) of `reply` against `ground_truth` is at least `min_f1`."""
    __tracebackhide__ = True
    score, _ = run_blocking(
        judged.score_items(_judge(judge), question=question, ground_truth=ground_truth, answer=reply)
    )
    return _check("items_f1", score, min_f1, list(ground_truth), reply)


def assert_kendall_tau(
    ground_truth: Sequence[str], reply: str, *, min_tau: float = 1.0, judge: Judge | None = None
) -> Score:
    """All ground-truth items are found and their order agrees with Kendall τ ≥ `min_tau`."""
    __tracebackhide__ = True
    chosen = _judge(judge)
    found_score, identified = run_blocking(
        judged.score_items(chosen, question="", ground_truth=ground_truth, answer=reply)
    )
    tau, found = run_blocking(judged.score_order(chosen, predicted=identified, ground_truth=ground_truth))
    reasons = (f"{found} of {len(ground_truth)} items found in order-aligned form", f"Kendall τ = {tau}")
    value = 0.0 if tau is None or found < len(ground_truth) else max(0.0, tau)
    return _check(
        "kendall_tau", Score(value, reasons + found_score.reasons), min_tau, list(ground_truth), reply
    )


def assert_nuggets(
    nuggets: Sequence[str],
    reply: str,
    *,
    question: str = "",
    min_score: float = 1.0,
    profile: Profile = PAPER,
    judge: Judge | None = None,
) -> Score:
    """The BEAM rubric: the mean nugget credit (0 / 0.5 / 1 each) is at least `min_score`."""
    __tracebackhide__ = True
    score = run_blocking(
        judged.score_rubric(_judge(judge), question=question, nuggets=nuggets, answer=reply, profile=profile)
    )
    return _check("nuggets", score, min_score, list(nuggets), reply)


def assert_not_returned(forbidden: str | Sequence[str], memories: Sequence[str]) -> Score:
    """No memory in `memories` (what a search or `retrieve` returned) holds any of `forbidden`."""
    __tracebackhide__ = True
    return _none_held(
        "not_returned", "{n} of {m} memories returned hold what must not come back", forbidden, memories
    )


def assert_forgotten(deleted: str | Sequence[str], memories: Sequence[str]) -> Score:
    """A deleted memory is gone: nothing in `memories` (a search after the delete, or all the store
    holds) holds any of `deleted`."""
    __tracebackhide__ = True
    return _none_held(
        "forgotten", "a deleted memory is still there: {n} of {m} memories hold it", deleted, memories
    )


def assert_isolated(
    memories: Sequence[str], others: Sequence[str], *, namespace: str = "this", other: str = "another"
) -> Score:
    """What a search in `namespace` returned (`memories`) holds none of `others`, the memories written
    to the `other` namespace only: one user, session or scope never sees another's."""
    __tracebackhide__ = True
    leaks = _held(_texts(others), memories)
    if leaks:
        lines = [
            f"memory check failed (isolated): a search in namespace {namespace!r} returned {_count(leaks)}"
            f" of {len(memories)} memories written to namespace {other!r} only",
        ]
        for text, index, memory in leaks[:_SHOWN]:
            lines += [f"  written to {other!r}: {_short(text)}", f"  memory [{index}]: {_short(memory)}"]
        raise AssertionError("\n".join(_more(lines, leaks)))
    return Score(1.0, (f"none of {len(others)} memories of namespace {other!r} in {len(memories)} returned",))


def assert_not_stale(reply: str, superseded: str | Sequence[str], *, current: str | None = None) -> Score:
    """`reply` asserts none of the `superseded` values: naming one to reject it or put it in the past
    ("Blue, not red", "it used to be red") passes; `current`, when given, is shown on failure."""
    __tracebackhide__ = True
    for value in _texts(superseded):
        mention = asserted(reply, value)
        if mention is not None:
            lines = [
                "memory check failed (not_stale): the reply asserts a superseded value",
                f"  superseded: {value}",
                *([f"  current:    {current}"] if current is not None else []),
                f"  asserted:   {_short(mention.clause)!r} (no negation, change or past in its clause)",
                f"  got:        {_short(reply)}",
            ]
            raise AssertionError("\n".join(lines))
    return Score(1.0, ("no superseded value asserted",))


_SHOWN = 3  # leaks a failure shows; the rest are counted


def _none_held(name: str, headline: str, texts: str | Sequence[str], memories: Sequence[str]) -> Score:
    __tracebackhide__ = True
    leaks = _held(_texts(texts), memories)
    if leaks:
        lines = [f"memory check failed ({name}): " + headline.format(n=_count(leaks), m=len(memories))]
        label = {"not_returned": "must not return", "forgotten": "deleted"}[name]
        for text, index, memory in leaks[:_SHOWN]:
            lines += [f"  {label}: {_short(text)}", f"  memory [{index}]: {_short(memory)}"]
        raise AssertionError("\n".join(_more(lines, leaks)))
    return Score(1.0, (f"none of {len(memories)} memories holds it",))


def _texts(texts: str | Sequence[str]) -> list[str]:
    return [texts] if isinstance(texts, str) else [str(text) for text in texts]


def _held(texts: Sequence[str], memories: Sequence[str]) -> list[tuple[str, int, str]]:
    """(text, index, memory) for each memory holding one of `texts`, in the memories' order."""
    return [
        (text, index, str(memory))
        for index, memory in enumerate(memories)
        for text in texts
        if names(str(memory), text)
    ]


def _count(leaks: Sequence[tuple[str, int, str]]) -> int:
    return len({index for _, index, _ in leaks})


def _more(lines: list[str], leaks: Sequence[tuple[str, int, str]]) -> list[str]:
    return lines + ([f"  … and {len(leaks) - _SHOWN} more"] if len(leaks) > _SHOWN else [])


def _short(text: str) -> str:
    return textwrap.shorten(" ".join(str(text).split()), 200, placeholder=" …") or "(empty)"


def _check(name: str, score: Score, needed: float, expected: Any, reply: str) -> Score:
    __tracebackhide__ = True
    if score.value + 1e-9 < needed:
        got = textwrap.shorten(" ".join(reply.split()), 300, placeholder=" …") or "(empty)"
        lines = [
            f"memory check failed ({name}): score {score.value:.2f} < {needed:.2f}",
            f"  expected: {expected}",
            f"  got:      {got}",
            *(f"  reason:   {reason}" for reason in score.reasons),
        ]
        raise AssertionError("\n".join(lines))
    return score


def _judge(judge: Judge | None) -> Judge:
    if judge is not None:
        return judge
    from pytest_memorybench.judges.local import LocalJudge

    return LocalJudge()
