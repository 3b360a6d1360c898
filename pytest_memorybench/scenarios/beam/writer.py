"""Saving a generated chat in BEAM's published layouts, batch by batch.

The loader must be tested on data shaped like the published files without shipping them (they
carry no licence), and the memory benchmark must stream a 1M-token chat from disk.  So a
generated chat can be written as a repository folder (`chats/<size>/<n>/chat.json` and
`probing_questions/probing_questions.json`) or as a Hugging Face export row (JSON lines, the
probing questions as a Python-literal string as in `Mohammadta/BEAM`).  Batches are written one
at a time, so writing a 10M-token chat holds one batch in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.scenarios.beam import generator
from pytest_memorybench.scenarios.beam.questions import ANSWER_FIELDS, ProbingQuestion

# Which reference-answer field each ability uses in the published files.
_ANSWER_FIELD = {
    "abstention": "ideal_response",
    "contradiction_resolution": "ideal_answer",
    "summarization": "ideal_summary",
    "instruction_following": "expected_compliance",
    "preference_following": "expected_compliance",
}


def published_questions(questions: Iterable[ProbingQuestion]) -> dict[str, list[JsonObject]]:
    """Questions in the published `probing_questions.json` shape (field names per ability)."""
    result: dict[str, list[JsonObject]] = {}
    for q in questions:
        item: JsonObject = {
            "question": q.question,
            _ANSWER_FIELD.get(q.ability, ANSWER_FIELDS[0]): q.answer,
        }
        item["difficulty"] = q.difficulty
        item.update(q.extra)
        if q.ability != "abstention" and "source_chat_ids" not in item:  # a published dict stays a dict
            item["source_chat_ids"] = list(q.source_ids)
        item["rubric"] = list(q.rubric)
        result.setdefault(q.ability, []).append(item)
    return result


def _write_batches(out: IO[str], batches: Iterable[Any]) -> None:
    out.write("[")
    for position, batch in enumerate(batches):
        out.write(",\n" if position else "\n")
        json.dump(batch, out, ensure_ascii=False)
    out.write("\n]")


def write_repository(plan: generator.ChatPlan, root: Path, number: int = 1) -> Path:
    """`root/chats/<size>/<number>/` with chat.json and the probing questions; returns the folder."""
    folder = Path(root) / "chats" / generator.size_name(plan.tokens) / str(number)
    (folder / "probing_questions").mkdir(parents=True, exist_ok=True)
    with open(folder / "chat.json", "w", encoding="utf-8") as out:
        _write_batches(out, generator.batches(plan))
    (folder / "probing_questions" / "probing_questions.json").write_text(
        json.dumps(published_questions(plan.questions), indent=2, ensure_ascii=False), encoding="utf-8"
    )
    return folder


def write_export_row(plan: generator.ChatPlan, out: IO[str], conversation_id: str) -> None:
    """One Hugging Face export row (a line of JSON lines): the chat as lists of messages."""
    out.write("{" + f'"conversation_id": {json.dumps(conversation_id)}, "chat": ')
    flat = ([message for turn in batch["turns"] for message in turn] for batch in generator.batches(plan))
    _write_batches(out, flat)
    questions = repr(published_questions(plan.questions))  # a Python literal, as the export has it
    out.write(f', "probing_questions": {json.dumps(questions, ensure_ascii=False)}' + "}\n")


__all__ = ["published_questions", "write_export_row", "write_repository"]
