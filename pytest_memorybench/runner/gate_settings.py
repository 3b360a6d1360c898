"""The session gates' options, read once: a baseline and its allowed drops, a minimum total, which
means are judged (`--mb-gate-on`), and how many items that errored a gate lets pass.

`reports/gate.py` judges a run by them; `settings.Settings` holds them as `gate`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.results.file import Baseline


@dataclass(frozen=True)
class GateSettings:
    """The session-level verdicts: against a baseline results.json, and a minimum total mean."""

    baseline: Baseline | None = None
    max_drop: float = 0.0
    max_scenario_drop: float | None = None
    min_score: float | None = None
    # None: no errors rule (--mb-gate-on strict without --mb-max-errors: an error counts as wrong)
    max_errors: MaxErrors | None = field(default_factory=lambda: MaxErrors())
    anyway: bool = False  # --mb-compare-anyway: a baseline judged differently is compared, with a note
    empty_memory: bool = False  # --mb-allow-empty-memory: a store that found nothing is judged anyway
    strict: bool = False  # --mb-gate-on strict: the strict means are gated (an error counting 0)

    @property
    def active(self) -> bool:
        return self.baseline is not None or self.min_score is not None

    @classmethod
    def from_options(cls, option: Any) -> GateSettings:
        baseline_path = getattr(option, "mb_baseline", None)
        max_drop = getattr(option, "mb_max_drop", None)
        scenario_drop = getattr(option, "mb_max_scenario_drop", None)
        min_score = getattr(option, "mb_min_score", None)
        on = str(getattr(option, "mb_gate_on", None) or "mean").strip().lower()  # or strict: every item
        if on not in ("mean", "strict"):
            raise usage_error(f"--mb-gate-on {on!r}: use mean or strict (which counts an error as 0)")
        given = getattr(option, "mb_max_errors", None)
        for flag, value in (
            ("--mb-max-drop", max_drop),
            ("--mb-max-scenario-drop", scenario_drop),
            ("--mb-min-score", min_score),
        ):
            if value is not None and not 0.0 <= value <= 1.0:
                raise usage_error(f"{flag} {value:g} is outside [0, 1]: means are scores between 0 and 1")
        if baseline_path is None and (max_drop is not None or scenario_drop is not None):
            flag = "--mb-max-drop" if max_drop is not None else "--mb-max-scenario-drop"
            raise usage_error(f"{flag} needs --mb-baseline PREVIOUS_RESULTS.json to compare with")
        return cls(
            baseline=Baseline.load(baseline_path) if baseline_path is not None else None,
            max_drop=max_drop if max_drop is not None else 0.0,
            max_scenario_drop=scenario_drop,
            min_score=min_score,
            # Under strict an error is a wrong answer, not a gap: the run is judged unless a cap is given.
            max_errors=None if on == "strict" and given is None else MaxErrors.parse(given),
            anyway=bool(getattr(option, "mb_compare_anyway", False)),
            empty_memory=bool(getattr(option, "mb_allow_empty_memory", False)),
            strict=on == "strict",
        )


_MAX_ERRORS = re.compile(r"^\s*(\d{1,9})\s*(%?)\s*$")


@dataclass(frozen=True)
class MaxErrors:
    """How many items that errored (no score) a gate lets pass: a count, or a share of the items."""

    count: int = 0
    percent: float | None = None

    @classmethod
    def parse(cls, value: str | None) -> MaxErrors:
        if value is None:
            return cls()
        match = _MAX_ERRORS.match(value)
        if match is None or (match[2] and int(match[1]) > 100):
            raise usage_error(f"--mb-max-errors {value!r} is not a count or a percentage: use e.g. 3 or 5%")
        return cls(percent=float(match[1])) if match[2] else cls(count=int(match[1]))

    def allowed(self, items: int) -> int:
        """The errors allowed among `items` items (a share rounds down)."""
        return math.floor(items * self.percent / 100) if self.percent is not None else self.count

    def __str__(self) -> str:
        return f"{self.percent:g}%" if self.percent is not None else str(self.count)
