"""The scale curve's crossings: where one agent first scores above another, having not before."""

from __future__ import annotations

from pytest_memorybench.reports.compare.scale import CONVERSATION_UNIT, Point, Scale


def _curve(*scores: float) -> list[Point]:
    return [Point(size, score, None, 0.0, None) for size, score in zip((2, 4, 10, 20), scores, strict=False)]


def test_the_first_size_where_a_curve_rises_above_another_is_named() -> None:
    scale = Scale(
        CONVERSATION_UNIT, {"full-context": _curve(0.9, 0.6, 0.5, 0.4), "bm25": _curve(0.5, 0.5, 0.5, 0.6)}
    )
    (crossing,) = scale.crossings()
    assert (crossing.ahead, crossing.behind, crossing.size) == ("bm25", "full-context", 20)
    assert (
        crossing.text(CONVERSATION_UNIT)
        == "bm25 overtakes full-context at 20 conversations (0.600 against 0.400)"
    )
    assert scale.lines()[0] == "scale: 2 curve(s) over 2, 4, 10, 20 conversations"


def test_a_curve_ahead_from_the_start_or_never_ahead_overtakes_nothing() -> None:
    scale = Scale(CONVERSATION_UNIT, {"a": _curve(0.9, 0.9, 0.9), "b": _curve(0.1, 0.2, 0.3)})
    assert scale.crossings() == [] and scale.lines()[-1] == "  no curve overtakes another"
