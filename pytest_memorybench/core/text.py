"""Text compared as readers compare it: whatever the layout and the case.

Memories store a message with a date, a speaker or its reply around it; judges and labels write
names in any case and spacing.  Where a comparison means the words and not their layout, both
sides are folded the same way here.
"""

from __future__ import annotations


def fold(text: object) -> str:
    """`text` with every run of whitespace one space, no space at its ends, and case folded."""
    return " ".join(str(text).split()).casefold()
