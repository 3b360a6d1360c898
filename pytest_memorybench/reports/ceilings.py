"""A run's scores above their ceiling, in words, for under its table (terminal, Markdown, HTML).

A category above the most a right answer can score against the benchmark's known-wrong gold
(`results/ceilings.py`, LoCoMo's audit) was given credit that remembering cannot earn: the judge
is too lenient, or the run saw the answers (the `oracle` does, by design).  A comparison has a
second ceiling, the `gold` store (`compare/gold.py`).
"""

from __future__ import annotations

from pytest_memorybench.results.ceilings import above_ceiling
from pytest_memorybench.results.schema import ResultsRecord

CAUSE = "the judge is too lenient or the run saw the answers"


def ceiling_lines(results: ResultsRecord) -> list[str]:
    """A line for each category whose mean is above its ceiling, for under the run's table."""
    lines = []
    for scenario, category, mean, ceiling in above_ceiling(results):
        among = (
            f"{ceiling['wrong']} of these {ceiling['of']}"
            if ceiling["source"] == "audit"
            else f"{ceiling['wrong']} of the {ceiling['of']} published"
        )
        lines.append(
            f"above its ceiling: {scenario} · {category} {mean:.3f} > {ceiling['maximum']:.3f}, the most"
            f" right answers can score against the original gold (the audit finds {among} gold answers"
            f" wrong): {CAUSE}"
        )
    return lines


def ceiling_summary(results: ResultsRecord) -> str | None:
    """The same in one line, for a comparison that sets several runs side by side."""
    above = [
        f"{scenario} · {category} {mean:.3f} > {ceiling['maximum']:.3f}"
        for scenario, category, mean, ceiling in above_ceiling(results)
    ]
    if not above:
        return None
    return (
        f"above its ceiling (the most right answers can score against the original gold): {', '.join(above)};"
        f" {CAUSE}"
    )
