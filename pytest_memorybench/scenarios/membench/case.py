"""A MemBench case: one trajectory and its one question, however it was made (generated or loaded).

MemBench pairs every message list with exactly one multiple-choice question, so a case is the
unit of the benchmark: it becomes one probe context (one conversation) with one item.

Step ids.  A trajectory is a sequence of steps numbered from 0, and the question's evidence is a
set of step ids (`target_step_id` in the published data, which numbers from 0 too).  An
observation step is one user message; a participation step is one exchange, the user's message
and the assistant's recorded reply, delivered as two messages.  So step s is delivered as message
s (observation) or as messages 2s and 2s + 1 (participation), and "ask after step s" means after
`(s + 1) * messages_per_step` messages.  The published FirstAgent files number each session's
turns as `[turn, session]`; the loader flattens those to this numbering.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from pytest_memorybench.core.records import Message


@dataclass(frozen=True)
class Case:
    """One MemBench case: the question with its options, its evidence steps and the trajectory."""

    id: str  # the context id, unique within the suite: "participation-multi_hop-3"
    type: str  # the question type (the item's category)
    level: str  # factual | reflective
    question: str
    options: tuple[str, ...]  # in letter order: A, B, C, D
    answer: str  # the correct letter
    evidence: tuple[int, ...]  # step ids, sorted
    evidence_texts: tuple[tuple[str, ...], ...]  # per evidence step: the texts it was told in
    steps: int  # how many steps the trajectory has
    messages_per_step: int  # 1 (observation) or 2 (participation)
    turns: Callable[[], Iterable[Message]]
    tokens: int | None = None  # the trajectory's size, when known (approximate counter)
    time: str | None = None  # when the question is asked, if the data says

    def messages_after(self, step: int) -> int:
        """How many messages are delivered once step `step` has been."""
        return (step + 1) * self.messages_per_step


def distinctive_texts(
    every: Sequence[Sequence[str]], evidence: Sequence[Sequence[str]]
) -> tuple[tuple[str, ...], ...]:
    """Each evidence step's texts that no other step has (a stock reply names no step).

    Recall@k recognises an evidence step by a retrieved memory holding one of these texts.  `every` holds
    the texts of every step that could share them (generated noise never repeats a graph statement
    or a recorded reply, so the generator passes the graph's steps only).
    """
    counts = Counter(text for texts in every for text in texts)
    return tuple(tuple(text for text in texts if text and counts[text] == 1) for texts in evidence)
