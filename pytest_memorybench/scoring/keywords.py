"""Keyword interpretation (GoodAI Spy Meeting): did the agent decode each clue, and only those?

The agent receives three coded messages (a time, a place, a thing to bring) and must say what they
mean.  Each clue comes with the keywords an interpretation should contain ("when the sun is high"
→ noon, midday).  Repeating the coded phrases earns nothing, and naming what another clue would
have meant ("midnight" for a noon clue) shows the agent mixed up its memories.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_memorybench.core.records import Score
from pytest_memorybench.scoring.text import matches_at_word_boundaries


def _clue(index: int, keywords: Sequence[str], found: str | None, verdict: bool | None) -> tuple[bool, str]:
    """Whether a clue counts as decoded (its keyword, or the judge's yes), and why."""
    missed = f"clue {index + 1}: none of {list(keywords)} found"
    if found is not None:
        return True, f"clue {index + 1}: decoded, the reply says {found!r}"
    if verdict:
        return True, f"{missed}; the judge accepts the interpretation"
    if verdict is False:
        return False, f"{missed}; the judge rejects the interpretation"
    return False, missed


def score_keywords(
    clue_keywords: Sequence[Sequence[str]],
    reply: str,
    *,
    case_sensitive: bool,
    other_clue_keywords: Sequence[Sequence[str]] = (),
    interpretation_verdicts: Sequence[bool | None] | None = None,
) -> Score:
    r"""Spy Meeting: credit per decoded clue, minus one clue's worth for any confusion.

    Rule (GoodAI reference, `datasets/spy_meeting.py`):
      * hit: a clue is decoded when any of its keywords occurs in the reply as `\bkeyword\b`.
        When none does, the reference asks a judge whether the reply still interprets the clue
        validly; pass those parsed verdicts, one per clue, as `interpretation_verdicts` (True =
        "Valid."); None, or no list, means no judge was asked and the clue is missed.
      * confusion: the keywords of `other_clue_keywords` (the clues of the catalogue that were
        *not* given) minus every keyword of the given clues; if any of them occurs in the reply
        the agent is confused.  The penalty is applied once, however many such words occur.
        A keyword shared with a given clue ("dawn" for two time clues) never counts as confusion.
      * score = max((hits − confusion) / #clues, 0), i.e. thirds for the usual three clues.
    `case_sensitive=True` reproduces the reference, whose regexes are case-sensitive ("Midnight"
    at the start of a sentence is missed); the profile decides which one a scenario uses.
    """
    if not clue_keywords:
        raise ValueError("score_keywords needs at least one clue")
    if interpretation_verdicts is not None and len(interpretation_verdicts) != len(clue_keywords):
        raise ValueError(f"{len(interpretation_verdicts)} judge verdicts for {len(clue_keywords)} clues")

    def occurs(word: str) -> bool:
        return matches_at_word_boundaries(word, reply, case_sensitive=case_sensitive)

    def key(word: str) -> str:
        return word if case_sensitive else word.casefold()

    reasons: list[str] = []
    hits = 0
    for index, keywords in enumerate(clue_keywords):
        found = next((word for word in keywords if occurs(word)), None)
        verdict = interpretation_verdicts[index] if interpretation_verdicts is not None else None
        decoded, reason = _clue(index, keywords, found, verdict)
        hits += decoded
        reasons.append(reason)

    given = {key(word) for keywords in clue_keywords for word in keywords}
    foreign = {word for keywords in other_clue_keywords for word in keywords if key(word) not in given}
    confusing = [word for word in sorted(foreign) if occurs(word)]
    confusion = 1 if confusing else 0
    if confusing:
        words = ", ".join(repr(word) for word in confusing)
        reasons.append(f"confused: the reply also says {words}, which only other clues mean (−1, once)")

    value = max((hits - confusion) / len(clue_keywords), 0.0)
    case = "case-sensitive" if case_sensitive else "ignoring case"
    reasons.append(
        f"({hits} decoded − {confusion} confusion) / {len(clue_keywords)} clues = {value:.3f} ({case})"
    )
    return Score(value, tuple(reasons))
