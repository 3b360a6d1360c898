"""`pytest --mb-judge-check`: a judge's agreement with human labels and its false acceptance, as a gate.

The report is a table of at most 80 columns: per kind of judged task, the labelled cases agreed
with and the wrong answers accepted; the disagreements and acceptances that matter most; one line
on how far to trust the judge.  `--mb-min-agreement X` and `--mb-max-false-accept Y` make it a
gate: the command exits 1, with one line per shortfall, when the judge's overall agreement is
below X or any kind's false acceptance above Y, so a team can check a new judge model in CI
before trusting its scores.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.judge_check.evaluation import JudgeCheckReport, evaluate_judge
from pytest_memorybench.judge_check.metaeval import ANSWER_CASES_FILE, load_cases
from pytest_memorybench.judge_check.wrong_answers import WRONG_ANSWERS_FILE, load_wrong_answers

WIDTH = 80
MAX_DISAGREEMENTS = 10  # listed by `report_lines`
MAX_ACCEPTED = 10


class _Kinded(Protocol):
    @property
    def kind(self) -> str: ...


T = TypeVar("T", bound=_Kinded)


def describe(kind: str, terms: Mapping[str, Any] | None) -> str:
    """A verdict in label terms, in a few words."""
    if terms is None:
        return "-"
    if kind == "reference":
        return "correct" if terms["correct"] else "not correct"
    if kind == "sentence":
        return "present" if terms["present"] else "absent"
    if kind == "equivalence":
        return "equivalent" if terms["equivalent"] else "not equivalent"
    if kind == "interpretation":
        return "decoded" if terms["valid"] else "not decoded"
    if kind == "directions":
        x, y = terms["end"]
        return f"ends at ({x}, {y})"
    if kind == "restaurant":
        parts = [", ".join(terms["dishes"]), ", ".join(terms["drinks"])]
        return " + ".join(part for part in parts if part) or "orders nothing"
    if kind == "items":
        credits = " ".join(f"{value:g}" for value in terms["matching"]) or "none"
        extra = f" +{terms['extra']} extra" if terms.get("extra") else ""
        head = "abstains" if terms["abstains"] else f"credits {credits}{extra}"
        return f"{head}, F1 {terms['f1']:.2f}"
    if kind == "order":
        return "[" + ", ".join(str(index) for index in terms["predicted_indexes"]) + "]"
    if kind == "nugget":
        return f"score {terms['score']:g}"
    return json.dumps(dict(terms), ensure_ascii=False)


def _fit(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def _percent(rate: float) -> str:
    return f"{rate * 100:.1f}%"


def interpretation(report: JudgeCheckReport) -> str:
    """One line (at most 80 columns) on how far to trust the judge."""
    if not report.total:
        return "no cases were judged: nothing is measured"
    rate = report.agreement
    weakest = min(report.kinds.values(), key=lambda kind: (kind.rate, kind.kind))
    loosest = max(report.false_accepts.values(), key=lambda kind: (kind.rate, kind.kind), default=None)
    if loosest is not None and loosest.rate > LOOSE_FALSE_ACCEPT:
        advice = f"accepts wrong {loosest.kind} answers ({loosest.rate * 100:.0f}%)"
    elif rate >= 0.9:
        advice = "close to the human labels; trust its scores"
    elif rate >= 0.75:
        advice = f"fine for most uses; spot-check {weakest.kind} verdicts"
    elif rate >= 0.6:
        advice = f"a rough guide only; weakest on {weakest.kind} ({weakest.rate * 100:.0f}%)"
    else:
        advice = "too far from the human labels to trust"
    head = f"agreement {rate * 100:.0f}% with "
    room = WIDTH - len(head) - len(advice) - 2
    return f"{head}{_fit(report.judge, max(room, 8))}: {advice}"[:WIDTH]


def _round_robin(items: Sequence[Any]) -> list[Any]:
    """Items taking turns by kind, so a short list shows every kind's weak spots."""
    by_kind: dict[str, list[Any]] = {}
    for item in items:
        by_kind.setdefault(item.kind, []).append(item)
    queues = list(by_kind.values())
    result: list[Any] = []
    for turn in range(max((len(queue) for queue in queues), default=0)):
        result.extend(queue[turn] for queue in queues if turn < len(queue))
    return result


def report_lines(
    report: JudgeCheckReport, *, max_disagreements: int = MAX_DISAGREEMENTS, max_accepted: int = MAX_ACCEPTED
) -> list[str]:
    """The report as a table of lines of at most 80 columns.

    Per kind: labelled cases, agreed, agreement; wrong answers, accepted, false acceptance.  Then
    the overall line; the items' per-item credit agreement; up to `max_disagreements`
    disagreements and `max_accepted` accepted wrong answers (taking turns by kind); a one-line
    interpretation.
    """
    wrong = sum(kind.total for kind in report.false_accepts.values())
    lines = [
        _fit(f"judge check of {report.judge}: {report.total} labelled cases, {wrong} wrong answers", WIDTH),
        (
            f"{'kind':<14}{'cases':>6}{'agreed':>7}{'agreement':>10}"
            f"{'wrong':>8}{'accepted':>9}{'false accept':>14}"
        ),
    ]
    for kind in dict.fromkeys([*report.kinds, *report.false_accepts]):
        line = f"{kind:<14}"
        tally = report.kinds.get(kind)
        line += (
            f"{tally.total:>6}{tally.agreed:>7}{_percent(tally.rate):>10}"
            if tally
            else f"{'-':>6}{'':>7}{'':>10}"
        )
        false = report.false_accepts.get(kind)
        line += f"{false.total:>8}{false.accepted:>9}{_percent(false.rate):>14}" if false else f"{'-':>8}"
        lines.append(line.rstrip())
    accepted = sum(kind.accepted for kind in report.false_accepts.values())
    overall = f"{'overall':<14}{report.total:>6}{report.agreed:>7}{_percent(report.agreement):>10}"
    lines.append(overall + (f"{wrong:>8}{accepted:>9}{_percent(accepted / wrong):>14}" if wrong else ""))
    agreed, total = report.item_credits
    if total:
        lines.append(f"items: per-item credits agree for {agreed} of {total} ({_percent(agreed / total)})")
    if report.classes:
        lines.extend(_class_lines(report))
    if report.disagreements:
        shown = _round_robin(report.disagreements)[:max_disagreements]
        more = f", first {len(shown)} shown" if len(shown) < len(report.disagreements) else ""
        lines.append(f"disagreements: {len(report.disagreements)}{more}")
        lines.append(f"  {'case':<15} {'human':<31} judge")
        for item in shown:
            judge_said = f"error: {item.error}" if item.error else describe(item.kind, item.got)
            head = f"  {_fit(item.id, 15):<15} {_fit(describe(item.kind, item.expected), 31):<31} "
            lines.append(head + _fit(judge_said, WIDTH - len(head)))
    elif report.total:
        lines.append("disagreements: none")
    if report.accepted:
        shown = _round_robin(report.accepted)[:max_accepted]
        more = f", first {len(shown)} shown" if len(shown) < len(report.accepted) else ""
        lines.append(
            f"wrong answers accepted: {len(report.accepted)}{more} (ids in {WRONG_ANSWERS_FILE.name})"
        )
        lines.extend("  " + _fit(f"{item.id:<24} {item.trap}", WIDTH - 2) for item in shown)
    elif wrong:
        lines.append("wrong answers accepted: none")
    lines.append(interpretation(report))
    return lines


def _class_lines(report: JudgeCheckReport) -> list[str]:
    """LoCoMo's and LongMemEval's answers by class: agreement, and the wrong ones accepted."""
    wrong = report.classes_wrong
    lines = [f"answers by class ({ANSWER_CASES_FILE.name}; styled: answer_styles.py):"]
    lines.extend(
        f"  {name:<30}{tally.total:>6}{tally.agreed:>7}{_percent(tally.rate):>10}"
        for name, tally in sorted(report.classes.items())
    )
    if wrong.total:
        lines.append(
            f"  wrong answers among them accepted: {wrong.accepted} of {wrong.total} ({_percent(wrong.rate)})"
        )
    return lines


def shortfalls(
    report: JudgeCheckReport, min_agreement: float | None, max_false_accept: float | None
) -> list[str]:
    """One line per way the judge falls short of the gate (empty when it passes or there is no gate)."""
    found = []
    if min_agreement is not None and report.agreement < min_agreement:
        found.append(
            f"agreement {_percent(report.agreement)} with the human labels is below --mb-min-agreement"
            f" {_percent(min_agreement)}"
        )
    if max_false_accept is not None:
        for tally in report.false_accepts.values():
            if tally.rate > max_false_accept:
                found.append(
                    f"{tally.kind}: accepts {tally.accepted} of {tally.total} wrong answers"
                    f" ({_percent(tally.rate)}), above --mb-max-false-accept {_percent(max_false_accept)}"
                )
    return found


def spread(records: Sequence[T], per_kind: int | None) -> list[T]:
    """At most `per_kind` records of each kind, evenly spaced through that kind's (all when None)."""
    if per_kind is None:
        return list(records)
    by_kind: dict[str, list[T]] = {}
    for record in records:
        by_kind.setdefault(record.kind, []).append(record)
    chosen = {
        id(group[index * len(group) // per_kind])
        for group in by_kind.values()
        for index in range(min(per_kind, len(group)))
    }
    return [record for record in records if id(record) in chosen]


PROGRESS_SECONDS = 5.0
UNUSABLE_SHARE = 0.5  # a check in which more verdicts than this are errors measures nothing
LOOSE_FALSE_ACCEPT = 0.1  # the interpretation warns above this false acceptance in any kind


def _check_options(min_agreement: float | None, max_false_accept: float | None, sample: int | None) -> None:
    for option, value in (("--mb-min-agreement", min_agreement), ("--mb-max-false-accept", max_false_accept)):
        if value is not None and not 0 <= value <= 1:
            raise usage_error(
                f"{option} {value:g} is not a share: give a number from 0 to 1 (e.g. 0.9 for 90 %)"
            )
    if sample is not None and sample < 1:
        raise usage_error(
            f"--mb-judge-sample {sample} asks nothing: give how many cases per task to ask (1 or more)"
        )


def run_judge_check(
    judge_spec: str,
    cache_path: Path | None,
    write: Callable[[str], None],
    *,
    min_agreement: float | None = None,
    max_false_accept: float | None = None,
    sample: int | None = None,
) -> int:
    """`pytest --mb-judge-check`: score the labelled set and the wrong answers with the chosen judge.

    `sample` asks at most that many labelled cases and that many wrong answers per task, spread
    evenly over each (a quick or cheap check of a slow or paid judge; the figures are then rougher).
    A line every few seconds says how far it is (an LLM judge on a small machine takes minutes).
    Exit 1 when most verdicts were errors (unparseable or failed calls: the figures would measure
    the server, not the judge), or when the judge falls short of the gate, one line per shortfall.
    """
    from pytest_memorybench.judges.spec import build_judge, check_judge_spec, parse_judge_spec

    _check_options(min_agreement, max_false_accept, sample)
    spec = parse_judge_spec(judge_spec)
    check_judge_spec(spec)
    judge = build_judge(spec, cache_path=cache_path)
    last = [time.monotonic()]

    def progress(done: int, total: int, errors: int) -> None:
        if done == total or time.monotonic() - last[0] >= PROGRESS_SECONDS:
            last[0] = time.monotonic()
            write(f"[memorybench] judged {done}/{total}" + (f", {errors} unusable so far" if errors else ""))

    async def check() -> JudgeCheckReport:
        try:
            return await evaluate_judge(
                judge, spread(load_cases(), sample), spread(load_wrong_answers(), sample), progress=progress
            )
        finally:
            await judge.aclose()

    report = asyncio.run(check())
    for line in report_lines(report):
        write(line)
    if report.asked and report.error_count > UNUSABLE_SHARE * report.asked:
        first = (report.errors[0].error if report.errors else report.wrong_errors[0][1]) or "no verdict"
        write(
            f"ERROR: {report.error_count} of {report.asked} verdicts of {report.judge} were unusable "
            f"(first: {_fit(first, 120)}); check the model and the server before trusting this judge"
        )
        return 1
    failures = shortfalls(report, min_agreement, max_false_accept)
    for failure in failures:
        write(f"FAILED judge check: {failure}")
    return 1 if failures else 0
