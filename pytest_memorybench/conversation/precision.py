"""Retrieval precision: how much of what a memory gave back is evidence, beside how much evidence it found.

Evidence recall alone rewards a memory that returns everything: the evidence is somewhere in it.
PrecisionMemBench found products at recall ≈ 1.0 and precision 0.06–0.09, ten or more wrong memories
beside each right one (research/peers-late-2026.md §1).  So wherever a question's evidence is labelled,
the same match that finds the evidence (`agents/evidence_match.py`) also says which memories carry it,
and two figures sit beside recall, over the memories the search returned (its first k) and, where the
agent says what its prompt held (`context()`), over those:

- **precision**: the share of the memories that hold at least one paragraph of evidence (precision at
  k, as PrecisionMemBench and MemBench count it: a memory is relevant or not).  None when nothing came
  back: an empty answer is not imprecise, its recall says what it missed.
- **share**: the evidence's share of the memories' tokens: the tokens of the evidence paragraphs found
  (each once, however many memories repeat it) over the tokens of all the memories.  Precision counts
  a 2,000-token chunk holding one relevant sentence as one right memory; the share says the answering
  model read 98 % of something else.  Tokens are word pieces (`core.tokens.ApproximateCounter`), the
  same on every machine whatever tokenizer is installed: a ratio, so cl100k_base's few percent do not
  matter, and counting costs a regular expression, not an encoding.

Examples, for the evidence "My sister Anna moved to Lisbon in May." and k = 10:
  ten memories, one holding it: precision 0.1 (recall 1.0: a store that returns k of anything)
  one memory, "user: My sister Anna moved to Lisbon in May.": precision 1.0, share 9/11 (the
  speaker's label is not evidence)
  the same sentence twice: precision 1.0, share ≈ 0.45 (a duplicate wastes the prompt)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memorybench.agents.evidence_match import Paragraph
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.text import fold
from pytest_memorybench.core.tokens import ApproximateCounter

_COUNTER = ApproximateCounter()


def precision_figures(
    memories: Sequence[str], held_parts: Sequence[set[Paragraph]], found: set[Paragraph]
) -> JsonObject:
    """{"relevant", "precision", "tokens", "evidence_tokens", "share"} of one question's memories.

    `held_parts[i]` are the evidence paragraphs memory i holds, `found` their union.
    """
    relevant = sum(1 for parts in held_parts if parts)
    tokens = sum(_COUNTER.count(fold(text)) for text in memories)
    evidence_tokens = min(sum(_COUNTER.count(part.line) for part in found), tokens)
    return {
        "relevant": relevant,
        "precision": round(relevant / len(held_parts), 6) if held_parts else None,
        "tokens": tokens,
        "evidence_tokens": evidence_tokens,
        "share": round(evidence_tokens / tokens, 6) if tokens else None,
    }


def precision_means(measured: Sequence[Mapping[str, Any]]) -> JsonObject:
    """The mean precision and evidence share over the items' evidence records that have them, for the
    search (`precision_mean`, `share_mean`) and the answering prompt (`context_precision_mean`,
    `context_share_mean`), with how many questions each mean is over.  Records written before these
    figures existed have none, and add nothing."""
    means: JsonObject = {}
    for prefix, records in (
        ("", measured),
        ("context_", [item["context"] for item in measured if item.get("context")]),
    ):
        for figure in ("precision", "share"):
            values = [float(item[figure]) for item in records if item.get(figure) is not None]
            if values:
                means[f"{prefix}{figure}_mean"] = round(sum(values) / len(values), 6)
                means[f"{prefix}{figure}_questions"] = len(values)
    return means
