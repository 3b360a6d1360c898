"""Asking a judge the labelled cases and the wrong answers: its agreement and false acceptance.

`evaluate_judge(judge)` asks every packaged case (`metaeval`) and wrong answer (`wrong_answers`),
at most a few at a time, and tallies per kind how often the judge sides with the human label
and how often it gives a wrong answer credit.  `command` prints the result and gates on it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_memorybench.core.errors import describe_exception
from pytest_memorybench.judge_check.metaeval import (
    SCORER,
    JudgeCase,
    compare,
    human_items_f1,
    load_cases,
)
from pytest_memorybench.judge_check.wrong_answers import (
    WrongAnswer,
    accepts,
    load_wrong_answers,
)
from pytest_memorybench.judges.base import TASK_KINDS, UNPARSEABLE, Judge, JudgeTask
from pytest_memorybench.judges.replies import validate


@dataclass(frozen=True)
class Disagreement:
    """A labelled case the judge decided otherwise: the human verdict, the judge's, and any error."""

    id: str
    kind: str
    expected: dict[str, Any]  # the human label, in display terms (items: with its F1)
    got: dict[str, Any] | None  # the judge's verdict in the label's terms; None after an error
    error: str | None = None


@dataclass
class KindAgreement:
    """How often a judge agreed with the human verdicts of one task kind."""

    kind: str
    agreed: int = 0
    total: int = 0

    @property
    def rate(self) -> float:
        return self.agreed / self.total if self.total else 0.0


@dataclass(frozen=True)
class Accepted:
    """A wrong answer the judge gave credit to."""

    id: str
    kind: str
    trap: str


@dataclass
class KindFalseAcceptance:
    """How often a judge accepted the wrong answers of one task kind."""

    kind: str
    accepted: int = 0
    total: int = 0

    @property
    def rate(self) -> float:
        return self.accepted / self.total if self.total else 0.0


@dataclass
class JudgeCheckReport:
    """Agreement of one judge with the human labels, and how many wrong answers it accepts, per kind."""

    judge: str
    kinds: dict[str, KindAgreement] = field(default_factory=dict)  # in TASK_KINDS order
    disagreements: list[Disagreement] = field(default_factory=list)
    item_credits: tuple[int, int] = (0, 0)  # items: per-ground-truth-item credits agreed, of all
    false_accepts: dict[str, KindFalseAcceptance] = field(default_factory=dict)  # in TASK_KINDS order
    accepted: list[Accepted] = field(default_factory=list)
    wrong_errors: list[tuple[str, str]] = field(
        default_factory=list
    )  # (wrong answer id, error): counted as refused
    classes: dict[str, KindAgreement] = field(default_factory=dict)  # cases of a class, by class
    classes_wrong: KindFalseAcceptance = field(default_factory=lambda: KindFalseAcceptance("classes"))

    def false_acceptance(self, kind: str) -> float:
        return self.false_accepts[kind].rate

    @property
    def total(self) -> int:
        return sum(kind.total for kind in self.kinds.values())

    @property
    def agreed(self) -> int:
        return sum(kind.agreed for kind in self.kinds.values())

    @property
    def agreement(self) -> float:
        """The share of cases where the judge agrees with the human (0.0 when there are none)."""
        return self.agreed / self.total if self.total else 0.0

    def agreement_for(self, kind: str) -> float:
        return self.kinds[kind].rate

    @property
    def errors(self) -> list[Disagreement]:
        return [item for item in self.disagreements if item.error is not None]

    @property
    def asked(self) -> int:
        """Every verdict asked: the labelled cases and the wrong answers."""
        return self.total + sum(kind.total for kind in self.false_accepts.values())

    @property
    def error_count(self) -> int:
        return len(self.errors) + len(self.wrong_errors)


async def evaluate_judge(
    judge: Judge,
    cases: Sequence[JudgeCase] | None = None,
    wrong_answers: Sequence[WrongAnswer] | None = None,
    *,
    concurrency: int = 8,
    progress: Callable[[int, int, int], None] | None = None,
) -> JudgeCheckReport:
    """Ask `judge` every case and every wrong answer (default: the packaged sets; `()` asks none).

    It measures agreement with the labels and the share of wrong answers accepted, per kind.  At
    most `concurrency` verdicts are in flight (a `CachedJudge` bounds its own calls too).  A judge
    that raises, returns an error verdict or a verdict outside the task's schema disagrees with the
    label (the error kept in the disagreement), and accepts no wrong answer (the error is listed).
    `progress(done, total, errors)` hears of every finished verdict.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    cases = load_cases() if cases is None else list(cases)
    wrong_answers = load_wrong_answers() if wrong_answers is None else list(wrong_answers)
    semaphore = asyncio.Semaphore(concurrency)
    total = len(cases) + len(wrong_answers)
    finished = [0, 0]  # verdicts done, of which errors

    async def one(kind: str, payload: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        result = await _verdict_data(judge, kind, payload, semaphore)
        finished[0] += 1
        finished[1] += result[1] is not None
        if progress is not None:
            progress(finished[0], total, finished[1])
        return result

    results = await asyncio.gather(
        *(one(case.kind, case.payload) for case in cases),
        *(one(answer.kind, answer.payload) for answer in wrong_answers),
    )
    report = JudgeCheckReport(str(getattr(judge, "name", type(judge).__name__)))
    _tally_cases(report, cases, results[: len(cases)])
    _tally_wrong_answers(report, wrong_answers, results[len(cases) :])
    return report


async def _verdict_data(
    judge: Judge, kind: str, payload: dict[str, Any], semaphore: asyncio.Semaphore
) -> tuple[dict[str, Any] | None, str | None]:
    """The judge's validated verdict data on one task, or the error that stands for it."""
    async with semaphore:
        try:
            verdict = await judge.judge(JudgeTask(kind, payload, SCORER))
        except Exception as exc:  # noqa: BLE001 - a failing judge costs the case, not the run
            return None, f"judge-error: {describe_exception(exc)}"
    if not verdict.ok:
        return None, verdict.error or "the judge gave no verdict"
    try:
        return validate(kind, verdict.data, payload), None
    except ValueError as exc:
        return None, f"{UNPARSEABLE}: {exc}"


def _tally_cases(
    report: JudgeCheckReport,
    cases: Sequence[JudgeCase],
    results: Sequence[tuple[dict[str, Any] | None, str | None]],
) -> None:
    present = {case.kind for case in cases}
    report.kinds = {kind: KindAgreement(kind) for kind in TASK_KINDS if kind in present}
    credits_agreed = credits_total = 0
    for case, (data, error) in zip(cases, results, strict=True):
        comparison = None
        if data is not None:
            try:
                comparison = compare(case, data)
            except (
                KeyError,
                TypeError,
                ValueError,
            ) as exc:  # a verdict validate() let through but the rule cannot read
                error = f"{UNPARSEABLE}: {describe_exception(exc)}"
        tally = report.kinds[case.kind]
        tally.total += 1
        agree = comparison is not None and comparison.agree
        if case.group:
            _tally_class(report, case, agree)
        if case.kind == "items":
            credits_total += len(case.payload["ground_truth"])
            credits_agreed += comparison.units[0] if comparison is not None and comparison.units else 0
        if agree:
            tally.agreed += 1
            continue
        expected = comparison.expected if comparison is not None else _display_label(case)
        got = comparison.got if comparison is not None else None
        report.disagreements.append(Disagreement(case.id, case.kind, expected, got, error))
    report.item_credits = (credits_agreed, credits_total)


def _tally_class(report: JudgeCheckReport, case: JudgeCase, agree: bool) -> None:
    """A case of a class of answers: its class's agreement, and whether a wrong one was accepted."""
    group = report.classes.setdefault(case.group, KindAgreement(case.group))
    group.total += 1
    group.agreed += agree
    if case.label.get("correct") is False:
        report.classes_wrong.total += 1
        report.classes_wrong.accepted += not agree


def _tally_wrong_answers(
    report: JudgeCheckReport,
    answers: Sequence[WrongAnswer],
    results: Sequence[tuple[dict[str, Any] | None, str | None]],
) -> None:
    present = {answer.kind for answer in answers}
    report.false_accepts = {kind: KindFalseAcceptance(kind) for kind in TASK_KINDS if kind in present}
    for answer, (data, error) in zip(answers, results, strict=True):
        tally = report.false_accepts[answer.kind]
        tally.total += 1
        if data is not None:
            try:
                accepted = accepts(answer, data)
            except (KeyError, TypeError, ValueError) as exc:
                data, error = None, f"{UNPARSEABLE}: {describe_exception(exc)}"
            else:
                if accepted:
                    tally.accepted += 1
                    report.accepted.append(Accepted(answer.id, answer.kind, answer.trap))
        if data is None:
            report.wrong_errors.append((answer.id, error or "no verdict"))


def _display_label(case: JudgeCase) -> dict[str, Any]:
    if case.kind == "items":
        return {
            **case.label,
            "f1": round(human_items_f1(case.label, [str(v) for v in case.payload["ground_truth"]]), 3),
        }
    return dict(case.label)
