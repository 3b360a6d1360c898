"""A judge's verdict read in the terms people decide in: is the answer right, where does a route end.

Shared by a panel's votes and by the judge check's labelled cases and wrong answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

_STEPS = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}


def reference_correct(data: Mapping[str, Any]) -> bool:
    """GoodAI's rule on a reference verdict, exactly as `score_reference` applies it."""
    numeric, match = bool(data.get("expected_is_number")), data.get("numbers_match")
    return bool(data["refers"]) and not (numeric and match is False)


def route_end(hops: Iterable[Mapping[str, Any]]) -> list[int]:
    """Where the hops lead from (0, 0): north = +y, east = +x."""
    x = y = 0
    for hop in hops:
        dx, dy = _STEPS[str(hop["direction"]).lower()]
        x, y = x + dx * int(hop["kilometers"]), y + dy * int(hop["kilometers"])
    return [x, y]
