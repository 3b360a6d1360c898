"""Which messages of a history are an item's evidence: ConvoMem labels evidence by copying the
messages (`message_evidences`), not by naming them, and the copies are not always exact.

The rule is ConvoMem's own, from the check its generator ran on every evidence conversation
(`ConversationValidator.validateConversations`): a message of the same speaker is the evidence
when it contains the evidence's text; else when the evidence's text contains it and it is at
least 80 % as long; else when their Levenshtein distance is at most 15 % of the evidence's length
(at least 10 characters).  Speakers compare case-blind, since ConvoMem's loader lowercases them.
Each tier is tried over every candidate message before the next, so an exact copy anywhere wins
over a near one.  An evidence message found nowhere is counted, and the item keeps the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rapidfuzz.distance import Levenshtein

from pytest_memorybench.scenarios.convomem.data import Conversation, Turn

Place = tuple[int, int]  # (conversation number in the history, message place in it)


def _contains(message: str, evidence: str) -> bool:
    return evidence in message


def _contained(message: str, evidence: str) -> bool:
    return message in evidence and len(message) >= 0.8 * len(evidence)


def _near(message: str, evidence: str) -> bool:
    limit = max(10, int(len(evidence) * 0.15))
    return Levenshtein.distance(message, evidence, score_cutoff=limit) <= limit


TIERS: tuple[Callable[[str, str], bool], ...] = (_contains, _contained, _near)


def locate(
    evidence: Sequence[Turn], history: Sequence[Conversation], among: set[int] | None = None
) -> tuple[list[Place], int]:
    """Where each evidence message is in `history` (only its conversations numbered in `among`,
    when given), in the evidence's order, and how many were found nowhere."""
    candidates = [
        (number, place, turn)
        for number, conversation in enumerate(history)
        if among is None or number in among
        for place, turn in enumerate(conversation.turns)
    ]
    found: list[Place] = []
    missing = 0
    for wanted in evidence:
        if not wanted.text.strip():  # an empty copy would be "contained" in every message
            missing += 1
            continue
        speaker = wanted.speaker.lower()
        same = [
            (number, place, turn.text)
            for number, place, turn in candidates
            if turn.speaker.lower() == speaker
        ]
        hit = next(
            ((number, place) for test in TIERS for number, place, text in same if test(text, wanted.text)),
            None,
        )
        if hit is None:
            missing += 1
        elif hit not in found:
            found.append(hit)
    return found, missing


__all__ = ["Place", "TIERS", "locate"]
