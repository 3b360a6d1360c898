"""A small ConvoMem download of our own, in the folders Hugging Face publishes (`Salesforce/ConvoMem`).

Its content is our generator's (personas at work, trivia filler), laid out as ConvoMem's code
writes each folder: evidence files (`EvidencePayload`, speakers as written, `personId` left out
of one item so the file name gives it), pre-mixed test cases (`TestCase` lists, speakers
lowercased as ConvoMem's loader leaves them, one case asking two questions of one history),
filler files (`EvidencePayload` rows whose conversations are the filler) and the personas file
(`RolesResponse`).  Each oddity a real download holds is here once, so the tests can count it:
an evidence copy that is not exact, one found nowhere, an item without a question, a JSON file
outside ConvoMem's folders.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from pytest_memorybench.scenarios.convomem.data import (
    Conversation,
    EvidenceItem,
    Turn,
    case_json,
    conversation_json,
    evidence_json,
)
from pytest_memorybench.scenarios.convomem.generator import evidence_items, filler_conversations

PERSON = "5b0c7e52-1f0a-4c1e-9d3e-6a2f51c0d7aa"
ROLE = "Procurement_Lead"
FILLER = 12  # the person's filler conversations
NOT_THERE = Turn("User", "My locker code at the gym is 4471.")  # an evidence copy in no conversation
ABSTAIN_ANSWER = "There is no information in prior conversations to answer this question"


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def _of(items: list[EvidenceItem]) -> list[EvidenceItem]:
    return [dataclasses.replace(item, person=PERSON) for item in items]


def _lower(row: dict[str, Any]) -> dict[str, Any]:
    """A row as ConvoMem's loader leaves it (and its test cases keep it): speakers lowercased."""
    text = json.dumps(row).replace('"speaker": "User"', '"speaker": "user"')
    return json.loads(text.replace('"speaker": "Assistant"', '"speaker": "assistant"'))  # type: ignore[no-any-return]


def user_items() -> list[EvidenceItem]:
    """Two user-facts items (two evidence messages each): the first's copies inexact (case and a
    dropped full stop), the second with a third copy found in no conversation."""
    first, second = _of(evidence_items("user_facts", 0, 2))
    inexact = tuple(Turn(t.speaker, t.text.rstrip(".").lower()) for t in first.evidence)
    return [
        dataclasses.replace(first, evidence=inexact),
        dataclasses.replace(second, evidence=(*second.evidence, NOT_THERE)),
    ]


def filler() -> list[Conversation]:
    return filler_conversations(7, "Imogen Hartwell", FILLER)


def write_download(root: Path) -> Path:
    """The download under `root`; returns `root`."""
    core = root / "core_benchmark"
    questions = core / "evidence_questions"
    person_file = f"{PERSON}_{ROLE}.json"

    users = evidence_json(user_items())
    users["evidence_items"][0]["personId"] = None  # the file name gives it, as EvidencePersistence reads
    users["evidence_items"].append({"answer": "no question here", "conversations": []})
    _write(questions / "user_evidence" / "2_evidence" / person_file, users)
    _write(
        questions / "changing_evidence" / "3_evidence" / person_file,
        evidence_json(_of(evidence_items("changing_facts", 0, 1))),
    )
    abstention = [
        dataclasses.replace(item, answer=ABSTAIN_ANSWER, evidence=item.conversations[0].turns[4:5])
        for item in _of(evidence_items("abstention", 0, 2))
    ]
    _write(questions / "abstention_evidence" / "1_evidence" / person_file, evidence_json(abstention))

    pool = filler()
    first, second = user_items()
    cases = [
        case_json([first], [pool[0], *first.conversations, pool[1]], 4),
        case_json(
            [first, second],
            [
                pool[2],
                first.conversations[0],
                pool[3],
                *first.conversations[1:],
                *second.conversations,
                *pool[4:8],
            ],
            10,
        ),
        case_json([second], [*pool[:8], *second.conversations], 10),  # an item reused at one size
    ]
    _write(
        core / "pre_mixed_testcases" / "user_evidence" / "2_evidence" / "batched_000.json",
        [_lower(c) for c in cases],
    )
    abstaining = [case_json([item], [*pool[:9], *item.conversations], 10) for item in abstention]
    _write(
        core / "pre_mixed_testcases" / "abstention_evidence" / "1_evidence" / "batched_000.json",
        [_lower(c) for c in abstaining],
    )

    rows = [
        {
            "question": "Can you help me plan a quiz night?",
            "answer": "A conversation about quiz questions.",
            "message_evidences": [{"speaker": "User", "text": conversation.turns[0].text}],
            "conversations": [conversation_json(conversation, evidence=False)],
            "category": "Leisure",
            "scenario_description": "Trivia for fun.",
            "personId": PERSON,
        }
        for conversation in pool
    ]
    rows.append(
        {"question": "An empty one", "answer": "", "conversations": [{"messages": [], "id": "empty"}]}
    )
    _write(core / "filler_conversations" / person_file, {"evidence_items": rows, "checkpoint": "abc123"})
    _write(
        core / "personas" / "personas_default.json",
        {
            "roles": [
                {
                    "category": "Operations",
                    "role_name": "Procurement Lead",
                    "description": "Buys what the company needs.",
                    "background": None,
                    "id": PERSON,
                }
            ]
        },
    )
    _write(root / "dataset_info.json", {"license": "not ours to say"})
    return root
