"""ConvoMem's records and loader: evidence items and filler conversations, as its repository keeps them.

ConvoMem (Salesforce AI Research; SalesforceAIResearch/ConvoMem, Apache-2.0) stores each evidence
kind as JSON files of `{"evidence_items": [...]}` (`EvidenceSchema.scala`): an item is a `question`,
its `answer`, the `message_evidences` that answer it (`{speaker, text}`), the `conversations` that
hold them (`{messages: [{speaker, text}], id}`), a use-case `category` and the `personId` whose
filler conversations it is mixed with.  The folder names the kind and the evidence count
(`questions/evidence/user_evidence/2_evidence/…`); filler conversations are items of the same
layout under `conversations/irrelevant/`, grouped by `personId` (`ConversationLoader.scala`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.readers import Malformed, require

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
FILLER_FOLDERS = ("irrelevant", "filler")
LAYOUT = (
    'expected ConvoMem\'s evidence files ({"evidence_items": [...]}) under folders named by kind'
    " (user_evidence/1_evidence/…), as its repository's resources hold them"
)
_COUNT = re.compile(r"^(\d+)_evidence$")


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


@dataclass(frozen=True)
class Loaded:
    """What a ConvoMem folder holds: evidence items, and filler conversations by person."""

    items: list[EvidenceItem]
    filler: dict[str, list[Conversation]]


def load_convomem(path: str | Path) -> Loaded:
    """Every evidence item and filler conversation under `path` (a folder, or one evidence file)."""
    root = Path(path)
    files = sorted(root.rglob("*.json")) if root.is_dir() else [root]
    items: list[EvidenceItem] = []
    filler: dict[str, list[Conversation]] = {}
    for file in files:
        parts = file.relative_to(root).parts if root.is_dir() else file.parts
        data = json.loads(file.read_text(encoding="utf-8"))
        require(
            isinstance(data, dict) and isinstance(data.get("evidence_items"), list), f"{file.name}: {LAYOUT}"
        )
        if any(part in FILLER_FOLDERS for part in parts):
            for number, raw in enumerate(data["evidence_items"]):
                person = str(raw.get("personId") or "anyone")
                filler.setdefault(person, []).extend(_conversations(raw, f"{file.stem}-{number}", file.name))
            continue
        kind = next((KINDS[part] for part in parts if part in KINDS), None)
        if kind is None:
            raise Malformed(f"{file}: not under a folder of an evidence kind ({', '.join(KINDS)}); {LAYOUT}")
        count = next((int(m[1]) for part in parts if (m := _COUNT.match(part))), 1)
        for number, raw in enumerate(data["evidence_items"]):
            items.append(_item(raw, kind, count, f"{kind}-{count}-{file.stem}-{number}", file.name))
    require(bool(items), f"{root} holds no evidence item; {LAYOUT}")
    return Loaded(items, filler)


def _item(raw: Any, kind: str, count: int, item_id: str, file: str) -> EvidenceItem:
    require(
        isinstance(raw, dict) and isinstance(raw.get("question"), str) and "answer" in raw,
        f"{file}: an evidence item without question and answer; {LAYOUT}",
    )
    evidence = tuple(_turn(message, file) for message in raw.get("message_evidences") or [])
    conversations = _conversations(raw, item_id, file)
    require(bool(conversations), f"{file}: evidence item {item_id} has no conversations")
    person = raw.get("personId")
    return EvidenceItem(
        item_id,
        kind,
        count,
        raw["question"],
        str(raw["answer"]),
        evidence,
        conversations,
        person and str(person),
    )


def _conversations(raw: Any, owner: str, file: str) -> tuple[Conversation, ...]:
    found = []
    for number, conversation in enumerate(raw.get("conversations") or []):
        require(isinstance(conversation, dict), f"{file}: a conversation is not an object")
        turns = tuple(_turn(message, file) for message in conversation.get("messages") or [])
        found.append(Conversation(str(conversation.get("id") or f"{owner}-c{number}"), turns))
    return tuple(found)


def _turn(message: Any, file: str) -> Turn:
    require(
        isinstance(message, dict) and isinstance(message.get("text"), str),
        f"{file}: a message without speaker and text",
    )
    return Turn(str(message.get("speaker") or "User"), message["text"])


def evidence_json(items: list[EvidenceItem]) -> dict[str, Any]:
    """Items in ConvoMem's file layout (our generator's files, and the tests' fixtures)."""
    return {
        "evidence_items": [
            {
                "question": item.question,
                "answer": item.answer,
                "message_evidences": [{"speaker": t.speaker, "text": t.text} for t in item.evidence],
                "conversations": [
                    {"id": c.id, "messages": [{"speaker": t.speaker, "text": t.text} for t in c.turns]}
                    for c in item.conversations
                ],
                "category": item.category,
                "scenario_description": None,
                "personId": item.person,
            }
            for item in items
        ]
    }


__all__ = [
    "KINDS",
    "LAYOUT",
    "RULES",
    "Conversation",
    "EvidenceItem",
    "Loaded",
    "Turn",
    "evidence_json",
    "load_convomem",
]
