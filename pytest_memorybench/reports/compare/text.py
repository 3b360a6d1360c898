"""A comparison on the terminal: 80 columns, as a CI log shows it.

Up to three runs get a cell of mean and interval each; more get their means (the intervals are in
the comparison report), so the table never wraps.  Then each pair's difference and verdict, the
average ranks with the runs a test cannot tell apart, what each run spent, and what was left out.
"""

from __future__ import annotations

from pytest_memorybench.reports.compare.board import board
from pytest_memorybench.reports.compare.comparison import ERRORED, Comparison, Row, keys_text
from pytest_memorybench.reports.compare.gold import comparison_ceiling_lines
from pytest_memorybench.reports.compare.questions import Outcome, QuestionRow, shown
from pytest_memorybench.reports.latency_budget import BUDGET_COLUMNS, budget_cells

SHOWN_PER_SCENARIO = 3  # --mb-show: enough to see a pattern in a CI log, the rest in compare.html

WIDTH = 79
LABEL = 22


def comparison_lines(comparison: Comparison) -> list[str]:
    """The comparison as terminal lines: the runs, the tables, the paired tests, the spending."""
    runs = comparison.runs
    lines = [f"{chr(65 + index)} = {run.label}  ({run.source})" for index, run in enumerate(runs)]
    left = comparison.left_out
    lines.append(
        f"paired by {comparison.keyed_by} on {len(comparison.shared)} item(s) every run scored"
        + (
            "; left out:"
            f" {'; '.join(f'{len(keys)} {reason} ({keys_text(keys)})' for reason, keys in left.items())}"
            if left
            else ""
        )
    )
    lines.extend(f"note: {note}" for note in comparison.notes)
    wide = len(runs) <= 3
    cell_width = 19 if wide else 8
    lines += [
        "",
        f"{'suite / scenario':<{LABEL}}" + "".join(f"{chr(65 + i):>{cell_width}}" for i in range(len(runs))),
    ]
    for rows in comparison.tables.values():
        for row in rows:
            lines.extend(_row_lines(row, wide, cell_width))
    lines.append(
        "* best of the row; cells: mean [95% CI] over the shared items"
        if wide
        else "* best of the row (means; intervals in the report)"
    )
    if comparison.left_out.get(ERRORED):
        lines.append(
            f"strict: the mean over the shared items and the {len(comparison.left_out[ERRORED])} that"
            " errored in a run, an error counting 0"
        )
    lines += comparison_ceiling_lines(comparison)
    lines.append("")
    for pair in comparison.pairs:
        a, b = _letter(comparison, pair.a), _letter(comparison, pair.b)
        ci = f"[{pair.ci95[0]:+.2f}, {pair.ci95[1]:+.2f}]" if pair.ci95 else "-"
        difference = f"{pair.difference:+.3f}" if pair.difference is not None else "-"
        lines.append(f"{b} − {a}  {difference} {ci:>16}  n={pair.n}  {pair.verdict(a, b)}")
    for judged in comparison.judge_orders:
        lines.append(f"by judge: {judged.text(_letter(comparison, judged.a), _letter(comparison, judged.b))}")
    if comparison.losses is not None:
        letters = {run.label: chr(65 + index) for index, run in enumerate(comparison.runs)}
        lines += ["", *comparison.losses.lines(letters)]
    if comparison.ranks:
        order = sorted(comparison.ranks, key=lambda label: comparison.ranks[label])
        lines.append(
            "average rank: "
            + ", ".join(f"{_letter(comparison, label)} {comparison.ranks[label]:.2f}" for label in order)
        )
        for group in comparison.groups:
            lines.append(
                "not told apart (Wilcoxon, Holm): " + " ".join(_letter(comparison, label) for label in group)
            )
    lines.append("")
    memory = any(spend.memory_calls for spend in comparison.spending)  # their write / read calls
    store = any(spend.store for spend in comparison.spending)  # stores: ingest, search, context tokens
    recall = any(spend.recall for spend in comparison.spending)  # evidence recall / precision / share
    stale = any(spend.stale for spend in comparison.spending)  # superseded values asserted / reached
    lines.append(
        f"{'run':<4}{'tokens in':>10}{'out':>8}{'calls':>7}"
        f"{'p50 s':>8}{'p95 s':>8}{'cost':>10}{'$/passed':>10}"
        + (f"{'write / read':>16}" if memory else "")
        + (f"{'ingest/msg':>12}{'search p50 / p95':>20}{'context':>9}" if store else "")
        + (f"{'recall / precision / share':>28}" if recall else "")
        + (f"{'stale asserted / reached':>26}" if stale else "")
    )
    for index, spend in enumerate(comparison.spending):
        lines.append(
            f"{chr(65 + index):<4}{spend.tokens_in:>10,}{spend.tokens_out:>8,}{spend.calls:>7,}"
            f"{_seconds(spend.p50):>8}"
            f"{_seconds(spend.p95):>8}{_money(spend.cost):>10}{_money(spend.cost_per_passed):>10}"
            + (f"{spend.memory_text:>16}" if memory else "")
            + (f"{spend.ingest_text:>12}{spend.search_text:>20}{spend.context_text:>9}" if store else "")
            + (f"{spend.retrieval_text:>28}" if recall else "")
            + (f"{spend.stale_text:>26}" if stale else "")
        )
    lines += _budget_lines(comparison)
    for entry in sorted(board(comparison).rows, key=lambda entry: entry.letter):
        if entry.to_gold is not None and entry.to_gold > 0:
            lines.append(f"{entry.letter}: {entry.to_gold:.3f} below the gold store with its answering model")
        if entry.judging:
            lines.append(f"{entry.letter} judged: {entry.judging}")
    return lines


def _budget_lines(comparison: Comparison) -> list[str]:
    """Each run's accuracy within a latency budget on the shared items, and LAFS; none when no run
    knows its answer times."""
    if not any(comparison.latency_budgets):
        return []
    lines = [
        "",
        "within a latency budget (shared items); LAFS 1-200 s by item and as a point",
        f"{'run':<4}"
        + "".join(f"{column:>9}" for column in BUDGET_COLUMNS[:-1])
        + f"{BUDGET_COLUMNS[-1]:>12}",
    ]
    for index, record in enumerate(comparison.latency_budgets):
        cells = budget_cells(record)
        lines.append(
            f"{chr(65 + index):<4}" + "".join(f"{cell:>9}" for cell in cells[:-1]) + f"{cells[-1]:>12}"
        )
    return lines


def _row_lines(row: Row, wide: bool, width: int) -> list[str]:
    """One row; a label too long for its column gets a line of its own, so names are never cut."""
    indent = {"suite": "", "scenario": "  ", "category": "    · ", "total": ""}[row.level]
    label = indent + row.label
    cells = []
    for index, cell in enumerate(row.cells):
        mark = "*" if index in row.best and len(row.cells) > 1 else " "
        mean = f"{cell.mean:.3f}" if cell.mean is not None else "-"
        if wide:
            ci = f"[{cell.ci95[0]:.2f},{cell.ci95[1]:.2f}]" if cell.ci95 else "-"
            cells.append(f"{mean}{mark}{ci:>12}")
        else:
            cells.append(f"{mean}{mark}")
    numbers = "".join(f"{cell:>{width}}" for cell in cells)
    lines = [label, " " * LABEL + numbers] if len(label) > LABEL - 1 else [f"{label:<{LABEL}}{numbers}"]
    if any(cell.errors for cell in row.cells):  # the strict means, under the means they differ from
        shift = 12 if wide else 0  # under the mean, left of the interval
        stricts = "".join(
            f"{('-' if cell.strict is None else f'{cell.strict:.3f}') + ' ' * (shift + 1):>{width}}"
            for cell in row.cells
        )
        lines.append(f"{' ' * len(indent) + '  strict':<{LABEL}}{stricts}".rstrip())
    return lines


def _letter(comparison: Comparison, label: str) -> str:
    return next(chr(65 + index) for index, run in enumerate(comparison.runs) if run.label == label)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _money(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}"


def shown_lines(rows: list[QuestionRow], outcome: Outcome) -> list[str]:
    """`--mb-show`: the questions of an outcome, a few per scenario, with each run's answer on a line."""
    chosen, matching = shown(rows, outcome, SHOWN_PER_SCENARIO)
    lines = [
        f"questions where {outcome.text}: {matching:,} of {len(rows):,}"
        + (
            f" ({SHOWN_PER_SCENARIO} a scenario below; every one in compare.html)"
            if matching > len(chosen)
            else ""
        )
    ]
    for row in chosen:
        where = row.scenario + (f" · {row.category}" if row.category else "")
        lines += ["", f"{row.nodeid}  ({where})"]
        lines += [_one_line("  question  ", question) for question in dict.fromkeys(row.questions)]
        lines += [_one_line("  expected  ", expected) for expected in dict.fromkeys(row.expected)]
        for index, answer in enumerate(row.answers):
            verdict = f"{'right' if answer.passed else 'wrong'} {answer.score:.2f}"
            lines.append(
                _one_line(f"  {chr(65 + index)} {verdict}  ", " / ".join(answer.responses) or "(no reply)")
            )
    return lines


def _one_line(head: str, text: str) -> str:
    """`head` and as much of `text` as fits the width, on one line."""
    flat = " ".join(text.split())
    room = WIDTH - len(head)
    return head + (flat if len(flat) <= room else flat[: room - 1] + "…")
