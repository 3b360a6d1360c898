"""ConvoMem's pre-mixed test cases, read as given: each case's history and questions as it ran them.

A file under `pre_mixed_testcases/<kind>/<n>_evidence/` is a JSON list of test cases
(`TestCaseSerializer.scala`): `contextSize` (the history's size as asked; every evidence
conversation is kept beyond it), `evidenceItems` (the questions asked of it: one, or a batch of
several sharing the history, `BatchedTestCasesGenerator`) and `conversations` (the history, in
order, evidence conversations flagged `containsEvidence`).  A case without `contextSize` is as big
as its history (`TestCase.conversationCount`).

The files are large (the 300-conversation ones near 1 GB), so a file is walked one case at a time
(`core.jsonstream`): a case of another size is skipped unparsed, and the history of a case that is
run is parsed to find its evidence, then read again from the file when it is delivered, so a run
holds one history at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from pytest_memorybench.core.jsonstream import JsonStream
from pytest_memorybench.core.readers import Malformed
from pytest_memorybench.scenarios.convomem.data import (
    Conversation,
    EvidenceItem,
    Skips,
    conversations,
    evidence_item,
)
from pytest_memorybench.scenarios.convomem.matching import Place, locate

SIZE = "contextSize"
ITEMS = "evidenceItems"
HISTORY = "conversations"


@dataclass(frozen=True)
class PremixedCase:
    """One published test case: its history (read from the file when asked) and its questions."""

    id: str
    size: int
    items: tuple[EvidenceItem, ...]
    evidence: dict[str, tuple[Place, ...]]  # item id → where its evidence messages are
    missing: dict[str, int]  # item id → its evidence messages found nowhere in the history
    length: int  # conversations in the history
    history: Callable[[], tuple[Conversation, ...]] = field(repr=False, compare=False)


def read_cases(
    file: Path, category: str, count: int, size: int, skips: Skips, sizes_seen: dict[int, int]
) -> Generator[PremixedCase, None, None]:
    """The cases of `file` whose size is `size`; `sizes_seen` counts the others by their size."""
    with JsonStream(file) as stream:
        for number, _ in enumerate(stream.items()):
            found, where = _walk_case(stream, file, number)
            if found is None:
                where_history = where.get(HISTORY)
                found = len(_parse(file, where_history)) if where_history is not None else 0
            if found != size:
                sizes_seen[found] = sizes_seen.get(found, 0) + 1
                continue
            case = _case(file, number, category, count, size, where, skips)
            if case is not None:
                yield case


def _walk_case(stream: JsonStream, file: Path, number: int) -> tuple[int | None, dict[str, int]]:
    """A case's size and where its questions and history start in the file, without parsing them."""
    if stream.peek() != "{":
        raise Malformed(f"{file.name}: test case {number} is not an object")
    size: int | None = None
    where: dict[str, int] = {}
    for key in stream.members():
        if key == SIZE:
            value = stream.value()
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise Malformed(f"{file.name}: test case {number} has contextSize {value!r}, not a number")
            size = value
        elif key in (ITEMS, HISTORY):
            where[key] = stream.position()
            stream.skip()
        else:
            stream.skip()
    return size, where


def _parse(file: Path, start: int) -> Any:
    with JsonStream(file, start=start) as stream:
        return stream.value()


def _history(file: Path, start: int, owner: str) -> tuple[Conversation, ...]:
    return conversations(_parse(file, start), owner, Skips())


def _case(
    file: Path, number: int, category: str, count: int, size: int, where: dict[str, int], skips: Skips
) -> PremixedCase | None:
    case_id = f"{category}-{count}ev-{file.stem}-{number}"
    if HISTORY not in where:
        skips["pre-mixed test cases without conversations"] += 1
        return None
    raw_items = _parse(file, where[ITEMS]) if ITEMS in where else []
    if not isinstance(raw_items, list) or not raw_items:
        skips["pre-mixed test cases without evidence items"] += 1
        return None
    history = conversations(_parse(file, where[HISTORY]), case_id, skips)
    numbers = {conversation.id: n for n, conversation in enumerate(history)}
    items, evidence, missing = [], {}, {}
    for raw in raw_items:
        item = evidence_item(raw, category, count, None, skips)
        if item is None:
            continue
        # An item's own conversations are in the history (by id); else its evidence is looked for in all.
        own = {numbers[c.id] for c in item.conversations if c.id in numbers}
        places, lost = locate(item.evidence, history, own or None)
        items.append(item)
        evidence[item.id] = tuple(places)
        missing[item.id] = lost
    if not items:
        return None
    return PremixedCase(
        case_id,
        size,
        tuple(items),
        evidence,
        missing,
        len(history),
        partial(_history, file, where[HISTORY], case_id),
    )


__all__ = ["PremixedCase", "read_cases"]
