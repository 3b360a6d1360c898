"""The regression gate: this run's means against a previous results.json, and a minimum total.

Teams decide whether a release ships on this, so it must fail for the right reason and say which.
Every item can pass while the memory score still falls (thresholds are per item; a regression is
a fall of the mean), hence a session-level verdict that turns the exit code to 1.

What fails: the total mean, or any suite's, falling more than `--mb-max-drop` below the baseline
(DESIGN.md); a scenario only with `--mb-max-scenario-drop`, because a scenario of three
repetitions moves by a third when one item flips.  Each row also says whether the baseline lies
outside this run's 95 % bootstrap interval: a drop inside it may be noise, one outside it is
unlikely to be.  `--mb-min-score` fails a total mean below it, with or without a baseline.

Items that errored (the agent, its provider or the judge failed: no score) are no measure of
memory.  A gate refuses a run that has any, saying how to retry them, unless `--mb-max-errors`
allows that many; it then compares the items that scored and says how many it left out.

`--mb-gate-on strict` judges the strict means instead (every item, an error counting 0: what a
user of the system gets), so a run whose errors hide its hard questions cannot pass on the rest.
An error is then a wrong answer, not a gap: the run is judged, not refused, unless
`--mb-max-errors` still caps how many.  Strict means have no interval of their own; their rows
say nothing of one.  A baseline written before strict means existed gets them from its counts
(mean × n / (n + errors)).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_memorybench.judges.identity import judged_differently
from pytest_memorybench.reports.table import short_name
from pytest_memorybench.results.file import Baseline, part
from pytest_memorybench.results.schema import GateRecord, ResultsRecord

EPSILON = 1e-9  # means are rounded to 6 places; a drop equal to the allowance is not beyond it
LABEL = 23


class ErrorAllowance(Protocol):
    """How many items that errored a gate lets pass (`--mb-max-errors`: `runner.gate_settings.MaxErrors`)."""

    def allowed(self, items: int) -> int: ...


class _NoneAllowed:
    """The default: a gate refuses a run with any item that errored."""

    def allowed(self, items: int) -> int:
        return 0

    def __str__(self) -> str:
        return "0"


NONE_ALLOWED = _NoneAllowed()


@dataclass(frozen=True)
class GateRow:
    """One compared mean.  `level` is total, suite or scenario; `gated` says if it can fail."""

    label: str
    level: str
    baseline: float | None
    current: float | None
    ci95: list[float] | None
    gated: bool
    allowed_drop: float | None

    @property
    def change(self) -> float | None:
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline

    @property
    def outside_ci(self) -> bool | None:
        """Is the baseline mean outside this run's interval?  None when the run has no interval."""
        if self.ci95 is None or self.baseline is None:
            return None
        return not self.ci95[0] - EPSILON <= self.baseline <= self.ci95[1] + EPSILON

    @property
    def regressed(self) -> bool:
        change = self.change
        return (
            self.gated
            and self.allowed_drop is not None
            and change is not None
            and -change > self.allowed_drop + EPSILON
        )

    @property
    def verdict(self) -> str:
        change = self.change
        if self.current is None:
            return "not run"
        if change is None:
            return "new"
        where = {True: ", outside CI", False: ", inside CI", None: ""}[self.outside_ci]
        if self.regressed:
            return "FAIL" + where
        if change < -EPSILON:
            return "drop" + where
        return "ok"


@dataclass
class GateResult:
    """The session gates' verdict: the compared rows, the failures, the notes."""

    rows: list[GateRow] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    baseline: Baseline | None = None
    max_drop: float | None = None
    strict: bool = False  # --mb-gate-on strict: the strict means were judged

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_json(self) -> GateRecord:
        return {
            "passed": self.passed,
            "on": "strict" if self.strict else "mean",
            "baseline": str(self.baseline.path) if self.baseline else None,
            "max_drop": self.max_drop,
            "failures": self.failures,
            "notes": self.notes,
            "rows": [
                {
                    "label": row.label.strip(),
                    "level": row.level,
                    "baseline": row.baseline,
                    "current": row.current,
                    "change": None if row.change is None else round(row.change, 6),
                    "ci95": row.ci95,
                    "outside_ci": row.outside_ci,
                    "verdict": row.verdict,
                }
                for row in self.rows
            ],
        }


def evaluate(
    results: ResultsRecord,
    *,
    baseline: Baseline | None,
    max_drop: float = 0.0,
    max_scenario_drop: float | None = None,
    min_score: float | None = None,
    max_errors: ErrorAllowance | None = NONE_ALLOWED,
    folder: str = "FOLDER",
    anyway: bool = False,
    empty_memory: bool = False,
    strict: bool = False,
) -> GateResult:
    """The gate's verdict on `results` (this run's results.json content).

    `max_errors=None` judges without the errors rule: a partial run, whose gate fails for being
    partial, and whose unfinished tests are errors for that reason.  A baseline judged differently
    (another judge, model, prompt version or local rules) is refused unless `anyway`: its means
    measure another judge as much as the agent.  A memory store that found nothing for every question
    is refused unless `empty_memory`: its scores are the answering model's alone.  `strict` judges
    the strict means (an error counting 0) in place of the means.
    """
    gate = GateResult(baseline=baseline, max_drop=max_drop if baseline else None, strict=strict)
    if max_errors is not None and not _errors_allowed(gate, results["totals"], max_errors, folder):
        return gate
    if strict and max_errors is None and results["totals"].get("errors"):
        gate.notes.append(f"{_errored(results['totals'])}: counted as wrong (--mb-gate-on strict)")
    store = results["totals"].get("store")
    if (
        store is not None
        and store["store"] != "none"
        and store["searches"]
        and store["empty"] == store["searches"]
    ):
        line = f"every search of store {store['store']} came back empty ({store['searches']})"
        if not empty_memory:
            gate.failures.append(
                f"{line}: the scores are the answering model's alone; check that the store indexes what it is"
                " given, or pass --mb-allow-empty-memory"
            )
            return gate
        gate.notes.append(f"{line}; judged anyway (--mb-allow-empty-memory)")
    total = _total(results, strict)
    if baseline is not None:
        judged = judged_differently(part(baseline.results, "run"), results["run"])
        if judged is not None and not anyway:
            gate.failures.append(
                f"the baseline was judged differently ({judged}): its scores are not comparable; "
                "judge both runs alike, or pass --mb-compare-anyway"
            )
            return gate
        gate.rows = _rows(results, baseline.results, max_drop, max_scenario_drop, strict)
        gate.notes = _differences(results["run"], part(baseline.results, "run"))
        if judged is not None:
            gate.notes.append(f"compared anyway (--mb-compare-anyway): judged differently ({judged})")
        for row in gate.rows:
            if row.regressed:
                assert row.change is not None and row.allowed_drop is not None
                where = {True: "outside", False: "inside", None: "no"}[row.outside_ci]
                name = "total" if row.level == "total" else f"{row.level} {row.label.strip()}"
                name += " strict mean" if strict else ""
                interval = "strict means have no interval" if strict else f"{where} 95% CI"
                gate.failures.append(
                    f"{name} fell {-row.change:.3f} (from {row.baseline:.3f} to {row.current:.3f}), more"
                    f" than the {row.allowed_drop:.3f} allowed; {interval}"
                )
    if min_score is not None and total is not None and total < min_score - EPSILON:
        gate.failures.append(
            f"total {'strict mean' if strict else 'mean'} {total:.3f} is below --mb-min-score {min_score:.3f}"
            + (" (an item that errored counts 0)" if strict else "")
        )
    return gate


def _total(results: Mapping[str, Any], strict: bool) -> float | None:
    """The run's total mean, or its strict mean (written by every run that has means)."""
    totals = results["totals"]
    return _strict_of(totals, totals.get("max")) if strict else totals.get("mean")


def _strict_of(stats: Mapping[str, Any], scored: Any) -> float | None:
    """A row's strict mean: as written, or, in a file from before strict means, from its mean, the
    items that scored and those that errored (the sum of the scores over every item)."""
    if "mean_strict" in stats:
        value = stats["mean_strict"]
        return float(value) if isinstance(value, (int, float)) else None
    mean, errors = stats.get("mean"), stats.get("errors") or 0
    if not isinstance(scored, int) or scored + errors == 0:
        return None
    if not isinstance(mean, (int, float)):
        return 0.0 if errors else None  # every item errored
    return round(mean * scored / (scored + errors), 6)


def _errored(totals: Mapping[str, Any]) -> str:
    """How many items had no score, and whose failure: "3 of 33 items errored (provider)"."""
    errors = totals.get("errors", 0)
    kinds = ", ".join(sorted(totals.get("errors_by_kind", {})))
    items = errors + totals.get("max", 0)
    return f"{errors} of {items} item{'s' if items != 1 else ''} errored ({kinds})"


def _errors_allowed(
    gate: GateResult, totals: Mapping[str, Any], max_errors: ErrorAllowance, folder: str
) -> bool:
    """Whether the gate may judge the items that scored: none errored, or no more than allowed."""
    errors = totals.get("errors", 0)
    if not errors:
        return True
    items = errors + totals.get("max", 0)
    counted = _errored(totals)
    allowed = max_errors.allowed(items)
    if errors > allowed:
        allowance = (
            f"--mb-max-errors {max_errors} allows {allowed}"
            if allowed
            else "allow some with --mb-max-errors N or P%"
        )
        gate.failures.append(
            f"{counted}: nothing to compare; --mb-resume={folder} retries them ({allowance})"
        )
        return False
    compared = "counted them as wrong" if gate.strict else f"compared the {totals.get('max', 0)} that scored"
    gate.notes.append(f"{counted}, within --mb-max-errors {max_errors}: {compared}")
    return True


def _rows(
    results: Mapping[str, Any],
    base: Mapping[str, Any],
    max_drop: float,
    max_scenario_drop: float | None,
    strict: bool = False,
) -> list[GateRow]:
    base_totals = base.get("totals", {})
    rows = [
        GateRow(
            "total",
            "total",
            _strict_of(base_totals, base_totals.get("max")) if strict else _total_mean(base),
            _total(results, strict),
            None if strict else results["totals"].get("ci95"),
            True,
            max_drop,
        )
    ]
    base_suites, base_scenarios = base.get("suites", {}), base.get("scenarios", {})
    now_suites, now_scenarios = results["suites"], results["scenarios"]
    by_suite: dict[str, set[str]] = {}
    for item in results["items"]:
        by_suite.setdefault(item["suite"], set()).add(item["scenario"])
    for item in base.get("items", []):
        if isinstance(item, dict) and "suite" in item and "scenario" in item:
            by_suite.setdefault(item["suite"], set()).add(item["scenario"])
    for suite in sorted(set(now_suites) | set(base_suites)):
        rows.append(
            _row(suite, "suite", base_suites.get(suite), now_suites.get(suite), True, max_drop, strict)
        )
        for scenario in sorted(by_suite.get(suite, set())):
            label = "  " + short_name(scenario, suite)
            rows.append(
                _row(
                    label,
                    "scenario",
                    base_scenarios.get(scenario),
                    now_scenarios.get(scenario),
                    max_scenario_drop is not None,
                    max_scenario_drop,
                    strict,
                )
            )
    return rows


def _row(
    label: str, level: str, base: Any, now: Any, gated: bool, allowed: float | None, strict: bool = False
) -> GateRow:
    def mean(stats: Any) -> float | None:
        if not isinstance(stats, dict):
            return None
        return _strict_of(stats, stats.get("n")) if strict else stats.get("mean")

    ci = now.get("ci95") if isinstance(now, dict) and not strict else None
    return GateRow(label, level, mean(base), mean(now), ci, gated, allowed)


def _total_mean(base: Mapping[str, Any]) -> float | None:
    """The baseline's total mean; results.json files from before `totals.mean` existed have score/max."""
    totals = base.get("totals", {})
    if isinstance(totals.get("mean"), (int, float)):
        return float(totals["mean"])
    if totals.get("max"):
        return float(totals["score"]) / float(totals["max"])
    return None


def _differences(now: Mapping[str, Any], base: Mapping[str, Any]) -> list[str]:
    """Settings that make means incomparable, said once instead of silently compared."""
    notes = []
    for key in ("span", "profile", "seed", "agent"):
        if key in base and base[key] != now.get(key):
            notes.append(
                f"the baseline ran with {key} {_show(base[key])}, this run with {_show(now.get(key))}"
            )
    return notes


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items()) or "-"
    return str(value)


def gate_lines(gate: GateResult) -> list[str]:
    """The diff table and the verdict, for the terminal (80 columns)."""
    lines: list[str] = []
    if gate.baseline is not None:
        run = gate.baseline.results.get("run", {})
        lines.append(
            f"baseline: {gate.baseline.path} (run {run.get('id', '?')}, agent {run.get('agent', '?')})"
        )
    lines.extend(f"note: {note}" for note in gate.notes)
    if gate.strict:
        lines.append(
            "gated on the strict means: every item, one that errored counting 0 (--mb-gate-on strict)"
        )
    if gate.rows:
        lines.append(f"{'':<{LABEL}}{'baseline':>9}{'now':>7}{'change':>8}{'95% CI now':>14}  verdict")
        lines.extend(_table_row(row) for row in gate.rows)
    if gate.passed:
        allowed = (
            f"no drop beyond {gate.max_drop:.3f}" if gate.max_drop is not None else "total above the minimum"
        )
        lines.append(f"gate passed: {allowed}")
    else:
        lines.extend(f"gate FAILED: {failure}" for failure in gate.failures)
    return lines


def _table_row(row: GateRow) -> str:
    label = row.label if len(row.label) < LABEL else row.label[: LABEL - 2] + "…"

    def number(value: float | None, signed: bool = False) -> str:
        if value is None:
            return "-"
        return f"{value:+.3f}" if signed else f"{value:.3f}"

    ci = f"[{row.ci95[0]:.2f}, {row.ci95[1]:.2f}]" if row.ci95 else "-"
    return (
        f"{label:<{LABEL}}{number(row.baseline):>9}{number(row.current):>7}"
        f"{number(row.change, signed=True):>8}{ci:>14}  {row.verdict}"
    )
