"""What a loader of published data read, what it made of it, and what it could not use.

A benchmark's published file is never read silently: a loader counts what the file holds
(`held`: 10 conversations, 1,986 questions), and whatever it could not use or had to read a
certain way (a row, a label, a field) is a note, one per kind, with how many and a few examples.
The suite adds how many items the data became, and the run's header prints one line per suite
that read data and one per note:

    memorybench: locomo data: 10 conversations, 1,986 questions → 1,986 items; nothing skipped
    memorybench:   locomo: evidence ids that are no turn id, left out of recall: 2 (conv-42 qa 88 'D', …)

A loader builds its report with a `LoadTally` as it reads, and hands the finished `LoadReport`
over with what it made (a probe scenario on each of its contexts).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

EXAMPLES = 3  # examples a note shows; the count says how many more there are
ARROW = "→"


@dataclass(frozen=True)
class LoadNote:
    """One kind of thing a loader could not use, or read a certain way: how many, and examples."""

    what: str  # "evidence ids that name no turn, left out of recall"
    count: int
    examples: tuple[str, ...] = ()  # the first few distinct ones
    more: bool = False  # other examples were left out
    shared: bool = False  # a fact of the whole path, which every scenario reading it sees alike

    def line(self) -> str:
        shown = ", ".join(self.examples) + (", …" if self.more else "")
        return f"{self.what}: {self.count:,}" + (f" ({shown})" if shown else "")


@dataclass(frozen=True)
class LoadReport:
    """What published data held, the items it became, and the notes on what could not be used."""

    held: tuple[tuple[str, int], ...]  # (a plural noun, how many): ("conversations", 10)
    notes: tuple[LoadNote, ...] = ()
    items: int = 0  # the items made of it (not skipped); the suite counts them

    def lines(self, suite: str) -> list[str]:
        """The header's lines: what `suite`'s data held and became, then one line per note."""
        held = ", ".join(counted(count, noun) for noun, count in self.held) or "nothing"
        tail = "" if self.notes else "; nothing skipped"
        return [
            f"{suite} data: {held} {ARROW} {counted(self.items, 'items')}{tail}",
            *(f"  {suite}: {note.line()}" for note in self.notes),
        ]


def counted(count: int, plural: str) -> str:
    """ "1,986 questions", "1 conversation", "1 trajectory": the count and the noun it takes."""
    if count != 1:
        return f"{count:,} {plural}"
    if plural.endswith("ies"):
        return f"1 {plural[:-3]}y"
    return f"1 {plural.removesuffix('s')}"


@dataclass
class LoadTally:
    """A loader's running count, made into a `LoadReport` once it has read everything."""

    held_counts: dict[str, int] = field(default_factory=dict)
    notes: dict[str, LoadNote] = field(default_factory=dict)

    def held(self, plural: str, count: int = 1) -> None:
        """The data holds `count` more of `plural` ("questions")."""
        self.held_counts[plural] = self.held_counts.get(plural, 0) + count

    def note(self, what: str, example: str | None = None, count: int = 1, *, shared: bool = False) -> None:
        """`count` more of a kind of thing the loader could not use (or read a certain way); the first
        few distinct examples are kept.  `shared`: a fact of the whole path (files no scenario
        reads), counted once when the reports of scenarios reading one path are merged."""
        before = self.notes.get(what, LoadNote(what, 0, shared=shared))
        more = LoadNote(what, count, () if example is None else (example,), shared=shared)
        self.notes[what] = _joined(before, more)

    def report(self) -> LoadReport:
        return LoadReport(tuple(self.held_counts.items()), tuple(self.notes.values()))


def merged(reports: Iterable[LoadReport | None]) -> LoadReport | None:
    """Reports of one suite's scenarios as one: counts of the same noun or note added up, in order
    of first appearance (MemBench's two scenarios each count their own agent's trajectories)."""
    given = [report for report in reports if report is not None]
    if not given:
        return None
    if len(given) == 1:
        return given[0]
    tally = LoadTally()
    for report in given:
        for noun, count in report.held:
            tally.held(noun, count)
        for note in report.notes:
            before = tally.notes.get(note.what, LoadNote(note.what, 0, shared=note.shared))
            tally.notes[note.what] = _joined(before, note)
    return replace(tally.report(), items=sum(report.items for report in given))


def _joined(before: LoadNote, more: LoadNote) -> LoadNote:
    """Two notes of one kind as one: counts added (a shared fact's taken once), the first few
    distinct examples kept."""
    examples = tuple(dict.fromkeys((*before.examples, *more.examples)))
    shared = before.shared and more.shared
    return LoadNote(
        before.what,
        max(before.count, more.count) if shared else before.count + more.count,
        examples[:EXAMPLES],
        before.more or more.more or len(examples) > EXAMPLES,
        shared,
    )


__all__ = ["LoadNote", "LoadReport", "LoadTally", "counted", "merged"]
