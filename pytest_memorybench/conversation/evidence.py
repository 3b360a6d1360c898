"""Evidence recall: did the memory find the messages a question needs, whatever the answer says?

For an agent with `retrieve(query, k)` (every memory system, and users' agents that implement
it), a test's question first retrieves the top `EVIDENCE_K` memories.  The evidence is the test's
own messages that are not questions (GoodAI's statements and instructions: what the question is
about, said earlier in the conversation).  In BEAM and the episodic books it is the context turns
the question rests on (BEAM's `source_chat_ids`, the chapters an answer comes from), named by
`Message.id`; MemBench keeps its own recall@k over step ids.

A piece of evidence is recalled when a retrieved memory holds its text, ignoring case and spacing
(a memory may store the message with a date, a speaker or its reply), or holds one of its
paragraphs of at least `PARAGRAPH_CHARS` characters (a memory that chunks a chapter or a long reply
by paragraph finds the passage, not the whole text).  Recall is the share recalled, MemBench's
recall@k for every benchmark.  A miss with high recall is the model's; with low recall, the
memory's.  It is measured before the question is asked and logged with its reply, so a resumed or
replayed run reports the recall the agent had.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pytest_memorybench.core.text import fold

EVIDENCE_K = 10
PARAGRAPH_CHARS = 80
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


def _pieces(text: str) -> list[str]:
    """What finds a piece of evidence in a memory: its whole text, or one of its long paragraphs."""
    whole = fold(text)
    paragraphs = [fold(part) for part in _PARAGRAPH_BREAK.split(str(text))]
    return [whole, *(part for part in paragraphs if len(part) >= PARAGRAPH_CHARS and part != whole)]


def evidence_recall(
    evidence: Sequence[str], retrieved: Sequence[str], groups: Sequence[str] | None = None
) -> dict[str, Any] | None:
    """{"k", "evidence", "recalled", "recall"} for one question, or None when it has no evidence.

    `groups`, parallel to `evidence`, names the unit each piece belongs to (LongMemEval's sessions):
    then "groups" and "groups_recalled" count the units with at least one piece recalled.
    """
    wanted = {fold(text): _pieces(text) for text in evidence if fold(text)}
    if not wanted:
        return None
    memories = [fold(text) for text in retrieved]
    found = {
        text: any(piece in memory for piece in pieces for memory in memories)
        for text, pieces in wanted.items()
    }
    recalled = sum(found.values())
    result: dict[str, Any] = {
        "k": EVIDENCE_K,
        "evidence": len(wanted),
        "recalled": recalled,
        "recall": round(recalled / len(wanted), 6),
    }
    if groups is not None:
        units: dict[str, bool] = {}
        for text, group in zip(evidence, groups, strict=True):
            if fold(text):
                units[group] = units.get(group, False) or found[fold(text)]
        result.update(groups=len(units), groups_recalled=sum(units.values()))
    return result


def mean_recall(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The mean evidence recall over the scored items that have one, or None."""
    values = [
        record["details"]["evidence"]["recall"]
        for record in records
        if record.get("score") is not None and (record.get("details") or {}).get("evidence")
    ]
    if not values:
        return None
    return {"k": EVIDENCE_K, "mean": round(sum(values) / len(values), 6), "questions": len(values)}
