"""What a memory store did, measured by the harness: ingest, search, hits and context tokens.

The harnesses that compare memory products report accuracy beside ingest time, search latency and
the context tokens each answer was given, because a store can buy accuracy with any of them.  A
store's figures are counted as the run goes (`StoreFigures`), a conversation keeps its share
(`since`), and the run pools them (`pooled`) for results.json, the terminal and the comparison.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.timings import pooled_percentile, timing_summary


@dataclass
class StoreFigures:
    """A store's figures so far: shared by an agent and its forks, which search the same namespace."""

    store: str
    k: int
    profile: str = "equal"  # the equal terms, or the vendor's own harness settings
    messages: int = 0
    ingest_seconds: float = 0.0  # add, and the wait for indexing before the next search
    search_seconds: list[float] = field(default_factory=list)
    returned: list[int] = field(default_factory=list)  # hits per search, before the cut to k
    context_tokens: list[int] = field(default_factory=list)  # memory tokens per harness answer
    native_answers: int = 0  # questions the store answered itself
    ingest_tokens: int = 0  # the model tokens the store reports spending to ingest (its `usage`)
    stored: int | None = None  # memories it holds at the end, where it can list them (`stored`)
    duplicates: int | None = None  # of those, the same text again
    server: str | None = None  # the version its service says it runs (`server_version`), where it says one

    def mark(self) -> StoreFigures:
        """A copy to count a conversation's share from."""
        return dataclasses.replace(
            self,
            search_seconds=list(self.search_seconds),
            returned=list(self.returned),
            context_tokens=list(self.context_tokens),
        )

    def since(self, mark: StoreFigures | None) -> JsonObject:
        """The figures since `mark`, JSON-ready (a conversation's record)."""
        searches = self.search_seconds[len(mark.search_seconds) :] if mark else self.search_seconds
        returned = self.returned[len(mark.returned) :] if mark else self.returned
        context = self.context_tokens[len(mark.context_tokens) :] if mark else self.context_tokens
        return {
            "store": self.store,
            "k": self.k,
            "profile": self.profile,
            "messages": self.messages - (mark.messages if mark else 0),
            "ingest_seconds": round(self.ingest_seconds - (mark.ingest_seconds if mark else 0.0), 6),
            "search": timing_summary(searches) if searches else None,
            "returned_max": max(returned, default=0),
            "over_k": sum(count > self.k for count in returned),
            "empty": sum(count == 0 for count in returned),
            "context_tokens": sum(context),
            "answers": len(context),
            "native_answers": self.native_answers - (mark.native_answers if mark else 0),
            "ingest_tokens": self.ingest_tokens - (mark.ingest_tokens if mark else 0),
            "stored": _since(self.stored, mark.stored if mark else None),
            "duplicates": _since(self.duplicates, mark.duplicates if mark else None),
            "server": self.server,
        }


def pooled(conversations: Sequence[Mapping[str, Any]]) -> JsonObject | None:
    """The run's store figures from its conversations' records; None when no store was run."""
    parts = [conversation["store"] for conversation in conversations if conversation.get("store")]
    if not parts:
        return None
    timings = [part["search"] for part in parts if part["search"]]
    messages = sum(part["messages"] for part in parts)
    ingest = sum(part["ingest_seconds"] for part in parts)
    answers = sum(part["answers"] for part in parts)
    searches = sum(timing["calls"] for timing in timings)
    return {
        "store": parts[0]["store"],
        "k": parts[0]["k"],
        "profile": parts[0].get("profile", "equal"),  # runs before profiles were on equal terms
        "messages": messages,
        "ingest_seconds": round(ingest, 3),
        "ingest_ms_per_message": round(1000 * ingest / messages, 3) if messages else None,
        "searches": searches,
        "search_p50_ms": round(1000 * pooled_percentile(timings, 0.5), 3) if timings else None,
        "search_p95_ms": round(1000 * pooled_percentile(timings, 0.95), 3) if timings else None,
        "returned_max": max(part["returned_max"] for part in parts),
        "over_k": sum(part["over_k"] for part in parts),
        "empty": sum(part["empty"] for part in parts),
        "answers": answers,
        "context_tokens_per_answer": round(sum(part["context_tokens"] for part in parts) / answers, 1)
        if answers
        else None,
        "native_answers": sum(part["native_answers"] for part in parts),
        "ingest_tokens": sum(part.get("ingest_tokens", 0) for part in parts),
        "stored": _total(part.get("stored") for part in parts),
        "duplicates": _total(part.get("duplicates") for part in parts),
        "server": next((part["server"] for part in parts if part.get("server")), None),
    }


def _since(now: int | None, then: int | None) -> int | None:
    return None if now is None else now - (then or 0)


def _total(counts: Any) -> int | None:
    """The sum of the counts the conversations have; None when none has one (the store cannot list)."""
    known = [count for count in counts if count is not None]
    return sum(known) if known else None
