"""Evidence recall: did the memory find the messages a question needs, whatever the answer says?

For an agent with `retrieve(query, k)` (every memory system, and users' agents that implement
it), a question first retrieves memories; only the first `EVIDENCE_K` count, however many come
back (an agent returning everything it heard would otherwise find everything), and the record
says how many came back and how many were used.  The evidence is the test's own messages that are
not questions (GoodAI's statements and instructions).  In BEAM and the episodic books it is the
context turns the question rests on (BEAM's `source_chat_ids`, the chapters an answer comes from),
named by `Message.id`; MemBench keeps its own recall@k over step ids, matching texts by the same
rule.

A piece of evidence is matched by its content, not by a substring of any length.  Each paragraph
of it (a blank line apart) is found when one memory holds all of its content words (the words
BM25 ranks by: lower case, stopwords left out), whatever else the memory says around them: a
memory may store the message with a date, a speaker, its reply, or inside a longer exchange.  A
paragraph of fewer than `MIN_CONTENT_WORDS` content words ("Yes.", "Sure, 4pm.") says too little
to be recognised by its words: it is found only as a whole line of a memory, apart from a time
stamp and speaker.  A piece counts for the share of its paragraphs found: a chapter whose half is
found is half recalled.  A piece split over two memories, each holding part of a paragraph, is
not found.  Recall is the mean over the pieces, MemBench's recall@k for every benchmark.

Examples, for the piece "My sister Anna moved to Lisbon in May.":
  found in "[2024-05-01 09:00] user: My sister Anna moved to Lisbon in May. assistant: Noted!"
  not in "user: My sister Anna is a nurse." and "user: She moved to Lisbon in May." (two memories)
  "Yes." is found in "user: Yes." and not in "user: Yes, but only on Sundays."

Two recalls, when the agent says what its last answer was given (`context()`, which every memory
mechanism has): *retrieval* recall, over what its search returned, and *context* recall, over what
the answering prompt held.  A miss that retrieval found but the prompt did not hold is lost between
search and prompt (a window, a summary, a filter); with both high, a wrong answer is the model's.
Both are measured when the question is asked and logged with its reply, so a resumed or replayed
run reports the recall the agent had.

The record keeps what the search found, for a reader comparing runs question by question
(`--mb-compare`'s side-by-side view): the first `k` memories, each cut to `MEMORY_CHARS`
characters, at most `EVIDENCE_K * MEMORY_CHARS` characters a question; and, beside each recall,
how much of what was searched or shown is evidence: precision at k and the evidence's share of the
tokens (`conversation/precision.py`), so a memory that returns everything reads as such.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.evidence_match import Memory, Paragraph, names, paragraphs
from pytest_memorybench.conversation.precision import precision_figures, precision_means
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.text import fold

if TYPE_CHECKING:
    from pytest_memorybench.agents.agent_protocol import AgentAdapter

EVIDENCE_K = 10
MEMORY_CHARS = 240  # of each memory a record keeps: a message or a fact, a long chunk's opening


def evidence_recall(
    evidence: Sequence[str],
    retrieved: Sequence[str],
    groups: Sequence[str] | None = None,
    *,
    k: int = EVIDENCE_K,
) -> JsonObject | None:
    """Retrieval recall of one question over the first `k` memories returned, or None without evidence.

    {"k", "returned", "used", "evidence", "recalled", "recall", "memories"}: `returned` memories came
    back, the first `used` (at most k) were searched, and are kept in `memories` (each cut to
    `MEMORY_CHARS`); `recalled` is the sum of the pieces' shares found.
    `groups`, parallel to `evidence`, names the unit each piece belongs to (LongMemEval's sessions):
    then "groups" and "groups_recalled" count the units of which some piece was found.
    "relevant", "precision", "tokens", "evidence_tokens" and "share" say how much of what was searched
    is evidence (`conversation/precision.py`).
    """
    used = [str(text) for text in retrieved[:k]]
    result = _recall(evidence, used, groups)
    if result is None:
        return None
    kept = [_cut(text) for text in used]
    return {"k": k, "returned": len(retrieved), "used": len(used), **result, "memories": kept}


def _cut(text: str) -> str:
    return text if len(text) <= MEMORY_CHARS else text[: MEMORY_CHARS - 1].rstrip() + "…"


def context_recall(evidence: Sequence[str], context: Sequence[str]) -> JsonObject | None:
    """Context recall: the same measure over what the answering prompt held (`memories` texts)."""
    result = _recall(evidence, [str(text) for text in context], None)
    return None if result is None else {"memories": len(context), **result}


def _recall(
    evidence: Sequence[str], memories: Sequence[str], groups: Sequence[str] | None
) -> JsonObject | None:
    pieces = evidence_pieces(evidence)
    if not pieces:
        return None
    distinct = {part for parts in pieces.values() for part in parts}
    held_parts = [{part for part in distinct if part.found_in(memory)} for memory in map(Memory.of, memories)]
    found: set[Paragraph] = set().union(*held_parts)
    shares = {key: sum(part in found for part in parts) / len(parts) for key, parts in pieces.items()}
    result: JsonObject = {**recall_figures(shares), **precision_figures(memories, held_parts, found)}
    if groups is not None:
        units: dict[str, bool] = {}
        for piece, group in zip(evidence, groups, strict=True):
            if fold(piece) in shares:
                units[group] = units.get(group, False) or shares[fold(piece)] > 0
        result.update(groups=len(units), groups_recalled=sum(units.values()))
    return result


def recall_figures(shares: Mapping[str, float]) -> JsonObject:
    """{"evidence", "recalled", "recall"} of the pieces' shares found (at least one piece)."""
    recalled = sum(shares.values())
    return {
        "evidence": len(shares),
        "recalled": round(recalled, 6),
        "recall": round(recalled / len(shares), 6),
    }


def evidence_pieces(evidence: Sequence[str]) -> dict[str, list[Paragraph]]:
    """Each distinct piece of evidence (by its folded text) and its paragraphs: what the search's,
    the prompt's and the whole listing's recall (`conversation/written.py`) are measured over."""
    pieces: dict[str, list[Paragraph]] = {}
    for piece in evidence:
        key = fold(piece)
        if key and key not in pieces:
            parts = paragraphs(piece)
            if parts:
                pieces[key] = parts
    return pieces


async def retrieval_recall(
    agent: AgentAdapter,
    query: str,
    evidence: Sequence[str],
    groups: Sequence[str] | None = None,
    superseded: Sequence[str] = (),
) -> JsonObject | None:
    """Before the reply: what the agent's `retrieve(query, EVIDENCE_K)` finds of the evidence.

    None when there is no evidence or the agent cannot retrieve.  Every path that asks a question
    with evidence (the conversation's, the probes') measures through this and `add_context_recall`.
    With `superseded` values (an old colour, a former address), `stale_reached` says whether the
    first k memories hold one: a stale fact offered to the answer (`contract/stale.py`).
    """
    if not evidence or not agent.supports("retrieve"):
        return None
    retrieved = await agent.retrieve(query, EVIDENCE_K)
    record = evidence_recall(evidence, retrieved, groups)
    if record is not None and superseded:
        record["stale_reached"] = _reached(superseded, retrieved[:EVIDENCE_K])
    return record


async def add_context_recall(
    agent: AgentAdapter, recall: JsonObject | None, evidence: Sequence[str], superseded: Sequence[str] = ()
) -> None:
    """After the reply: the same measure over the memories the agent says its prompt held, as
    `recall["context"]`, when it says (`context()`); with `superseded`, whether one reached it."""
    if recall is not None and agent.supports("context"):
        memories = await agent.context()
        context = context_recall(evidence, memories)
        if context is not None:
            if superseded:
                context["stale_reached"] = _reached(superseded, memories)
            recall["context"] = context


def _reached(superseded: Sequence[str], memories: Sequence[str]) -> bool:
    return any(names(str(memory), value) for memory in memories for value in superseded)


def mean_recall(records: Sequence[Mapping[str, Any]]) -> JsonObject | None:
    """The mean evidence recall over the scored items that have one, or None; with the mean context
    recall where the agent said what its prompts held, and how many searches returned more than k."""
    measured = [
        record["details"]["evidence"]
        for record in records
        if record.get("score") is not None and (record.get("details") or {}).get("evidence")
    ]
    if not measured:
        return None
    summary: JsonObject = {
        "k": EVIDENCE_K,
        "mean": round(sum(item["recall"] for item in measured) / len(measured), 6),
        "questions": len(measured),
        "over_k": sum(1 for item in measured if item.get("returned", 0) > item.get("k", EVIDENCE_K)),
    }
    contexts = [item["context"]["recall"] for item in measured if item.get("context")]
    if contexts:
        summary["context_mean"] = round(sum(contexts) / len(contexts), 6)
        summary["context_questions"] = len(contexts)
    return {**summary, **precision_means(measured)}
