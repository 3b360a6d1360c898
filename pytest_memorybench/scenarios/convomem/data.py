"""ConvoMem's records, and how one of its JSON rows becomes one of them.

ConvoMem (Salesforce AI Research) publishes its data on Hugging Face (`Salesforce/ConvoMem`); its
repository holds the Scala code that wrote it.  Every evidence file is an `EvidencePayload`
(`EvidenceSchema.scala`): `{"evidence_items": [...], "checkpoint": ...}`, an item being a
`question`, its `answer`, the `message_evidences` that answer it (`{speaker, text}`: copies of
the messages, not ids), the `conversations` that hold them (`{messages, id, containsEvidence,
model_name}`), a use-case `category`, a `scenario_description` and the `personId` whose filler it
is mixed with.  A file is named `<personId>_<Role>.json`, and an item without a `personId` takes
the file name's first part, as `EvidencePersistence.loadEvidenceItems` does.  A pre-mixed test
case (`TestCaseSerializer.scala`) holds the same items under `evidenceItems`.

A row that cannot be used (no question, a message without text) is counted, never dropped
quietly: the callers put the counts in their `LoadCounts`.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from pytest_memorybench.core.readers import Malformed

# Folder of each evidence kind → our category (the README's six), and the judge rule that scores it.
KINDS = {
    "user_evidence": "user_facts",
    "assistant_facts_evidence": "assistant_facts",
    "changing_evidence": "changing_facts",
    "abstention_evidence": "abstention",
    "preference_evidence": "preferences",
    "implicit_connection_evidence": "implicit_connections",
}
RULES = {
    "user_facts": "contains",
    "assistant_facts": "contains",
    "changing_facts": "update",
    "abstention": "abstention",
    "preferences": "preference",
    "implicit_connections": "preference",
}
MAX_MESSAGES = 1000  # a conversation's messages: ids are its number × this + a message's place


@dataclass(frozen=True)
class Turn:
    """One message: who said it (User or Assistant) and what."""

    speaker: str
    text: str


@dataclass(frozen=True)
class Conversation:
    """One conversation of the history, evidence or filler."""

    id: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class EvidenceItem:
    """A question, its answer, the messages it rests on and the conversations that hold them."""

    id: str
    category: str  # one of KINDS' values
    evidence_count: int
    question: str
    answer: str
    evidence: tuple[Turn, ...]
    conversations: tuple[Conversation, ...]
    person: str | None = None
    # The values the answer replaced, where the item says (our generator's changing facts).  ConvoMem's
    # records do not: a changing item's `message_evidences` tell the change in free text ("my trip got
    # cancelled") and its `answer` gives only the outcome, so a published item has none.
    superseded: tuple[str, ...] = ()


class Skips(Counter[str]):
    """Rows and labels that could not be used, by reason (a reason names what was not used)."""


def person_of(file: Path) -> str:
    """The person a file belongs to: `<personId>_<Role>.json` → personId (`EvidencePersistence`)."""
    return file.stem.split("_")[0]


def item_id(category: str, count: int, person: str | None, question: str, answer: str) -> str:
    """A name for an evidence item that is the same wherever it is read (an evidence file, a pre-mixed
    case of any size): its kind, its evidence count and a digest of who asks what."""
    key = json.dumps([person, question, answer], ensure_ascii=False)
    return f"{category}-{count}ev-{hashlib.sha1(key.encode()).hexdigest()[:10]}"


def evidence_item(
    raw: Any, category: str, count: int, person: str | None, skips: Skips, name: str | None = None
) -> EvidenceItem | None:
    """One evidence row as an item (None, counted in `skips`, when it has no question and answer).
    `person` is the file's, for an item that names none."""
    if not isinstance(raw, dict) or not isinstance(raw.get("question"), str) or raw.get("answer") is None:
        skips["evidence items without a question and an answer"] += 1
        return None
    owner = str(raw.get("personId") or person or "") or None
    question, answer = raw["question"], str(raw["answer"])
    identity = name or item_id(category, count, owner, question, answer)
    evidence = tuple(
        turn for message in raw.get("message_evidences") or [] if (turn := _turn(message, skips))
    )
    return EvidenceItem(
        identity,
        category,
        count,
        question,
        answer,
        evidence,
        conversations(raw.get("conversations"), identity, skips),
        owner,
    )


def conversations(raw: Any, owner: str, skips: Skips) -> tuple[Conversation, ...]:
    """A row's `conversations`, each named by its `id` (or its owner and place when it has none)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise Malformed(f"{owner}: conversations is not a list")
    found = []
    for number, conversation in enumerate(raw):
        if not isinstance(conversation, dict) or not isinstance(conversation.get("messages"), list):
            skips["conversations without a list of messages"] += 1
            continue
        turns = tuple(turn for message in conversation["messages"] if (turn := _turn(message, skips)))
        if len(turns) >= MAX_MESSAGES:
            raise Malformed(
                f"{owner}: a conversation of {len(turns):,} messages (at most {MAX_MESSAGES - 1})"
            )
        found.append(Conversation(str(conversation.get("id") or f"{owner}-c{number}"), turns))
    return tuple(found)


def _turn(message: Any, skips: Skips) -> Turn | None:
    if not isinstance(message, dict) or not isinstance(message.get("text"), str):
        skips["messages without text"] += 1
        return None
    return Turn(str(message.get("speaker") or "User"), message["text"])


# ConvoMem's JSON layout, as our writer (the tests' fixtures) writes it; the loader checks what it reads.
class MessageRow(TypedDict):
    speaker: str
    text: str


class ConversationRow(TypedDict):
    messages: list[MessageRow]
    id: str
    containsEvidence: bool
    model_name: None


class EvidenceItemRow(TypedDict):
    question: str
    answer: str
    message_evidences: list[MessageRow]
    conversations: list[ConversationRow]
    category: str
    scenario_description: None
    personId: str | None


class EvidenceFile(TypedDict):
    evidence_items: list[EvidenceItemRow]
    checkpoint: None


class TestCaseFile(TypedDict):
    contextSize: int
    evidenceItems: list[EvidenceItemRow]
    conversations: list[ConversationRow]


def _row(item: EvidenceItem) -> EvidenceItemRow:
    """An item as ConvoMem's `EvidenceItem` JSON (speakers as its generators write them)."""
    return {
        "question": item.question,
        "answer": item.answer,
        "message_evidences": [{"speaker": t.speaker, "text": t.text} for t in item.evidence],
        "conversations": [conversation_json(c, evidence=True) for c in item.conversations],
        "category": item.category,
        "scenario_description": None,
        "personId": item.person,
    }


def conversation_json(conversation: Conversation, evidence: bool) -> ConversationRow:
    """A conversation as ConvoMem's `Conversation` JSON."""
    return {
        "messages": [{"speaker": t.speaker, "text": t.text} for t in conversation.turns],
        "id": conversation.id,
        "containsEvidence": evidence,
        "model_name": None,
    }


def evidence_json(items: list[EvidenceItem]) -> EvidenceFile:
    """Items in ConvoMem's evidence-file layout (`EvidencePayload`; the tests' fixtures)."""
    return {"evidence_items": [_row(item) for item in items], "checkpoint": None}


def case_json(items: list[EvidenceItem], history: list[Conversation], size: int) -> TestCaseFile:
    """A pre-mixed test case in ConvoMem's layout (`TestCase`: the tests' fixtures)."""
    evidence = {c.id for item in items for c in item.conversations}
    return {
        "contextSize": size,
        "evidenceItems": [_row(item) for item in items],
        "conversations": [conversation_json(c, c.id in evidence) for c in history],
    }


__all__ = [
    "KINDS",
    "MAX_MESSAGES",
    "RULES",
    "Conversation",
    "EvidenceItem",
    "Skips",
    "Turn",
    "case_json",
    "conversation_json",
    "conversations",
    "evidence_item",
    "evidence_json",
    "item_id",
    "person_of",
]
