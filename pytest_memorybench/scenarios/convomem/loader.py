"""Reading one evidence kind of ConvoMem's published data, as its own code reads it.

Two ways to the questions, as ConvoMem has them:

- `premixed`: the published test cases as given (`pre_mixed_testcases/`, what its evaluators run
  with `USE_CACHED_TEST_CASES`): each case's history and questions, those of the size asked.
- `evidence`: the evidence questions (`evidence_questions/`), each mixed here at the size asked
  with filler conversations of the same person (`filler_conversations/`), as its
  `StandardTestCasesGenerator` mixes them (`scenario.mixed`).

`auto` takes the pre-mixed cases when the data holds some of the kind, else the evidence questions.
Filler is read only for the people whose questions run (`ConversationLoader` groups it by person:
an item's `personId`, else its file name's); the personas file names each person's role.  What
could not be used is counted in the load's `LoadCounts`, which the run's header says.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pytest_memorybench.core.readers import Malformed, as_list, as_mapping, read_json, require
from pytest_memorybench.scenarios.convomem.data import (
    KINDS,
    Conversation,
    EvidenceItem,
    Skips,
    conversations,
    evidence_item,
    person_of,
)
from pytest_memorybench.scenarios.convomem.folders import LAYOUT, Layout, LoadCounts, find_layout
from pytest_memorybench.scenarios.convomem.matching import locate
from pytest_memorybench.scenarios.convomem.premixed import PremixedCase, read_cases

CASES = ("auto", "premixed", "evidence")
FOLDER_OF = {category: folder for folder, category in KINDS.items()}


@dataclass
class Loaded:
    """One kind's questions: evidence items to mix here, or pre-mixed cases; filler by person."""

    report: LoadCounts
    items: list[EvidenceItem] = field(default_factory=list)
    cases: list[PremixedCase] = field(default_factory=list)
    filler: dict[str, list[Conversation]] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)  # personId → role name


def load_convomem(path: str | Path, category: str, size: int, cases: str = "auto", limit: int = 0) -> Loaded:
    """The questions of one kind (`user_facts`, …) under `path`, at `size` conversations; at most
    `limit` of them (0: all), read in the files' order."""
    require(cases in CASES, f"cases must be one of {', '.join(CASES)}, got {cases!r}")
    layout = find_layout(path)
    require(not layout.empty, f"{path} holds no evidence questions or test cases; {LAYOUT}")
    folder = FOLDER_OF[category]
    loaded = Loaded(LoadCounts(folder, other_files=len(layout.other)))
    premixed = layout.premixed.get(folder, [])
    if cases == "premixed" or (cases == "auto" and premixed):
        _read_premixed(loaded, premixed, category, size, limit)
        if premixed and not loaded.cases and loaded.report.other_sizes:
            sizes = ", ".join(str(s) for s in sorted(loaded.report.other_sizes))
            raise Malformed(
                f"no pre-mixed test case of {folder} has {size} conversations (they have {sizes});"
                " set the suite's conversations to one of those"
            )
    else:
        _read_evidence(loaded, layout.evidence.get(folder, []), category, limit)
        _read_filler(loaded, layout, {item.person for item in loaded.items if item.person})
        loaded.report.topped_up = sum(
            len(loaded.filler.get(item.person or "", [])) < size - len(item.conversations)
            for item in loaded.items
        )
    _read_personas(loaded, layout.personas)
    return loaded


def _read_premixed(
    loaded: Loaded, files: list[tuple[int, Path]], category: str, size: int, limit: int
) -> None:
    report = loaded.report
    for count, file in _within_limit(files, report, limit):
        with closing(read_cases(file, category, count, size, report.skipped, report.other_sizes)) as found:
            _take_cases(loaded, found, limit)


def _within_limit(
    files: list[tuple[int, Path]], report: LoadCounts, limit: int
) -> Iterator[tuple[int, Path]]:
    """The files to read, in order, until `limit` questions are found (the rest counted unread)."""
    for number, (count, file) in enumerate(files):
        if limit and report.items >= limit:
            report.unread += len(files) - number
            return
        report.files += 1
        yield count, file


def _rows(file: Path) -> list[Any]:
    """The `evidence_items` of an evidence or filler file (`EvidencePayload`)."""
    payload = as_mapping(read_json(file), f"{file.name}: not an object; {LAYOUT}")
    return as_list(payload.get("evidence_items"), f"{file.name}: no evidence_items list; {LAYOUT}")


def _take_cases(loaded: Loaded, found: Iterator[PremixedCase], limit: int) -> None:
    report = loaded.report
    for case in found:
        if limit and report.items + len(case.items) > limit:
            kept = limit - report.items
            report.beyond_limit += len(case.items) - kept
            case = _first(case, kept)
        loaded.cases.append(case)
        report.cases += 1
        report.items += len(case.items)
        _count_missing(report.skipped, sum(case.missing.values()))
        if limit and report.items >= limit:
            break


def _first(case: PremixedCase, kept: int) -> PremixedCase:
    """The case with its first `kept` questions only (the history stays whole)."""
    items = case.items[:kept]
    ids = {item.id for item in items}
    return replace(
        case,
        items=items,
        evidence={key: value for key, value in case.evidence.items() if key in ids},
        missing={key: value for key, value in case.missing.items() if key in ids},
    )


def _read_evidence(loaded: Loaded, files: list[tuple[int, Path]], category: str, limit: int) -> None:
    report = loaded.report
    for count, file in _within_limit(files, report, limit):
        rows = _rows(file)
        for index, raw in enumerate(rows):
            item = evidence_item(raw, category, count, person_of(file), report.skipped)
            if item is None:
                continue
            if not item.conversations:
                report.skipped["evidence items without conversations"] += 1
                continue
            _count_missing(report.skipped, locate(item.evidence, item.conversations)[1])
            loaded.items.append(item)
            report.items += 1
            if limit and report.items >= limit:
                report.beyond_limit += len(rows) - index - 1
                break


def _read_filler(loaded: Loaded, layout: Layout, people: set[str]) -> None:
    """Filler conversations of `people`, from the files named after them; grouped, as ConvoMem
    groups them, by each row's `personId` (its file's, when it names none)."""
    report = loaded.report
    for person in sorted(people):
        for file in layout.filler.get(person, []):
            report.files += 1
            for number, raw in enumerate(_rows(file)):
                owner = str((raw.get("personId") if isinstance(raw, dict) else None) or person_of(file))
                found = conversations(
                    raw.get("conversations") if isinstance(raw, dict) else None,
                    f"{file.stem}-{number}",
                    report.skipped,
                )
                empty = sum(1 for conversation in found if not conversation.turns)
                if empty:
                    report.skipped["filler conversations without messages"] += empty
                kept = [conversation for conversation in found if conversation.turns]
                loaded.filler.setdefault(owner, []).extend(kept)
                report.filler += len(kept)


def _read_personas(loaded: Loaded, files: list[Path]) -> None:
    for file in files:
        loaded.report.files += 1
        payload: Any = read_json(file)
        roles = as_list(
            payload.get("roles") if isinstance(payload, dict) else None, f"{file.name}: no roles list"
        )
        for person in roles:
            if isinstance(person, dict) and person.get("id"):
                loaded.roles[str(person["id"])] = str(person.get("role_name") or "")
                loaded.report.personas += 1
            else:
                loaded.report.skipped["personas without an id"] += 1


def _count_missing(skips: Skips, missing: int) -> None:
    if missing:
        skips["evidence messages found in no conversation"] += missing


__all__ = ["CASES", "Loaded", "load_convomem"]
