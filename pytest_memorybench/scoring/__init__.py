"""Scorers: pure functions from (expected, responses) to a `Score`, and the asserts built on them.

One module per kind of scoring (exact, ROUGE-L, items F1, nuggets, Kendall tau, choice, ...);
`profiles` names where the papers and their code disagree; `asserts` are the public
`assert_*` helpers. It imports judges (for judged scorers) and core.
"""

from pytest_memorybench.core.records import Score
from pytest_memorybench.scoring.profiles import OFFICIAL, PAPER, PROFILES, Profile

__all__ = ["OFFICIAL", "PAPER", "PROFILES", "Profile", "Score"]
