"""Evidence recall: did the memory find the messages a question needs, whatever the answer says?

For an agent with `retrieve(query, k)` (every memory system, and users' agents that implement
it), a test's question first retrieves the top `EVIDENCE_K` memories.  The evidence is the test's
own messages that are not questions (GoodAI's statements and instructions: what the question is
about, said earlier in the conversation); a piece of evidence is recalled when a retrieved memory
holds its text, ignoring case and spacing (a memory may store the message with a date, a speaker
or its reply).  Recall is the share recalled, MemBench's recall@k applied to every script-driven
scenario; the probe families keep their own (MemBench's step ids).  A miss with high recall is the
model's; with low recall, the memory's.  The channel measures it and logs it with the question's
reply, so a resumed or replayed run reports the recall the agent had.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

EVIDENCE_K = 10


def _normal(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def evidence_recall(evidence: Sequence[str], retrieved: Sequence[str]) -> dict[str, Any] | None:
    """{"k", "evidence", "recalled", "recall"} for one question, or None when it has no evidence."""
    wanted = {_normal(text) for text in evidence if _normal(text)}
    if not wanted:
        return None
    memories = [_normal(text) for text in retrieved]
    recalled = sum(any(text in memory for memory in memories) for text in wanted)
    return {"k": EVIDENCE_K, "evidence": len(wanted), "recalled": recalled, "recall": round(recalled / len(wanted), 6)}


def mean_recall(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The mean evidence recall over the scored items that have one, or None."""
    values = [record["details"]["evidence"]["recall"] for record in records
              if record.get("score") is not None and (record.get("details") or {}).get("evidence")]
    if not values:
        return None
    return {"k": EVIDENCE_K, "mean": round(sum(values) / len(values), 6), "questions": len(values)}
