"""Scoring profiles: which rule to apply where a paper and its published code disagree.

`paper` follows the paper's text; `official` reproduces the published implementation's numbers so
results can be compared with published leaderboards.  Every scorer that diverges documents both
rules side by side, and the README lists each divergence with its source.

`audited` exists where an independent audit corrected a benchmark's gold answers (LoCoMo): the
`official` rule on the corrected gold.  A scenario that has no audit names the profiles it takes
(`Scenario.profiles`); a run asking another of it stops with one line.
"""

from typing import Literal

Profile = Literal["paper", "official", "audited"]
PAPER: Profile = "paper"
OFFICIAL: Profile = "official"
AUDITED: Profile = "audited"
PROFILES: tuple[Profile, ...] = (PAPER, OFFICIAL, AUDITED)
DEFAULT_PROFILES: tuple[Profile, ...] = (PAPER, OFFICIAL)  # what a scenario takes unless it says otherwise


def profile_named(name: str) -> Profile:
    """The profile called `name`; ValueError for a name that is none."""
    for profile in PROFILES:
        if profile == name:
            return profile
    raise ValueError(f"no scoring profile {name!r}: one of {', '.join(PROFILES)}")


def profiles_of(scenario: object) -> tuple[str, ...]:
    """The profiles a scenario takes."""
    return tuple(getattr(scenario, "profiles", DEFAULT_PROFILES))
