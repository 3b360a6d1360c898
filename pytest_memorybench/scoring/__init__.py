"""Scorers: pure functions from (expected, responses) to a `Score`, and the asserts built on them."""

from pytest_memorybench.records import Score
from pytest_memorybench.scoring.profiles import OFFICIAL, PAPER, PROFILES, Profile

__all__ = ["OFFICIAL", "PAPER", "PROFILES", "Profile", "Score"]
