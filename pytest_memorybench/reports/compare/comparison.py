"""`--mb-compare RUN...`: several runs' results.json side by side, the seeds' tables and the answer to
"is B better than A?", with no agent called.

A comparison pairs the items the runs share: the same test (node id, or test id when each run is
one suite of another name, as a re-scored GoodAI leaderboard is) with the same definition, scored
in every run.  What it leaves out, and why, is counted.  On the shared items it tabulates each
suite's rows (scenarios, and their categories: BEAM's abilities, the episodic question kinds,
MemBench's memory types) per run, tests each pair of runs (`significance.py`), ranks the runs, and
sets beside them what each run spent.  Everything here is recomputed from the files, which
`runs.py` reads and labels.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from pytest_memorybench.conversation.evidence import mean_recall
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.judges.identity import judged_differently
from pytest_memorybench.reports.compare.judge_orders import JudgeOrder, judge_orders
from pytest_memorybench.reports.compare.losses import LossComparison, compare_losses
from pytest_memorybench.reports.compare.runs import FinishedRun, score_of, usage_of
from pytest_memorybench.reports.compare.significance import (
    PairedTest,
    average_ranks,
    cliques,
    holm,
    wilcoxon_p,
)
from pytest_memorybench.reports.table import short_name
from pytest_memorybench.results.file import part
from pytest_memorybench.results.latency_budget import latency_budget
from pytest_memorybench.results.schema import (
    ItemRecord,
    LatencyBudgetRecord,
    RecallRecord,
    StaleRecord,
    StoreRecord,
)
from pytest_memorybench.results.stale import stale_rate
from pytest_memorybench.results.statistics import bootstrap_ci, strict_mean

ERRORED = "errored in a run"  # left out of the means, counted (as 0 where it errored) in the strict ones
MUST_AGREE = (
    "profile",
    "answer_deadline",
)  # scored by other rules: not comparable unless told so (and the judge: `judged_differently`)


@dataclass(frozen=True)
class Cell:
    """One run's figures for one row of a comparison table: the mean over the shared items, and the
    strict mean over those and the items that errored in some run (every item the runs have with
    one definition), this run's errors counting 0."""

    mean: float | None
    ci95: list[float] | None
    passed: int
    n: int
    strict: float | None = None
    errors: int = 0  # this run's items of the row that errored


@dataclass
class Row:
    """A suite, scenario or category of a comparison table, with a cell per run."""

    level: str  # suite, scenario, category or total
    label: str
    cells: list[Cell]

    @property
    def best(self) -> set[int]:
        """The runs with the highest mean on this row (all of them on a tie)."""
        means = [cell.mean for cell in self.cells]
        top = max((mean for mean in means if mean is not None), default=None)
        return {
            index
            for index, mean in enumerate(means)
            if mean is not None and top is not None and abs(mean - top) < 1e-9
        }


@dataclass
class Spending:
    """What a run spent on the whole of it (not only the shared items), for the efficiency columns."""

    tokens_in: int
    tokens_out: int
    calls: int
    p50: float | None
    p95: float | None
    cost: float
    passed: int
    memory_calls: tuple[int, int] | None = None  # a memory system's (write, read) model calls
    store: StoreRecord | None = None  # a memory store's figures (totals.store)
    recall: RecallRecord | None = None  # evidence recall, and precision beside it (totals.evidence_recall)
    stale: StaleRecord | None = None  # superseded values asserted and reached (totals.stale_facts)

    @property
    def memory_text(self) -> str:
        return f"{self.memory_calls[0]:,} / {self.memory_calls[1]:,}" if self.memory_calls else "-"

    @property
    def ingest_text(self) -> str:
        """A store's ingest time per message (add and wait)."""
        ingest = self.store.get("ingest_ms_per_message") if self.store else None
        return f"{ingest:.1f} ms" if ingest is not None else "-"

    @property
    def search_text(self) -> str:
        """A store's search latency, p50 / p95."""
        p50, p95 = (
            (self.store.get("search_p50_ms"), self.store.get("search_p95_ms")) if self.store else (None, None)
        )
        if p50 is None or p95 is None:
            return "-"
        return f"{p50:.1f} / {p95:.1f} ms"

    @property
    def context_text(self) -> str:
        """The memory tokens a store's answers were given, on average."""
        tokens = self.store.get("context_tokens_per_answer") if self.store else None
        return f"{tokens:,.0f}" if tokens is not None else "-"

    @property
    def retrieval_text(self) -> str:
        """Evidence recall, precision at k and the evidence's share of the retrieved tokens: a memory that
        returns everything reads high, low, low."""
        if not self.recall:
            return "-"
        precision, share = self.recall.get("precision_mean"), self.recall.get("share_mean")
        return (
            f"{self.recall['mean']:.2f} / {'-' if precision is None else f'{precision:.2f}'}"
            f" / {'-' if share is None else f'{share:.0%}'}"
        )

    @property
    def stale_text(self) -> str:
        """The stale-fact rates: answers asserting a superseded value / one reaching what they were given."""
        if not self.stale:
            return "-"
        reached = self.stale["reached_rate"]
        return f"{self.stale['asserted_rate']:.0%} / {'-' if reached is None else f'{reached:.0%}'}"

    @property
    def cost_per_passed(self) -> float | None:
        return self.cost / self.passed if self.passed else None


@dataclass
class Comparison:
    """Everything a comparison shows, recomputable from the runs' results.json files."""

    runs: list[FinishedRun]
    keyed_by: str  # "node id" or "test id"
    shared: list[str]
    left_out: dict[str, list[str]]  # reason -> keys
    tables: dict[str, list[Row]]  # suite -> rows, then "total"
    pairs: list[PairedTest]
    ranks: dict[str, float]
    groups: list[list[str]]  # runs a critical-difference diagram joins
    spending: list[Spending]
    notes: list[str] = field(default_factory=list)
    judge_orders: list[JudgeOrder] = field(default_factory=list)  # each pair under each rubric / juror
    losses: LossComparison | None = None  # where each run's answers were lost, and each pair's tests
    # each run's accuracy under a latency budget over the shared items (results/latency_budget.py)
    latency_budgets: list[LatencyBudgetRecord | None] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "memorybench.comparison/1",
            "runs": [
                {"label": run.label, "source": str(run.source), "suite": run.suite, "run": run.info}
                for run in self.runs
            ],
            "keyed_by": self.keyed_by,
            "shared": len(self.shared),
            "left_out": {reason: keys for reason, keys in self.left_out.items()},
            "tables": {
                suite: [
                    {
                        "level": row.level,
                        "label": row.label,
                        "best": sorted(row.best),
                        "cells": [cell.__dict__ for cell in row.cells],
                    }
                    for row in rows
                ]
                for suite, rows in self.tables.items()
            },
            "pairs": [
                {**pair.__dict__, "significant": pair.significant, "verdict": pair.verdict()}
                for pair in self.pairs
            ],
            "average_ranks": self.ranks,
            "not_told_apart": self.groups,
            "spending": [
                {**spend.__dict__, "cost_per_passed": spend.cost_per_passed} for spend in self.spending
            ],
            "notes": self.notes,
            "judge_orders": [order.to_json() for order in self.judge_orders],
            "losses": self.losses.to_json() if self.losses is not None else None,
            "latency_budgets": self.latency_budgets,
        }


# -- comparing ---------------------------------------------------------------------------------


def compare(
    runs: list[FinishedRun], *, compare_to: str | None = None, anyway: bool = False, seed: int = 0
) -> Comparison:
    """The comparison of `runs` on the items they share; UsageError when there is nothing to compare."""
    notes = _differences(runs, anyway)
    keyed_by = "test id" if _one_suite_each_differently_named(runs) else "node id"
    keyed = [keyed_items(run, keyed_by) for run in runs]
    shared, left_out = _pair(keyed)
    if not shared:
        raise usage_error(
            "--mb-compare: the runs share no scored item (same test, same definition); "
            f"left out: {_left_out_text(left_out)}"
        )
    tables = _tables(keyed, shared, left_out.get(ERRORED, []), keyed_by, seed)
    couples = _couples(runs, compare_to)
    pairs = _pairs(runs, keyed, shared, couples, seed)
    scores = {run.label: [score_of(keyed[index][key]) for key in shared] for index, run in enumerate(runs)}
    ranks = average_ranks(scores) if len(runs) >= 3 else {}
    order = sorted(ranks, key=lambda label: ranks[label])
    groups = cliques(order, pairs) if ranks else []
    return Comparison(
        runs,
        keyed_by,
        shared,
        left_out,
        tables,
        pairs,
        ranks,
        groups,
        [_spending(run) for run in runs],
        notes,
        judge_orders([run.label for run in runs], keyed, shared, couples),
        compare_losses([run.label for run in runs], keyed, shared, couples),
        latency_budgets=[
            latency_budget([items[key] for key in shared], run.info.get("answer_deadline"))
            for run, items in zip(runs, keyed, strict=True)
        ],
    )


def _differences(runs: list[FinishedRun], anyway: bool) -> list[str]:
    """Runs scored by other rules (profile, judge) are not comparable: refuse, or say so when told to go
    on."""
    notes = []
    for key in MUST_AGREE:
        values = {json.dumps(run.info.get(key), sort_keys=True) for run in runs}
        if len(values) > 1:
            detail = ", ".join(f"{run.label}: {run.info.get(key)}" for run in runs)
            if not anyway:
                raise usage_error(
                    f"--mb-compare: the runs were scored with different {key}s ({detail}); their scores are"
                    " not comparable: compare runs of one {key}, or pass --mb-compare-anyway".replace(
                        "{key}", key
                    )
                )
            notes.append(f"compared anyway (--mb-compare-anyway): different {key}s ({detail})")
    for run in runs[1:]:
        judged = judged_differently(runs[0].info, run.info)
        if judged is not None and not anyway:
            raise usage_error(
                f"--mb-compare: {runs[0].label} and {run.label} were judged differently ({judged}); their"
                " scores are not comparable: judge both alike, or pass --mb-compare-anyway"
            )
        if judged is not None:
            notes.append(
                f"compared anyway (--mb-compare-anyway): {runs[0].label} and {run.label} judged differently"
                f" ({judged})"
            )
    return notes


def _one_suite_each_differently_named(runs: list[FinishedRun]) -> bool:
    suites = [{item.get("suite") for item in run.items} for run in runs]
    return all(len(names) == 1 for names in suites) and len({next(iter(names)) for names in suites}) > 1


def keyed_items(run: FinishedRun, keyed_by: str) -> dict[str, ItemRecord]:
    """A run's items by the key the comparison pairs them on."""
    return {(item["test_id"] if keyed_by == "test id" else item["nodeid"]): item for item in run.items}


def _pair(keyed: list[dict[str, ItemRecord]]) -> tuple[list[str], dict[str, list[str]]]:
    """The keys every run scored with one definition; the others by why they are left out."""
    left_out: dict[str, list[str]] = {
        "not in every run": [],
        "different definitions": [],
        ERRORED: [],
    }
    every = set.intersection(*(set(items) for items in keyed))
    left_out["not in every run"] = sorted(set().union(*(set(items) for items in keyed)) - every)
    shared = []
    for key in sorted(every):
        items = [items[key] for items in keyed]
        if len({_definition(item) for item in items}) > 1:
            left_out["different definitions"].append(key)
        elif any(item.get("score") is None for item in items):
            left_out[ERRORED].append(key)
        else:
            shared.append(key)
    return shared, {reason: keys for reason, keys in left_out.items() if keys}


def _definition(item: ItemRecord) -> str:
    """What identifies an item's test: its definition's hash, or (older files) its questions and answers."""
    return str(
        item.get("definition")
        or json.dumps([item.get("scenario"), item.get("questions"), item.get("expected")])
    )


def _left_out_text(left_out: dict[str, list[str]]) -> str:
    return ", ".join(f"{len(keys)} {reason}" for reason, keys in left_out.items()) or "nothing"


def _tables(
    keyed: list[dict[str, ItemRecord]], shared: list[str], errored: list[str], keyed_by: str, seed: int
) -> dict[str, list[Row]]:
    """Per suite: the suite row, each scenario, each of its categories; then a total row.

    Runs paired by test id have a suite each (a published agent, a user's run): their rows are
    grouped by benchmark family (`ltm` of `ltm.colours`) instead.  The items that errored in a run
    count in the strict means only (a row of nothing else has no mean).
    """
    first = keyed[0]
    scored = set(shared)
    by_suite: dict[str, list[str]] = defaultdict(list)
    for key in sorted([*shared, *errored]):
        item = first[key]
        by_suite[item["suite"] if keyed_by == "node id" else item["scenario"].split(".")[0]].append(key)
    tables: dict[str, list[Row]] = {}
    for suite, keys in sorted(by_suite.items()):
        rows = [_row("suite", suite, keys, scored, keyed, seed)]
        by_scenario: dict[str, list[str]] = defaultdict(list)
        for key in keys:
            by_scenario[first[key]["scenario"]].append(key)
        for scenario, members in sorted(by_scenario.items()):
            rows.append(_row("scenario", short_name(scenario, suite), members, scored, keyed, seed))
            by_category: dict[str, list[str]] = defaultdict(list)
            for key in members:
                if first[key].get("category") is not None:
                    by_category[first[key]["category"]].append(key)
            rows.extend(
                _row("category", category, found, scored, keyed, seed)
                for category, found in sorted(by_category.items())
            )
        tables[suite] = rows
    tables["total"] = [_row("total", "total", sorted([*shared, *errored]), scored, keyed, seed)]
    return tables


def _row(
    level: str, label: str, keys: list[str], scored: set[str], keyed: list[dict[str, ItemRecord]], seed: int
) -> Row:
    """A row of `keys`: its means over those every run scored, its strict means over all of them."""
    cells = []
    for items in keyed:
        chosen = [items[key] for key in keys if key in scored]
        strata: dict[str, list[float]] = defaultdict(list)
        for item in chosen:
            strata[item["scenario"]].append(score_of(item))
        scores = [score for group in strata.values() for score in group]
        cells.append(
            Cell(
                round(sum(scores) / len(scores), 6) if scores else None,
                bootstrap_ci(list(strata.values()), seed=seed, label=f"compare:{level}:{label}"),
                sum(bool(item.get("passed")) for item in chosen),
                len(chosen),
                strict_mean([items[key] for key in keys]),
                sum(items[key]["score"] is None for key in keys),
            )
        )
    return Row(level, label, cells)


def _couples(runs: list[FinishedRun], compare_to: str | None) -> list[tuple[int, int]]:
    """The pairs a comparison tests: each pair of runs, or each run against `compare_to`."""
    labels = [run.label for run in runs]
    if compare_to is not None and compare_to not in labels:
        raise usage_error(f"--mb-compare-to {compare_to!r} is none of the runs ({', '.join(labels)})")
    if compare_to is not None:
        base = labels.index(compare_to)
        return [(base, other) for other in range(len(runs)) if other != base]
    return [(a, b) for a in range(len(runs)) for b in range(a + 1, len(runs))]


def _pairs(
    runs: list[FinishedRun],
    keyed: list[dict[str, ItemRecord]],
    shared: list[str],
    couples: list[tuple[int, int]],
    seed: int,
) -> list[PairedTest]:
    """Each couple of runs, Holm-corrected together."""
    labels = [run.label for run in runs]
    tests = []
    for a, b in couples:
        first = [score_of(keyed[a][key]) for key in shared]
        second = [score_of(keyed[b][key]) for key in shared]
        strata: dict[str, list[float]] = defaultdict(list)
        for key, x, y in zip(shared, first, second, strict=True):
            strata[keyed[a][key]["scenario"]].append(y - x)
        differences = [value for group in strata.values() for value in group]
        tests.append(
            PairedTest(
                labels[a],
                labels[b],
                len(shared),
                round(sum(differences) / len(differences), 6),
                bootstrap_ci(list(strata.values()), seed=seed, label=f"compare:{labels[a]}:{labels[b]}"),
                wilcoxon_p(first, second),
            )
        )
    adjusted = holm([test.p for test in tests])
    return [
        PairedTest(t.a, t.b, t.n, t.difference, t.ci95, t.p, p_holm)
        for t, p_holm in zip(tests, adjusted, strict=True)
    ]


def _spending(run: FinishedRun) -> Spending:
    items = run.items
    if run.suite is None:
        totals = part(run.results, "totals")
        latency = totals.get("latency") or {}
        memory = totals.get("memory") or {}
        phases = (
            tuple(int((memory.get(phase) or {}).get("calls", 0)) for phase in ("write", "read"))
            if memory
            else None
        )
        return Spending(
            int(totals.get("agent_tokens_in", 0)),
            int(totals.get("agent_tokens_out", 0)),
            int(totals.get("agent_calls", 0)),
            latency.get("p50"),
            latency.get("p95"),
            float(totals.get("cost_usd", 0.0)),
            int(totals.get("passed", 0)),
            phases,  # type: ignore[arg-type]
            totals.get("store"),
            totals.get("evidence_recall"),
            totals.get("stale_facts"),
        )
    usage = [usage_of(item) for item in items]  # one suite of a file: its own items' spending
    return Spending(
        sum(int(u.get("input_tokens", 0)) for u in usage),
        sum(int(u.get("output_tokens", 0)) for u in usage),
        sum(int(u.get("calls", 0)) for u in usage),
        None,
        None,
        sum(float(u.get("cost_usd", 0.0)) for u in usage),
        sum(bool(item.get("passed")) for item in items if item.get("score") is not None),
        recall=cast(RecallRecord | None, mean_recall(items)),
        stale=stale_rate(items),
    )


def keys_text(keys: Iterable[str], limit: int = 3) -> str:
    """A few of `keys`, for a line: `a, b, c and 4 more`."""
    keys = list(keys)
    shown = ", ".join(keys[:limit])
    return f"{shown} and {len(keys) - limit} more" if len(keys) > limit else shown
