"""What a memory wrote: its listing at a conversation's end matched against every question's evidence.

A question whose evidence search did not find may have been lost twice over: the memory never
kept the evidence (an extraction that left it out, a store that dropped it), or kept it and its
search did not find it.  Evidence recall alone cannot tell them apart; the listing can.  At a
conversation's end the harness asks the agent for every memory it holds (`stored()`: a store's
list or dump call, a mechanism's own memory), and matches it against each question's evidence by
the rule evidence recall counts by (`conversation/evidence.py`): the question's evidence record
gets `stored`, the recall over everything the memory holds.  A question whose evidence is not
wholly held was *never stored* whole, so no search could have found it; one whose evidence is
wholly held and was not retrieved was *stored but not found* (`results/losses.py`).  An agent that
cannot list what it holds leaves the question without `stored`: unknown.  The match goes to the
event log (`written`: each test's `stored`, the figures), from which a replay gives it back.

The listing is taken once, at the end: a question asked midway (an LTM conversation) is matched
against what the memory holds when the conversation ends, which for a memory that only adds is
what it held then and more; a memory that rewrites or forgets (an extracting product, MemoryBank's
fading) may have held, at the question, what the end no longer shows.

The conversation's write figures (`Ledger.settle`): the memories kept, how many repeat another's
text, the evidence coverage (the share of every question's labelled evidence the memories hold),
and how many memories carry no evidence of any question: for a store that keeps every message most
do (most of a conversation is no question's evidence); for an extracting product, a memory that
carries none is a fact no question needed, or one the match cannot recognise (a paraphrase that
drops words of the message it came from).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.evidence_match import MIN_CONTENT_WORDS, Memory, Paragraph
from pytest_memorybench.conversation.evidence import evidence_pieces, recall_figures
from pytest_memorybench.core.json_values import JsonObject

_NONE: frozenset[int] = frozenset()


class Listing:
    """What a memory holds, indexed by word and by line, so that a conversation's every question is
    matched against thousands of memories at once: a paragraph is held by the memories in every
    one of its words' postings (all its content words), or, when it has fewer than
    `MIN_CONTENT_WORDS`, by those with it as a line: `Paragraph.found_in`'s rule, looked up."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = list(texts)
        self.memories = [Memory.of(text) for text in self.texts]
        self._by_word: dict[str, set[int]] = defaultdict(set)
        self._by_line: dict[str, set[int]] = defaultdict(set)
        for position, memory in enumerate(self.memories):
            for word in memory.words:
                self._by_word[word].add(position)
            for line in memory.lines:
                self._by_line[line].add(position)
        self._holders: dict[tuple[frozenset[str], str], frozenset[int]] = {}

    def holders(self, paragraph: Paragraph) -> frozenset[int]:
        """The positions of the memories that hold `paragraph`."""
        key = (paragraph.words, paragraph.line)
        if key not in self._holders:
            if len(paragraph.words) >= MIN_CONTENT_WORDS:
                postings = sorted((self._by_word.get(word, _NONE) for word in paragraph.words), key=len)
                self._holders[key] = frozenset(set(postings[0]).intersection(*postings[1:]))
            else:
                self._holders[key] = frozenset(self._by_line.get(paragraph.line, _NONE))
        return self._holders[key]

    def share(self, parts: Sequence[Paragraph]) -> float:
        """The share of the paragraphs some memory holds."""
        return sum(bool(self.holders(part)) for part in parts) / len(parts)

    def recall(self, evidence: Sequence[str]) -> JsonObject | None:
        """Evidence recall over everything held (`conversation/evidence.py`'s measure): {"evidence",
        "recalled", "recall"}, or None without evidence."""
        pieces = evidence_pieces(evidence)
        return recall_figures({key: self.share(parts) for key, parts in pieces.items()}) if pieces else None


@dataclass
class Ledger:
    """Each question's evidence and its evidence record, kept until the conversation's end."""

    asked: list[tuple[str, list[str], JsonObject]] = field(default_factory=list)
    # a replay's: what the run it replays logged (each test's stored recall, the figures)
    logged: tuple[JsonObject, JsonObject] | None = None

    def note(self, test: str, evidence: Sequence[str], record: JsonObject | None) -> None:
        """A test's question: its evidence texts and the evidence record its item keeps (None: not
        measured)."""
        if record is not None:  # a replay's, without its texts: matched as logged
            self.asked.append((test, list(evidence), record))

    def settle(self, stored: Sequence[str] | None) -> JsonObject | None:
        """Each noted record gets `stored` (the evidence recall over every memory held); the
        conversation's write figures, or None when the memory cannot list what it holds.  With no
        listing, a replay's records get what the run it replays logged."""
        if stored is None:
            return self._replayed()
        listing = Listing(stored)
        for _, evidence, record in self.asked:
            recall = listing.recall(evidence)
            if recall is not None:
                record["stored"] = recall
        return write_figures(listing, [piece for _, evidence, _ in self.asked for piece in evidence])

    def _replayed(self) -> JsonObject | None:
        if self.logged is None:
            return None
        by_test, figures = self.logged
        for test, _, record in self.asked:
            if isinstance(by_test.get(test), dict):
                record["stored"] = by_test[test]
        return figures

    def by_test(self) -> JsonObject:
        """Each test's `stored` recall once settled (its last question's), for the event log: a
        replay gives each item its split back from it."""
        return {test: record["stored"] for test, _, record in self.asked if "stored" in record}


async def settle(
    ledger: Ledger, agent: AgentAdapter | None, emit: Callable[..., object]
) -> JsonObject | None:
    """At a conversation's end: the agent's listing (`take_stock`) matched and logged as a `written`
    event; with no agent to ask (a replay, a resume with nothing left to ask), what was logged."""
    if agent is None:
        return ledger.settle(None)
    figures = ledger.settle(await agent.take_stock())
    if figures is not None:
        emit("written", stored=ledger.by_test(), figures=figures)
    return figures


def write_figures(listing: Listing, evidence: Sequence[str]) -> JsonObject:
    """What the memory kept: {"memories", "duplicates", "evidence", "covered", "coverage",
    "without_evidence"}; `evidence` counts the distinct pieces every question rests on, `covered`
    the sum of the shares of them the memories hold."""
    pieces = evidence_pieces(evidence)
    covered = sum(listing.share(parts) for parts in pieces.values())
    carrying = set().union(*(listing.holders(part) for parts in pieces.values() for part in parts))
    return {
        "memories": len(listing.texts),
        "duplicates": len(listing.texts) - len(set(listing.texts)),
        "evidence": len(pieces),
        "covered": round(covered, 6),
        "coverage": round(covered / len(pieces), 6) if pieces else None,
        "without_evidence": len(listing.texts) - len(carrying),
    }


def pooled_written(conversations: Sequence[Mapping[str, Any]]) -> JsonObject | None:
    """The run's write figures from its conversations' records (`ConversationStats.written`); None
    when no conversation's memory could list what it held."""
    listed = [conversation["written"] for conversation in conversations if conversation.get("written")]
    if not listed:
        return None
    memories = sum(part["memories"] for part in listed)
    evidence = sum(part["evidence"] for part in listed)
    covered = sum(part["covered"] for part in listed)
    without = sum(part["without_evidence"] for part in listed)
    return {
        "conversations": len(listed),
        "unlisted": len(conversations) - len(listed),
        "memories": memories,
        "duplicates": sum(part["duplicates"] for part in listed),
        "evidence": evidence,
        "covered": round(covered, 6),
        "coverage": round(covered / evidence, 6) if evidence else None,
        "without_evidence": without,
        # No share where no question labels evidence (StateBench): every memory would "carry none".
        "without_evidence_share": round(without / memories, 6) if memories and evidence else None,
    }
