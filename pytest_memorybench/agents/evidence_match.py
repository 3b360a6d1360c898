"""Whether a memory holds a piece of evidence: the match evidence recall counts by
(`conversation/evidence.py`, whose docstring gives the rule and its examples), and the `gold` store
finds a question's evidence by.

A piece is split into paragraphs (a blank line apart); a paragraph is held by a memory holding all
its content words (BM25's words), or, when it has fewer than `MIN_CONTENT_WORDS`, by a memory
with it as a whole line, apart from a time stamp, bullet or speaker.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_memorybench.agents.lexical import terms
from pytest_memorybench.core.text import fold

MIN_CONTENT_WORDS = 3
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# What a memory puts before a message: a time stamp, a bullet, a speaker or a label ("user:",
# "Caroline:", "Chapter 3, Paragraph 1:").
_PREFIX = re.compile(r"^(?:[-*•]\s*)?(?:\[[^\]]*\]\s*)?(?:[\w .,'-]{1,40}:\s+)?")


def _line(text: str) -> str:
    return _PREFIX.sub("", fold(text), count=1)


@dataclass(frozen=True)
class Memory:
    """A memory as the match reads it: its content words, and its lines without their prefixes."""

    words: frozenset[str]
    lines: frozenset[str]

    @classmethod
    def of(cls, text: str) -> Memory:
        return cls(frozenset(terms(text)), frozenset(_line(line) for line in str(text).splitlines()))


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of evidence: its content words, and itself as a line."""

    words: frozenset[str]
    line: str

    def found_in(self, memory: Memory) -> bool:
        if len(self.words) >= MIN_CONTENT_WORDS:
            return self.words <= memory.words
        return self.line in memory.lines


def paragraphs(piece: str) -> list[Paragraph]:
    """A piece's paragraphs, blank lines apart."""
    parts = [part for part in _PARAGRAPH_BREAK.split(str(piece)) if part.strip()]
    return [Paragraph(frozenset(terms(part)), _line(" ".join(part.split()))) for part in parts]


def share(parts: Sequence[Paragraph], memories: Sequence[Memory]) -> float:
    """The share of the paragraphs some memory holds."""
    found = sum(any(paragraph.found_in(memory) for memory in memories) for paragraph in parts)
    return found / len(parts)


def holds(memory: str, piece: str) -> bool:
    """Whether one memory holds all of a piece of evidence."""
    parts = paragraphs(piece)
    return bool(parts) and share(parts, [Memory.of(memory)]) == 1.0


def whole_words(value: str) -> re.Pattern[str] | None:
    """`value` as whole words, case and spacing aside ("Red" in "red", not in "bored"); None if blank."""
    words = value.split()
    if not words:
        return None
    body = r"\s+".join(re.escape(word) for word in words)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


def names(memory: str, text: str) -> bool:
    """Whether a memory holds `text` where it need not be evidence: a superseded value ("red", "12 Elm
    Street"), a deleted or another user's memory.  A text of `MIN_CONTENT_WORDS` content words or more
    is held as evidence is (`holds`); a shorter one wherever it stands as whole words, since a value
    rarely stands on a line of its own."""
    if len(set(terms(text))) >= MIN_CONTENT_WORDS:
        return holds(memory, text)
    pattern = whole_words(text)
    return pattern is not None and pattern.search(str(memory)) is not None
