"""Scoring profiles: which rule to apply where a paper and its published code disagree.

`paper` follows the paper's text; `official` reproduces the published implementation's numbers so
results can be compared with published leaderboards.  Every scorer that diverges documents both
rules side by side, and the README lists each divergence with its source.
"""

from typing import Literal

Profile = Literal["paper", "official"]
PAPER: Profile = "paper"
OFFICIAL: Profile = "official"
PROFILES: tuple[Profile, ...] = (PAPER, OFFICIAL)
