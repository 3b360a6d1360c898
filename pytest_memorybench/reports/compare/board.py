"""The board: many runs ranked, with what each cost and how fast it answered, and the Pareto front.

A user keeps runs of models × mechanisms × stores × spans and asks which is worth it.  The board
ranks the runs by their mean on the shared items (the comparison's total row, with its interval)
and sets beside each its tokens, the memory context its answers were given, reply latency,
a store's ingest and search latency, a memory system's write / read calls, its cost and cost per
passed test.  A run is on the Pareto front when no other run scores at least as well for no more
cost (or latency) and is better in one of the two: the runs worth choosing between.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pytest_memorybench.core.timings import timing_summary
from pytest_memorybench.reports.compare.comparison import Comparison, Spending, keyed_items
from pytest_memorybench.reports.compare.runs import FinishedRun, usage_of
from pytest_memorybench.reports.judging import judging_summary
from pytest_memorybench.results.judge_robustness import judging_figures


@dataclass(frozen=True)
class BoardRow:
    """One run on the board."""

    rank: int
    letter: str
    label: str
    mean: float | None
    ci95: list[float] | None
    passed: int
    n: int
    spending: Spending
    p50: float | None  # reply latency, seconds: the run's conversations, else its items' replies
    p95: float | None
    judging: str | None = None  # its band and judge stability over the shared items, under a panel
    to_gold: float | None = None  # the gold store's mean with the same answering model, less this run's
    lafs: float | None = None  # accuracy under a latency budget over 1-200 s, shared items (item by item)

    @property
    def tokens(self) -> int:
        return self.spending.tokens_in + self.spending.tokens_out


@dataclass(frozen=True)
class Board:
    """The ranked runs, and what the Pareto chart can put against their scores."""

    rows: list[BoardRow]  # best first
    priced: bool  # some run has a cost; otherwise the cost axis is tokens

    def cost_of(self, row: BoardRow) -> float:
        return row.spending.cost if self.priced else float(row.tokens)

    @property
    def cost_axis(self) -> str:
        return "cost ($)" if self.priced else "agent tokens (no run has a price)"


def board(comparison: Comparison) -> Board:
    """The runs ranked by their mean over the shared items, ties to the cheaper run."""
    total = comparison.tables["total"][0]
    rows = []
    budgets = comparison.latency_budgets or [None] * len(comparison.runs)
    for index, (run, cell, spend, budget) in enumerate(
        zip(comparison.runs, total.cells, comparison.spending, budgets, strict=True)
    ):
        p50, p95 = (spend.p50, spend.p95) if spend.p50 is not None else _item_latency(run)
        items = keyed_items(run, comparison.keyed_by)
        judging = judging_summary(judging_figures([items[key] for key in comparison.shared]))
        rows.append(
            BoardRow(
                0,
                chr(65 + index),
                run.label,
                cell.mean,
                cell.ci95,
                cell.passed,
                cell.n,
                spend,
                p50,
                p95,
                judging,
                lafs=budget["lafs"] if budget else None,
            )
        )
    ceilings = _gold_ceilings(comparison.runs, rows)
    rows = [
        replace(row, to_gold=round(ceilings[model] - row.mean, 6))
        if (model := answering_model(run)) in ceilings and row.mean is not None
        else row
        for run, row in zip(comparison.runs, rows, strict=True)
    ]
    rows.sort(key=lambda row: (-(row.mean or 0.0), row.spending.cost, row.tokens, row.letter))
    ranked = [replace(row, rank=rank) for rank, row in enumerate(rows, 1)]
    return Board(ranked, any(row.spending.cost > 0 for row in ranked))


def answering_model(run: FinishedRun) -> str | None:
    """The model that answers for a memory store or system run (`bm25:openai:gpt-4o-mini`'s
    `openai:gpt-4o-mini`), or None for any other agent."""
    from pytest_memorybench.agents.spec import parse_agent_spec
    from pytest_memorybench.core.errors import UsageError

    agent = run.info.get("agent")
    try:
        spec = parse_agent_spec(str(agent)) if agent else None
    except UsageError:
        return None
    if spec is None or spec.kind not in ("store", "memory") or spec.model_spec is None:
        return None
    return spec.model_spec.text


def _gold_ceilings(runs: Sequence[FinishedRun], rows: Sequence[BoardRow]) -> dict[str, float]:
    """Each answering model's gold mean over the shared items, where a `gold` run of it is compared."""
    ceilings = {}
    for run, row in zip(runs, rows, strict=True):
        model = answering_model(run)
        if model is not None and is_gold(run) and row.mean is not None:
            ceilings[model] = row.mean
    return ceilings


def is_gold(run: FinishedRun) -> bool:
    """Whether `run` is of the `gold` store (`gold:MODEL`, `gold(k=5):MODEL`): the answering model's
    ceiling, given exactly each question's labelled evidence."""
    agent = str(run.info.get("agent") or "")
    return agent.split(":", 1)[0].split("(", 1)[0] == "gold"


def _item_latency(run: FinishedRun) -> tuple[float | None, float | None]:
    """Reply latency from the items when the run's conversations have none (probed suites)."""
    times = [
        float(usage["seconds"]) / max(int(usage.get("calls") or 1), 1)
        for usage in (usage_of(item) for item in run.items)
        if usage.get("seconds") is not None
    ]
    if not times:
        return None, None
    percentiles = timing_summary(times)["percentiles"]
    return percentiles[50], percentiles[95]


def pareto_front(points: Sequence[tuple[float, float] | None]) -> list[int]:
    """The indices of the points (x, score) no other point dominates (x as low or lower, score as high
    or higher, one of them strictly), ordered by x; a None (no x for that run) is on no front."""
    present = [(index, point) for index, point in enumerate(points) if point is not None]
    front = [
        index
        for index, (x, y) in present
        if not any((ox <= x and oy >= y) and (ox < x or oy > y) for _, (ox, oy) in present)
    ]
    return sorted(front, key=lambda index: points[index] or (0.0, 0.0))
