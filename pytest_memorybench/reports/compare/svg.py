"""The figures of a comparison, as standalone SVG: bars per scenario and run, score against memory
span (GoodAI's Figure 5), accuracy against a latency budget, and a critical-difference diagram
(Huet et al.'s Figure 3).

Each is a complete `<svg>` document with its own namespace, so it renders inside the comparison
page and on its own (the files beside it).  Labels come from runs and suite files: escaped here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from pytest_memorybench.reports.svg import AXIS_COLOUR, FONT, GRID_COLOUR, _clamp, _shorten, _tick
from pytest_memorybench.results.schema import LatencyBudgetRecord

PALETTE = ("#3f6fb5", "#e07b39", "#4e9a52", "#b8463c", "#8064a8", "#8c6d45", "#d36aa9", "#6f7b86")


def _open(width: float, height: float, title: str) -> list[str]:
    return [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="mb-chart" role="img" width="{width:.0f}"'
            f' height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}"'
            f" {FONT}><title>{escape(title)}</title>"
        ),
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="#fff"/>',
        f'<text x="10" y="18" font-weight="600" fill="#222">{escape(_shorten(title, 90))}</text>',
    ]


def _legend(parts: list[str], runs: Sequence[str], x: float, y: float) -> None:
    for index, run in enumerate(runs):
        colour = PALETTE[index % len(PALETTE)]
        parts.append(f'<rect x="{x:.1f}" y="{y + index * 16:.1f}" width="10" height="10" fill="{colour}"/>')
        parts.append(
            f'<text x="{x + 14:.1f}" y="{y + index * 16 + 9:.1f}"'
            f' fill="#222">{escape(_shorten(run, 40))}</text>'
        )


def grouped_bars(
    rows: Sequence[tuple[str, Sequence[tuple[float | None, Sequence[float] | None]]]],
    runs: Sequence[str],
    *,
    title: str,
) -> str:
    """Horizontal bars: a group per row (scenario), a bar per run, its 95 % interval as a whisker."""
    label_w, plot_w, legend_w, bar_h, gap, top = 180, 380, 260, 10, 8, 34
    group_h = bar_h * len(runs) + gap
    height = top + group_h * len(rows) + 28
    width = label_w + plot_w + legend_w
    parts = _open(width, max(height, top + 16 * len(runs) + 20), title)
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = label_w + tick * plot_w
        parts.append(
            f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{height - 20}" stroke="{GRID_COLOUR}"/>'
        )
        parts.append(f'<text x="{x:.1f}" y="{height - 6}" text-anchor="middle" fill="#555">{tick:g}</text>')
    for row_index, (label, cells) in enumerate(rows):
        y0 = top + row_index * group_h
        parts.append(
            f'<text x="{label_w - 8}" y="{y0 + group_h / 2:.1f}" text-anchor="end"'
            f' fill="#222">{escape(_shorten(label, 26))}</text>'
        )
        for run_index, (mean, ci) in enumerate(cells):
            y = y0 + run_index * bar_h
            if mean is None or not math.isfinite(mean):
                continue
            colour = PALETTE[run_index % len(PALETTE)]
            parts.append(
                f'<rect x="{label_w}" y="{y:.1f}" width="{_clamp(mean) * plot_w:.1f}" height="{bar_h - 2}"'
                f' fill="{colour}"/>'
            )
            if ci is not None and len(ci) == 2:
                low, high = (label_w + _clamp(value) * plot_w for value in ci)
                middle = y + (bar_h - 2) / 2
                parts.append(f'<path d="M{low:.1f} {middle:.1f}H{high:.1f}" stroke="#111" stroke-width="1"/>')
    _legend(parts, runs, label_w + plot_w + 16, top)
    parts.append("</svg>")
    return "".join(parts)


def span_curves(
    series: Mapping[str, Sequence[tuple[float, float, Sequence[float] | None]]],
    *,
    title: str,
    x_label: str = "memory span (tokens)",
    y_label: str = "mean score",
    y_max: float | None = 1.0,
    marks: Sequence[tuple[float, str]] = (),
) -> str:
    """A value against size (log scale), a line per agent; whiskers for the intervals, and a dashed
    line at each size `marks` names (where one curve overtakes another).  `y_max` None: the
    values' own range, from 0."""
    width, height, left, right, top, bottom, legend_w = 720, 320, 56, 16, 34, 44, 240
    plot_w, plot_h = width - left - right - legend_w, height - top - bottom
    spans = sorted({span for points in series.values() for span, _, _ in points if span > 0})
    parts = _open(width, height, title)
    if not spans:
        parts.append(f'<text x="{left}" y="{height / 2:.0f}" fill="#777">no spans to draw</text></svg>')
        return "".join(parts)
    low, high = math.log10(spans[0]), math.log10(spans[-1])
    high = high if high > low else low + 1
    top_value = (
        y_max or max((value for points in series.values() for _, value, _ in points), default=1.0) or 1.0
    )

    def at(span: float, value: float) -> tuple[float, float]:
        share = min(max(value / top_value, 0.0), 1.0)
        return left + (math.log10(span) - low) / (high - low) * plot_w, top + plot_h - share * plot_h

    parts.append(
        f'<path d="M{left} {top}V{top + plot_h}H{left + plot_w}" stroke="{AXIS_COLOUR}" fill="none"/>'
    )
    for tick in (0.0, 0.5, 1.0):
        y = top + plot_h - tick * plot_h
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="{GRID_COLOUR}"/>'
        )
        label = f"{tick * top_value:.3g}"
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#555">{label}</text>')
    for span in spans:
        x, _ = at(span, 0)
        parts.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#555">{_tick(span)}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle" fill="#333">'
        f"{escape(x_label)}</text>"
    )
    parts.append(
        f'<text x="14" y="{top + plot_h / 2:.1f}" transform="rotate(-90 14 {top + plot_h / 2:.1f})"'
        f' text-anchor="middle" fill="#333">{escape(y_label)}</text>'
    )
    for span, label in marks:
        x, _ = at(span, 0)
        parts.append(
            f'<path d="M{x:.1f} {top}V{top + plot_h}" stroke="#444" stroke-dasharray="4 3" fill="none"/>'
        )
        parts.append(f'<text x="{x + 4:.1f}" y="{top + 12}" fill="#444">{escape(_shorten(label, 36))}</text>')
    for index, points in enumerate(series.values()):
        colour = PALETTE[index % len(PALETTE)]
        drawn = sorted((span, score, ci) for span, score, ci in points if span > 0)
        coordinates = [at(span, score) for span, score, _ in drawn]
        if len(coordinates) > 1:
            path = "M" + "L".join(f"{x:.1f} {y:.1f}" for x, y in coordinates)
            parts.append(f'<path d="{path}" stroke="{colour}" stroke-width="2" fill="none"/>')
        for (span, _, ci), (x, y) in zip(drawn, coordinates, strict=True):
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>')
            if ci is not None and len(ci) == 2:
                _, y_low = at(span, ci[0])
                _, y_high = at(span, ci[1])
                parts.append(
                    f'<path d="M{x:.1f} {y_low:.1f}V{y_high:.1f}" stroke="{colour}" stroke-width="1"/>'
                )
    _legend(parts, list(series), left + plot_w + 20, top)
    parts.append("</svg>")
    return "".join(parts)


def budget_curves(records: Mapping[str, LatencyBudgetRecord], *, title: str) -> str:
    """Accuracy under a latency budget against the budget (log axis), a line per run (label -> its
    figures, `results/latency_budget.py`): how much a run keeps when answers must come sooner."""
    series = {
        label: [
            (budget, accuracy, None)
            for budget, accuracy in zip(record["budgets"], record["accuracy"], strict=False)
        ]
        for label, record in records.items()
    }
    return span_curves(series, title=title, x_label="latency budget (s)", y_label="accuracy within it")


def critical_difference(ranks: dict[str, float], groups: Sequence[Sequence[str]], *, title: str) -> str:
    """Runs on an axis of average rank (1 at the left is best), labels hung below; a thick bar joins
    each group of runs that no Holm-corrected Wilcoxon test tells apart."""
    order = sorted(ranks, key=lambda name: ranks[name])
    count = len(order)
    width, left, right, axis_y = 720, 170, 170, 72
    plot_w = width - left - right
    height = axis_y + 30 + 20 * count + 12 * len(groups) + 20
    parts = _open(width, height, title)
    worst = max(count, 2)

    def x_of(rank: float) -> float:
        return left + (rank - 1) / (worst - 1) * plot_w

    parts.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}" stroke="#222"/>')
    for rank in range(1, worst + 1):
        x = x_of(rank)
        parts.append(f'<line x1="{x:.1f}" y1="{axis_y - 5}" x2="{x:.1f}" y2="{axis_y}" stroke="#222"/>')
        parts.append(f'<text x="{x:.1f}" y="{axis_y - 9}" text-anchor="middle" fill="#333">{rank}</text>')
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{axis_y - 26}" text-anchor="middle" fill="#555">average rank'
        " (1: best)</text>"
    )
    half = (count + 1) // 2
    for index, name in enumerate(order):
        x = x_of(ranks[name])
        right_side = index >= half
        row = (count - 1 - index) if right_side else index
        y = axis_y + 30 + 12 * len(groups) + row * 20
        end = left + plot_w + 10 if right_side else left - 10
        parts.append(f'<path d="M{x:.1f} {axis_y}V{y:.1f}H{end:.1f}" stroke="#444" fill="none"/>')
        anchor = "start" if right_side else "end"
        label = f"{_shorten(name, 22)} ({ranks[name]:.2f})"
        parts.append(
            f'<text x="{end + (4 if right_side else -4):.1f}" y="{y + 4:.1f}" text-anchor="{anchor}"'
            f' fill="#222">{escape(label)}</text>'
        )
    for index, group in enumerate(groups):
        xs = [x_of(ranks[name]) for name in group]
        y = axis_y + 14 + index * 12
        parts.append(
            f'<line x1="{min(xs) - 4:.1f}" y1="{y}" x2="{max(xs) + 4:.1f}" y2="{y}" stroke="#111"'
            ' stroke-width="4"/>'
        )
    parts.append("</svg>")
    return "".join(parts)


def pareto_panels(
    panels: Sequence[tuple[str, Sequence[tuple[float, float] | None], Sequence[int]]],
    runs: Sequence[str],
    *,
    title: str,
) -> str:
    """Score against each panel's x (cost, latency), a point per run lettered A, B, …; the Pareto front
    filled and joined by a step line, the runs it dominates hollow.  A run without the panel's x is
    left off that panel."""
    panel_w, panel_h, left, top, bottom, gap, legend_w = 300, 230, 46, 52, 40, 40, 260
    width = left + len(panels) * (panel_w + gap) + legend_w
    height = top + panel_h + bottom
    parts = _open(width, max(height, top + 16 * len(runs) + 20), title)
    scores = [point[1] for _, points, _ in panels for point in points if point is not None]
    ceiling = min(math.ceil(max(scores, default=1.0) * 1.15 * 10) / 10, 1.0) or 1.0  # low scores stay apart
    for number, (x_label, points, front) in enumerate(panels):
        x0 = left + number * (panel_w + gap)
        drawn = [point for point in points if point is not None]
        high = max((x for x, _ in drawn), default=0.0) * 1.08 or 1.0

        def at(x: float, score: float, x0: float = x0, high: float = high) -> tuple[float, float]:
            return x0 + x / high * panel_w, top + panel_h - _clamp(score / ceiling) * panel_h

        parts.append(
            f'<path d="M{x0} {top}V{top + panel_h}H{x0 + panel_w}" stroke="{AXIS_COLOUR}" fill="none"/>'
        )
        for tick in (0.0, ceiling / 2, ceiling):
            _, y = at(0, tick)
            parts.append(
                f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + panel_w}" y2="{y:.1f}" stroke="{GRID_COLOUR}"/>'
                f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#555">{tick:g}</text>'
            )
        for tick in (0.0, high / 2, high):
            x, _ = at(tick, 0)
            parts.append(
                f'<text x="{x:.1f}" y="{top + panel_h + 16}" text-anchor="middle"'
                f' fill="#555">{_tick(tick)}</text>'
            )
        parts.append(
            f'<text x="{x0 + panel_w / 2:.1f}" y="{top + panel_h + 34}" text-anchor="middle"'
            f' fill="#333">{escape(x_label)}</text>'
        )
        steps = [at(*point) for index in front if (point := points[index]) is not None]
        if len(steps) > 1:
            path = f"M{steps[0][0]:.1f} {steps[0][1]:.1f}" + "".join(
                f"H{x:.1f}V{y:.1f}" for x, y in steps[1:]
            )
            parts.append(f'<path d="{path}" stroke="#222" stroke-dasharray="4 3" fill="none"/>')
        for index, point in enumerate(points):
            if point is None:
                continue
            x, y = at(*point)
            colour = PALETTE[index % len(PALETTE)]
            fill = colour if index in front else "#fff"
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{fill}" stroke="{colour}" stroke-width="2">'
                f"<title>{escape(runs[index])}{' (Pareto front)' if index in front else ''}</title></circle>"
                f'<text x="{x + 7:.1f}" y="{y - 6:.1f}" fill="#222">{chr(65 + index)}</text>'
            )
    _legend(parts, [f"{chr(65 + index)} {run}" for index, run in enumerate(runs)], width - legend_w + 10, top)
    parts.append(
        '<text x="10" y="34" fill="#555">mean score (y) against each x; filled and joined: the Pareto front'
        " (no run scores as well for less)</text></svg>"
    )
    return "".join(parts)
