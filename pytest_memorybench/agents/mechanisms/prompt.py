"""The answering prompt of a memory system: what fits in it, and how its parts are laid out.

Prompts are plain: memories go into the system prompt under a heading each, recent turns follow
as chat turns.  A mechanism fills the prompt part by part from a `PromptRoom`, the tokens its
model's window leaves once the question is in; each part takes what fits of what is left, so the
parts a mechanism puts first (its memories) are cut last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.models.llm import SYSTEM_PROMPT

HEADINGS = 64  # tokens kept free for the section headings and list markers of a system prompt


def tokens(text: str) -> int:
    """`text`'s length in the run's tokens."""
    return default_counter().count(text)


def newest_that_fit(texts: Sequence[str], budget: int, cost: Callable[[str], int] = tokens) -> list[str]:
    """The newest of `texts` whose costs add up to at most `budget`, in their order."""
    kept: list[str] = []
    for text in reversed(texts):
        budget -= cost(text)
        if budget < 0:
            break
        kept.append(text)
    return kept[::-1]


def best_that_fit(ranked: Sequence[int], texts: Sequence[str], budget: int) -> list[str]:
    """The best-ranked texts whose tokens fit `budget` (the worst dropped first), in conversation
    order: a later statement then reads as the newer one, as it was said."""
    kept: list[int] = []
    for i in ranked:
        budget -= tokens(texts[i])
        if budget < 0:
            break
        kept.append(i)
    return [texts[i] for i in sorted(kept)]


class PromptRoom:
    """The tokens an answering prompt has left; each part put in spends what its texts take."""

    def __init__(self, left: int) -> None:
        self.left = left

    def spend(self, texts: Iterable[str]) -> None:
        """Count `texts` as in the prompt."""
        self.left -= sum(tokens(text) for text in texts)

    def share(self, part: int = 1) -> int:
        """What a part may take: what is left, divided among `part` parts, never below nothing."""
        return max(self.left // part, 0)

    def newest(self, texts: Sequence[str]) -> list[str]:
        """The newest of `texts` that fit in what is left, spent."""
        kept = newest_that_fit(texts, self.share())
        self.spend(kept)
        return kept

    def best(self, ranked: Sequence[int], texts: Sequence[str]) -> list[str]:
        """The best-ranked of `texts` that fit in what is left, in conversation order, spent."""
        kept = best_that_fit(ranked, texts, self.left)
        self.spend(kept)
        return kept


def section(title: str, lines: Iterable[str]) -> str:
    """A titled block of the system prompt; empty when there is nothing under it."""
    body = "\n".join(f"- {line}" for line in lines)
    return f"## {title}\n{body}" if body else ""


def system_prompt(*sections: str) -> str:
    """The answering system prompt with the sections that have something under them."""
    return "\n\n".join([SYSTEM_PROMPT, *(part for part in sections if part)])
