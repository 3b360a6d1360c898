"""Default waits shared by scripted scenarios."""

from __future__ import annotations

from pytest_memorybench.core.records import ScriptLine


def spread_over_span(line_count: int, share: float = 90.0) -> list[dict[str, float]]:
    """Waits that spread `line_count` script lines evenly over `share` % of the memory span.

    As the GoodAI reference does: after line i (0-based) of n, wait until (i+1)·share/(n−1) % of
    the span has passed since the test began, and nothing after the last line.  The first line
    opens the span and the last one (the question) arrives at `share` %.
    """
    if line_count < 2:
        return [{} for _ in range(line_count)]
    step = share / (line_count - 1)
    return [{"percentage_finished": round((i + 1) * step, 6)} for i in range(line_count - 1)] + [{}]


def spread_script(lines: list[str]) -> tuple[ScriptLine, ...]:
    """Statements followed by one question (the last line), spread over 90 % of the span."""
    waits = spread_over_span(len(lines))
    return tuple(
        ScriptLine(text, is_question=index == len(lines) - 1, wait=wait)
        for index, (text, wait) in enumerate(zip(lines, waits, strict=True))
    )
