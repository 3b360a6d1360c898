"""BEAM's answers as its `src/evaluation/run_evaluation.py` reads them.

BEAM's answer script writes, for each chat, `results/<size>/<chat number>/<file>.json`: the chat's
`probing_questions.json` (an object keyed by ability, each a list of questions) with an
`llm_response` added to every question.  Its evaluation (`run_evaluation.py --input_directory
results/<size> --chat_size <size> --allowed_result_files <file>.json`) reads each ability's list
and pairs its i-th entry with the i-th question of that ability in
`chats/<size>/<n>/probing_questions/probing_questions.json` (the rubric comes from there), reading
the entry's `question` and `llm_response`.

So each chat the run asked is `<size>/<chat number>/answers.json`, each ability's questions in the
published order with `question`, `rubric`, `difficulty` and `llm_response`.  Answers pair by
position, so an ability's list ends at its first question the run did not answer; answers after
it are left out, and counted.  Our generated chats are numbered as the writer saves them
(`gen-100K-2` is `100K/2`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.reports.exports.answers import Answer, Planned, answered_prefix, counted, write_json
from pytest_memorybench.scenarios.beam.questions import ABILITIES
from pytest_memorybench.scenarios.beam.scenario import NAME

FILE = "answers.json"


def chat_folder(definition: TestDefinition) -> str:
    """ "100K-3" (published) or "gen-100K-3" (generated) → "100K/3", where BEAM keeps that chat."""
    return f"{definition.params['size']}/{str(definition.context).rsplit('-', 1)[-1]}"


def export(planned: Planned, folder: Path) -> tuple[Path | None, str]:
    """Each chat's answers.json; (the folder, what went in)."""
    chats: dict[str, dict[str, list[tuple[TestDefinition, Answer | None]]]] = {}
    for definition, answer in planned.of(lambda d: d.scenario == NAME and not d.skip_reason):
        ability = definition.expected["ability"]
        chats.setdefault(chat_folder(definition), {}).setdefault(ability, []).append((definition, answer))
    written, late = 0, 0
    answers: list[Answer] = []
    for chat, by_ability in chats.items():
        document: dict[str, list[dict[str, Any]]] = {}
        for ability in (name for name in ABILITIES if name in by_ability):
            prefix, left = answered_prefix(sorted(by_ability[ability], key=lambda pair: pair[0].repetition))
            late += left
            if prefix:
                document[ability] = [_entry(answer) for answer in prefix]
                answers.extend(prefix)
        if document:
            write_json(folder / chat / FILE, document)
            written += 1
    if not answers:
        return None, "no BEAM question was answered in this run; nothing written"
    rest = f"{late} left out: answered after a question of their ability that was not" if late else ""
    return folder, counted(
        len(answers), f"answers in {written} chat{'s' if written != 1 else ''}", answers, rest
    )


def _entry(answer: Answer) -> dict[str, Any]:
    expected = answer.definition.expected
    return {
        "question": answer.definition.questions[0],
        "rubric": expected["rubric"],
        "difficulty": expected["difficulty"],
        "llm_response": answer.text,
    }


__all__ = ["FILE", "chat_folder", "export"]
