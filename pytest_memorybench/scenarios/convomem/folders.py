"""Where ConvoMem's files are in what a user gives, and the record of what a load made of them.

ConvoMem's data is published on Hugging Face (`Salesforce/ConvoMem`), not in its repository:

    core_benchmark/evidence_questions/<kind>/<n>_evidence/<personId>_<Role>.json   evidence items
    core_benchmark/pre_mixed_testcases/<kind>/<n>_evidence/batched_NNN.json        test cases, as run
    core_benchmark/filler_conversations/<personId>_<Role>.json                     filler, by person
    core_benchmark/personas/personas_default.json                                  the people

(`<kind>` is `user_evidence`, `changing_evidence`, …).  The user gives the download's root,
`core_benchmark`, any folder in it, or one file.  Each JSON file is placed by the innermost folder
of a known name on its path: a kind folder (evidence questions or pre-mixed test cases, told apart
by the folder above it, else by the file's first character: an object or a list),
`filler_conversations` or `personas`.  Any other JSON file (the download's `dataset_info.json`)
is counted as not ConvoMem's and left alone.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pytest_memorybench.core.load_report import LoadReport, LoadTally
from pytest_memorybench.scenarios.convomem.data import KINDS, Skips, person_of

EVIDENCE = "evidence_questions"
PREMIXED = "pre_mixed_testcases"
FILLER = "filler_conversations"
PERSONAS = "personas"
LAYOUT = (
    "expected ConvoMem's Hugging Face download (Salesforce/ConvoMem): core_benchmark/evidence_questions/"
    "<kind>/<n>_evidence/*.json, pre_mixed_testcases/<kind>/<n>_evidence/*.json, filler_conversations/,"
    " personas/"
)
_COUNT = re.compile(r"^(\d+)_evidence$")


@dataclass
class Layout:
    """The JSON files under a path, by what they hold."""

    evidence: dict[str, list[tuple[int, Path]]] = field(default_factory=dict)  # kind → (count, file)
    premixed: dict[str, list[tuple[int, Path]]] = field(default_factory=dict)
    filler: dict[str, list[Path]] = field(default_factory=dict)  # person → files
    personas: list[Path] = field(default_factory=list)
    other: list[Path] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.evidence or self.premixed)


def find_layout(path: str | Path) -> Layout:
    """Every JSON file under `path` (or `path` itself), placed by the folders it sits in."""
    root = Path(path).absolute()
    if not root.exists():
        raise FileNotFoundError(2, "no such file or folder", str(root))
    files = sorted(root.rglob("*.json")) if root.is_dir() else [root]
    layout = Layout()
    for file in files:
        _place(layout, file)
    return layout


def _place(layout: Layout, file: Path) -> None:
    folders = file.parts[:-1]
    for depth in range(len(folders) - 1, -1, -1):
        name = folders[depth]
        if name in KINDS:
            count = _COUNT.match(folders[depth + 1]) if depth + 1 < len(folders) else None
            above = folders[depth - 1] if depth else ""
            premixed = above == PREMIXED or (above != EVIDENCE and _first_char(file) == "[")
            target = layout.premixed if premixed else layout.evidence
            target.setdefault(name, []).append((int(count[1]) if count else 1, file))
            return
        if name == FILLER:
            layout.filler.setdefault(person_of(file), []).append(file)
            return
        if name == PERSONAS and file.name.startswith(PERSONAS):
            layout.personas.append(file)
            return
    layout.other.append(file)


def _first_char(file: Path) -> str:
    with open(file, encoding="utf-8-sig") as handle:
        while chunk := handle.read(4096):
            if stripped := chunk.lstrip():
                return stripped[0]
    return ""


@dataclass
class LoadCounts:
    """What one load of ConvoMem's data read, what it made, and what it could not use, and why."""

    kind: str  # the evidence folder, e.g. user_evidence
    files: int = 0  # JSON files read
    items: int = 0  # questions made
    cases: int = 0  # pre-mixed test cases used
    filler: int = 0  # filler conversations read
    personas: int = 0
    unread: int = 0  # files of the kind left unread once `limit` questions were found
    beyond_limit: int = 0  # questions of the last file or pre-mixed case read that the limit left out
    other_sizes: Counter[int] = field(default_factory=Counter)  # pre-mixed cases of other sizes, by size
    other_files: int = 0  # JSON files in no folder of ConvoMem's
    topped_up: int = 0  # questions whose person has too little filler: our generator's makes up the rest
    skipped: Skips = field(default_factory=Skips)  # what was not used, by reason

    def report(self) -> LoadReport:
        """The counts as the run's header says them (`core.load_report`): the questions and
        pre-mixed cases of this kind, then a line per kind of thing left out, replaced or not used.
        Filler and personas are read again by every kind whose people need them, so they are not
        added up across kinds; the files outside ConvoMem's folders are counted once."""
        tally = LoadTally()
        tally.held("questions", self.items)
        if self.cases:
            tally.held("pre-mixed cases", self.cases)
        for size, count in sorted(self.other_sizes.items()):
            tally.note(
                "pre-mixed cases of another size than the suite's conversations, left out",
                f"{count} at {size}",
                count,
            )
        if self.unread:
            tally.note("files left unread once limit questions were found", self.kind, self.unread)
        if self.beyond_limit:
            tally.note("questions past limit, not asked", self.kind, self.beyond_limit)
        if self.topped_up:
            tally.note(
                "questions short of filler of their person, topped up with our generator's filler",
                self.kind,
                self.topped_up,
            )
        for why, count in sorted(self.skipped.items()):
            tally.note(f"not used: {why}", self.kind, count)
        if self.other_files:
            tally.note(
                "JSON files outside ConvoMem's folders, left alone", count=self.other_files, shared=True
            )
        return tally.report()


__all__ = ["EVIDENCE", "FILLER", "LAYOUT", "PERSONAS", "PREMIXED", "Layout", "LoadCounts", "find_layout"]
