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
class LoadReport:
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

    @property
    def notable(self) -> bool:
        """Whether the data was not used as published somewhere: something skipped or replaced."""
        return bool(self.skipped or self.topped_up)

    def line(self) -> str:
        """The report in one line, e.g. for a run's header."""
        made = f"{self.items} question(s)" + (f" in {self.cases} pre-mixed case(s)" if self.cases else "")
        parts = [f"convomem {self.kind}: {self.files} file(s) read, {made}"]
        if self.filler:
            parts.append(f"{self.filler} filler conversation(s)")
        if self.personas:
            parts.append(f"{self.personas} persona(s)")
        if self.other_sizes:
            sizes = ", ".join(f"{n} at {size}" for size, n in sorted(self.other_sizes.items()))
            parts.append(f"pre-mixed cases of other sizes left out: {sizes}")
        if self.unread or self.beyond_limit:
            parts.append(
                f"limit reached: {self.unread} file(s) not read, {self.beyond_limit} question(s) not asked"
            )
        if self.other_files:
            parts.append(f"{self.other_files} JSON file(s) outside ConvoMem's folders ignored")
        if self.topped_up:
            parts.append(
                f"{self.topped_up} question(s) short of their filler, topped up with generated filler"
            )
        line = "; ".join(parts)
        if self.skipped:
            line += "; not used: " + ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items()))
        return line


__all__ = ["EVIDENCE", "FILLER", "LAYOUT", "PERSONAS", "PREMIXED", "Layout", "LoadReport", "find_layout"]
