"""Where each run's answers were lost, side by side: the classes of `results/losses.py` over the
items every run scored, and for each pair of runs the difference of each class's share with an
exact McNemar test on the items (is B found-and-right where A was not more often than the reverse?).
Where every run's memory listed what it held, "not retrieved" is split too: never stored, stored
but not found (a store that drops what it is given against one that keeps it and cannot find it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.reports.compare.significance import mcnemar_p
from pytest_memorybench.results.losses import CLASSES, WORDS, WRITE_WORDS, loss_class, loss_split, write_class
from pytest_memorybench.results.losses import listed as written_listed
from pytest_memorybench.results.schema import ItemRecord, LossesRecord

SHOWN = tuple(name for name in CLASSES if name != "no_evidence")
WRITTEN = ("never_stored", "stored_not_found")  # rows under "not retrieved", where every run listed
NAMES = {**WORDS, **{name: f"  {WRITE_WORDS[name]}" for name in WRITTEN}}


@dataclass(frozen=True)
class LossPair:
    """One pair's difference (b − a) in each class's share of the items with evidence, and its p."""

    a: str
    b: str
    differences: dict[str, float]
    p: dict[str, float | None]


@dataclass(frozen=True)
class LossComparison:
    """Each run's split over the shared items, and each pair's paired tests."""

    labels: list[str]
    splits: list[LossesRecord]
    pairs: list[LossPair]
    rows: tuple[str, ...] = SHOWN  # the classes shown, with never stored / stored but not found

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": dict(zip(self.labels, self.splits, strict=True)),
            "pairs": [pair.__dict__ for pair in self.pairs],
        }

    def table(self) -> list[tuple[str, list[float]]]:
        """Each class in words, with each run's share of the shared items with evidence."""
        return [(NAMES[name], [_share(split, name) for split in self.splits]) for name in self.rows]

    def pair_texts(self, letters: Mapping[str, str]) -> list[str]:
        """Each pair's differences in a line: "B − A: found and right +15.1% (p < 0.001); …"."""
        texts = []
        for pair in self.pairs:
            parts = [
                f"{NAMES[name].strip()} {pair.differences[name]:+.1%} ({_p(pair.p[name])})"
                for name in self.rows
                if pair.differences[name]
            ]
            texts.append(f"{letters[pair.b]} − {letters[pair.a]}: " + ("; ".join(parts) or "the same split"))
        return texts

    def lines(self, letters: Mapping[str, str]) -> list[str]:
        """The split as terminal lines: a row per class with each run's share, then each pair."""
        width = 36
        head = f"{'where answers were lost':<{width}}" + "".join(
            f"{letters[label]:>9}" for label in self.labels
        )
        rows = [
            f"{words:<{width}}" + "".join(f"{share:>9.1%}" for share in shares)
            for words, shares in self.table()
        ]
        return [head, *rows, *self.pair_texts(letters)]


def compare_losses(
    labels: Sequence[str],
    keyed: Sequence[Mapping[str, ItemRecord]],
    shared: Sequence[str],
    couples: Sequence[tuple[int, int]],
) -> LossComparison | None:
    """The split of every run over the shared items, and each couple's tests; None when a run did not
    measure where its answers were lost (its agent never said what it retrieved)."""
    splits = [loss_split([items[key] for key in shared]) for items in keyed]
    if any(split is None for split in splits):
        return None
    classes = [{key: loss_class(items[key]) for key in shared} for items in keyed]
    labelled = [key for key in shared if all(found[key] != "no_evidence" for found in classes)]
    listed = all(written_listed([items[key] for key in shared]) for items in keyed)
    rows = _rows(listed)
    written = [{key: write_class(items[key]) for key in shared} for items in keyed] if listed else []
    pairs = []
    for a, b in couples:
        differences, p = {}, {}
        for name in rows:
            by = written if name in WRITTEN else classes
            first = [by[a][key] == name for key in labelled]
            second = [by[b][key] == name for key in labelled]
            differences[name] = round((sum(second) - sum(first)) / len(labelled), 6) if labelled else 0.0
            p[name] = mcnemar_p(first, second)
        pairs.append(LossPair(labels[a], labels[b], differences, p))
    return LossComparison(list(labels), [split for split in splits if split is not None], pairs, rows)


def _rows(listed: bool) -> tuple[str, ...]:
    """The classes, with never stored and stored but not found under "not retrieved" when listed."""
    if not listed:
        return SHOWN
    at = SHOWN.index("not_retrieved") + 1
    return (*SHOWN[:at], *WRITTEN, *SHOWN[at:])


def _share(split: LossesRecord, name: str) -> float:
    written = split.get("not_retrieved")
    return written["shares"][name] if name in WRITTEN and written else split["shares"][name]


def _p(value: float | None) -> str:
    if value is None:
        return "p -"
    return "p < 0.001" if value < 0.001 else f"p {value:.3f}"
