"""BEAM nugget scoring: the mean of a judge's 0 / 0.5 / 1 verdicts on a question's rubric items.

The judge rates each rubric item ("nugget") separately: 1 fully met, 0.5 partly, 0 not at all.
The paper averages these.  BEAM's `compute_metrics.py` adds `int(score)` for nine of its ten
abilities, which truncates every 0.5 to 0; the `official` profile reproduces that so published
numbers can be matched, and the reasons say whenever it changed the result.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Score
from pytest_memorybench.scoring.profiles import OFFICIAL, PAPER, Profile

ALLOWED = (0.0, 0.5, 1.0)
# The one ability whose nugget path uses float() in BEAM's code, so 0.5 survives there.
UNTRUNCATED_ABILITIES = frozenset({"event_ordering"})


def score_nuggets(scores: Sequence[float], profile: Profile, *, ability: str | None = None) -> Score:
    """Mean nugget credit under `profile`.

    paper     mean of the verdicts, 0.5 counting as half (BEAM paper, Listing 20's scale).
    official  each verdict passed through `int()` first, as BEAM's code does, so 0.5 → 0;
              except for `ability="event_ordering"`, whose judge path averages with `float()`.
    Verdicts must be 0, 0.5 or 1 (ValueError otherwise, and for an empty rubric, which BEAM's
    code would divide by).
    """
    if profile not in (PAPER, OFFICIAL):
        raise ValueError(f"unknown scoring profile {profile!r}")
    if not scores:
        raise ValueError("a rubric needs at least one nugget verdict")
    values: list[float] = []
    for index, raw in enumerate(scores):
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or float(raw) not in ALLOWED:
            raise ValueError(f"nugget {index + 1}: verdict {raw!r} is not 0, 0.5 or 1")
        values.append(float(raw))

    truncate = profile == OFFICIAL and ability not in UNTRUNCATED_ABILITIES
    credits = [float(int(v)) if truncate else v for v in values]
    value = sum(credits) / len(credits)
    paper_value = sum(values) / len(values)

    reasons = [
        f"nugget {i + 1}: judged {v:g}" + (f", counted {c:g} (int() truncation)" if c != v else "")
        for i, (v, c) in enumerate(zip(values, credits, strict=True))
    ]
    rule = "int()-truncated verdicts (official profile)" if truncate else f"verdicts ({profile} profile)"
    reasons.append(f"mean of {len(credits)} {rule} = {value:.3f}")
    if truncate and value != paper_value:
        halves = sum(1 for v in values if v == 0.5)
        reasons.append(
            f"truncation dropped {halves} half credit(s): the paper's mean would be {paper_value:.3f}"
        )
    # Both profiles' means, whichever ran, so a summary can set them side by side.
    official_value = (
        paper_value if ability in UNTRUNCATED_ABILITIES else sum(float(int(v)) for v in values) / len(values)
    )
    details: JsonObject = {"verdicts": values, "paper": paper_value, "official": official_value}
    return Score(value, tuple(reasons), details)
