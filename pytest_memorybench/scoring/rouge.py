"""ROUGE-L: how much of a reference sentence a reply reproduces, in order.

GoodAI's Trigger Response asks the agent to say a fixed sentence whenever a trigger occurs; a reply
counts when its ROUGE-L F-measure against that sentence is above 0.75, so small rewordings pass
and a different sentence does not.  The `rouge-score` package computes it; its tokenizer
lower-cases and keeps only ASCII letters and digits, so punctuation never matters and text in a
non-Latin script scores 0.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pytest_memorybench.core.heavy import heavy_import
from pytest_memorybench.core.records import Score

TRIGGER_RESPONSE_THRESHOLD = 0.75


@lru_cache(maxsize=2)
def _scorer(use_stemmer: bool) -> Any:
    # Imported here: rouge-score pulls in nltk and scipy.stats, over a second of start-up that a
    # session scoring no ROUGE (and every xdist worker) would pay otherwise.
    rouge_scorer = heavy_import("rouge_score.rouge_scorer")
    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=use_stemmer)


def preload() -> None:
    """Import rouge-score now, off the run's event loop (`Scenario.warm_up`): imported at the first
    ROUGE score instead, it would stop every conversation in flight for that second."""
    _scorer(False)


def rouge_l_f(reference: str, candidate: str, *, use_stemmer: bool = False) -> float:
    """The ROUGE-L F-measure of `candidate` against `reference`, in [0, 1].

    Without stemming by default, so "stick" and "sticking" are different words.  GoodAI's
    `utils/text.py` builds its scorer with `use_stemmer=True`; pass that to reproduce its numbers.
    """
    return float(_scorer(use_stemmer).score(reference, candidate)["rougeL"].fmeasure)


def score_rouge_l(
    reference: str,
    reply: str,
    threshold: float = TRIGGER_RESPONSE_THRESHOLD,
    *,
    use_stemmer: bool = False,
) -> Score:
    """1 when the ROUGE-L F-measure of the reply against `reference` is strictly above `threshold`.

    The GoodAI rule is "> 0.75": a reply scoring exactly the threshold fails.  This is the
    ROUGE part of Trigger Response only; the reference also accepts the sentence verbatim
    inside a longer reply and, failing both, asks a judge to extract it; compose those in
    the scenario.
    """
    f = rouge_l_f(reference, reply, use_stemmer=use_stemmer)
    passed = f > threshold
    relation = "above" if passed else "not above"
    stem = "with" if use_stemmer else "without"
    reason = f"ROUGE-L F = {f:.4f} against {reference!r} is {relation} {threshold} ({stem} stemming)"
    return Score(1.0 if passed else 0.0, (reason,))
