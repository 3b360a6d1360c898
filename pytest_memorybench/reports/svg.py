"""Inline SVG charts for the HTML reports: scores per scenario, and a family's metric curves.

Reports are opened from CI artefacts, often offline and under strict content policies, so charts
are plain SVG markup written into the page: no script, no external library, no network.  Every
label passes through `html.escape` here, because scenario and metric names come from suite files
and benchmark families, not from us.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from pytest_memorybench.reports.summary import compact_count

FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="12"'
PASS_COLOUR = "#2e7d32"
FAIL_COLOUR = "#c62828"
BAR_COLOUR = "#3f6fb5"
AXIS_COLOUR = "#888"
GRID_COLOUR = "#e3e3e3"


def score_chart(rows: Sequence[tuple[str, float | None, Sequence[float] | None]], *, title: str) -> str:
    """Horizontal bars of mean scores in [0, 1], with the 95 % interval as a whisker.

    `rows` are (label, mean, [low, high] or None).  The mean is written at the bar's end, so the
    chart reads without the table.
    """
    label_width, plot_width, value_width, row_height, top = 190, 400, 60, 24, 30
    width = label_width + plot_width + value_width
    height = top + row_height * len(rows) + 24
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="mb-chart" role="img" width="{width}"'
            f' height="{height}" viewBox="0 0 {width} {height}" {FONT}><title>{escape(title)}</title>'
        ),
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = label_width + tick * plot_width
        parts.append(
            f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{height - 20}" stroke="{GRID_COLOUR}"/>'
        )
        parts.append(f'<text x="{x:.1f}" y="{height - 6}" text-anchor="middle" fill="#555">{tick:g}</text>')
    for index, (label, mean, ci) in enumerate(rows):
        y = top + index * row_height
        parts.append(
            f'<text x="{label_width - 8}" y="{y + 15}" text-anchor="end"'
            f' fill="#222">{escape(_shorten(label, 28))}</text>'
        )
        parts.append(
            f'<rect x="{label_width}" y="{y + 4}" width="{plot_width}" height="{row_height - 8}"'
            ' fill="#f0f0f3" rx="2"/>'
        )
        if mean is None or not math.isfinite(mean):
            parts.append(f'<text x="{label_width + 4}" y="{y + 15}" fill="#777">no score</text>')
            continue
        bar = _clamp(mean) * plot_width
        parts.append(
            f'<rect x="{label_width}" y="{y + 4}" width="{bar:.1f}" height="{row_height - 8}"'
            f' fill="{BAR_COLOUR}" rx="2"/>'
        )
        if ci is not None and len(ci) == 2:
            low, high = (label_width + _clamp(value) * plot_width for value in ci)
            middle = y + row_height / 2
            parts.append(
                f'<path d="M{low:.1f} {middle:.1f}H{high:.1f}M{low:.1f}'
                f' {middle - 5:.1f}V{middle + 5:.1f}M{high:.1f} {middle - 5:.1f}V{middle + 5:.1f}"'
                ' stroke="#111" stroke-width="1.5" fill="none"/>'
            )
        parts.append(f'<text x="{label_width + plot_width + 8}" y="{y + 15}" fill="#222">{mean:.3f}</text>')
    parts.append("</svg>")
    return "".join(parts)


def line_chart(points: Sequence[Sequence[float]], *, title: str, x_label: str = "", y_label: str = "") -> str:
    """A line through (x, y) points, axes labelled with their ranges.  Non-numeric points are dropped."""
    clean = sorted(
        (float(x), float(y))
        for x, y in (point for point in points if isinstance(point, (list, tuple)) and len(point) == 2)
        if _number(x) and _number(y)
    )
    width, height, left, right, top, bottom = 460, 260, 56, 16, 30, 44
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="mb-chart" role="img" width="{width}"'
            f' height="{height}" viewBox="0 0 {width} {height}" {FONT}><title>{escape(title)}</title>'
        ),
        f'<text x="{left}" y="18" font-weight="600" fill="#222">{escape(_shorten(title, 60))}</text>',
    ]
    if not clean:
        parts.append(f'<text x="{left}" y="{height / 2:.0f}" fill="#777">no points to draw</text></svg>')
        return "".join(parts)
    xs, ys = [x for x, _ in clean], [y for _, y in clean]
    x_low, x_high = _span(min(xs), max(xs))
    # Scores and shares keep their whole scale, so a curve at 0.4 does not look like a full one.
    y_low, y_high = (0.0, 1.0) if all(0.0 <= y <= 1.0 for y in ys) else _span(min(min(ys), 0.0), max(ys))
    plot_w, plot_h = width - left - right, height - top - bottom

    def at(x: float, y: float) -> tuple[float, float]:
        return left + (x - x_low) / (x_high - x_low) * plot_w, top + plot_h - (y - y_low) / (
            y_high - y_low
        ) * plot_h

    parts.append(
        f'<path d="M{left} {top}V{top + plot_h}H{left + plot_w}" stroke="{AXIS_COLOUR}" fill="none"/>'
    )
    for value, anchor_y in ((y_low, top + plot_h), (y_high, top)):
        parts.append(
            f'<text x="{left - 6}" y="{anchor_y + 4:.1f}" text-anchor="end" fill="#555">{_tick(value)}</text>'
        )
    for value, anchor_x, anchor in ((x_low, left, "start"), (x_high, left + plot_w, "end")):
        parts.append(
            f'<text x="{anchor_x:.1f}" y="{top + plot_h + 16}" text-anchor="{anchor}"'
            f' fill="#555">{_tick(value)}</text>'
        )
    coordinates = [at(x, y) for x, y in clean]
    path = "M" + "L".join(f"{x:.1f} {y:.1f}" for x, y in coordinates)
    parts.append(f'<path d="{path}" stroke="{BAR_COLOUR}" stroke-width="2" fill="none"/>')
    parts.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{BAR_COLOUR}"/>' for x, y in coordinates)
    if x_label:
        parts.append(
            f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle"'
            f' fill="#333">{escape(x_label)}</text>'
        )
    if y_label:
        parts.append(
            f'<text x="14" y="{top + plot_h / 2:.1f}" text-anchor="middle" fill="#333" '
            f'transform="rotate(-90 14 {top + plot_h / 2:.1f})">{escape(y_label)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _tick(value: float) -> str:
    """0.25, 12, 10.1k, 1.2M: an axis end in a few characters."""
    return compact_count(value) if abs(value) >= 1000 else f"{value:.3g}"


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _span(low: float, high: float) -> tuple[float, float]:
    """An axis range that is never empty (a flat curve still gets a visible line)."""
    if high - low < 1e-12:
        return low - 0.5, high + 0.5
    return low, high


def _clamp(value: float) -> float:
    return min(max(value, 0.0), 1.0)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
