"""Judge meta-evaluation: how often does a judge agree with a human on labelled cases?

The packaged set (`data/judge_cases.jsonl`, written for this project) holds realistic memory-benchmark
situations, one JSON object a line:

    {"id": "reference-01", "kind": "reference", "payload": {...the task's input payload...},
     "label": {...the human verdict...}, "note": "why a human decides this way"}

`evaluate_judge(judge, cases)` asks the judge every case and compares its verdict with the label;
`report_lines(report)` prints the result as a short table.  A judge error (an unparseable reply, an
exception, a verdict outside the task's schema) counts as a disagreement and is listed.

Labels and comparison rules, one small function per kind (`compare_<kind>`):

  reference    {"correct": bool}.  The judge is right when GoodAI's rule, applied to its verdict
               (refers and not (expected_is_number and numbers_match is false) — the rule
               `scoring.judged.score_reference` applies), gives the same answer.
  sentence     {"present": bool}, compared with the verdict's "present".
  directions   {"end": [x, y]}: where the described route ends, walking from (0, 0) with north = +y
               and east = +x, in km.  The judge's hops are walked the same way and the end points
               must be equal; the place names it gives are not compared (two routes to the same
               point score the same in the benchmark).  No route at all ends at [0, 0].
  restaurant   {"dishes": [...], "drinks": [...]}: what the diner orders, by menu / drink name.
               Both are compared as sets, ignoring case and spacing; "other" is not compared.
  items        {"matching": [0 | 0.5 | 1 per ground-truth item], "abstains": bool, "extra": int}.
               "abstains" means the answer names no item at all (declines, says there is none);
               "extra" (default 0) counts the items it lists that are not in the ground truth.
               The human F1 is `scoring.items.items_f1` with the credited ground-truth items plus
               `extra` placeholders as identified ([] when abstaining); the judge's F1 is the same
               function on its own verdict, and it abstains when it identified nothing.
               A case agrees when both abstain or neither does and |F1 judge - F1 human| <= 0.25.
               Item-level agreement (the judge's credit equals the human's, per ground-truth item)
               is reported next to it.
  order        {"predicted_indexes": [...]}, compared exactly, -1 entries included: a predicted item
               the human leaves unmatched must be unmatched by the judge too (both lists have one
               entry per predicted item, so no dropping is needed to align them).
  nugget       {"score": 0 | 0.5 | 1}, compared exactly.
  equivalence  {"equivalent": bool}, compared with the verdict's "equivalent".
  interpretation {"valid": bool}, compared with the verdict's "valid".
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import describe_exception
from pytest_memorybench.judges.base import TASK_KINDS, UNPARSEABLE, Judge, JudgeTask
from pytest_memorybench.judges.prompts import SCORES, check_payload, validate
from pytest_memorybench.scoring.items import items_f1

CASES_FILE = Path(__file__).parent / "data" / "judge_cases.jsonl"
SCORER = "metaeval"  # the `scorer` of the tasks asked: part of an LLM judge's cache key
F1_TOLERANCE = 0.25  # items: |F1 judge - F1 human| up to this counts as agreement
MAX_DISAGREEMENTS = 10  # listed by `report_lines`
WIDTH = 80

_STEPS = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}


@dataclass(frozen=True)
class JudgeCase:
    """One labelled case: the task's input payload and the human verdict on it."""

    id: str
    kind: str
    payload: dict[str, Any]
    label: dict[str, Any]
    note: str = ""

    def task(self) -> JudgeTask:
        return JudgeTask(self.kind, self.payload, SCORER)


@dataclass(frozen=True)
class Comparison:
    """A judge verdict set against the label, both in the label's terms (for display)."""

    agree: bool
    expected: dict[str, Any]
    got: dict[str, Any]
    units: tuple[int, int] | None = None  # items: ground-truth items whose credit agrees, of all


@dataclass(frozen=True)
class Disagreement:
    id: str
    kind: str
    expected: dict[str, Any]  # the human label, in display terms (items: with its F1)
    got: dict[str, Any] | None  # the judge's verdict in the label's terms; None after an error
    error: str | None = None


@dataclass
class KindAgreement:
    kind: str
    agreed: int = 0
    total: int = 0

    @property
    def rate(self) -> float:
        return self.agreed / self.total if self.total else 0.0


@dataclass
class JudgeCheckReport:
    """Agreement of one judge with the human labels, per task kind and overall."""

    judge: str
    kinds: dict[str, KindAgreement] = field(default_factory=dict)  # in TASK_KINDS order
    disagreements: list[Disagreement] = field(default_factory=list)
    item_credits: tuple[int, int] = (0, 0)  # items: per-ground-truth-item credits agreed, of all

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


# -- loading ------------------------------------------------------------------------------------------


def load_cases(path: str | Path | None = None) -> list[JudgeCase]:
    """The cases of a JSONL file (default: the packaged set), checked; ValueError names the line."""
    path = Path(path) if path is not None else CASES_FILE
    cases: list[JudgeCase] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            case = _case(json.loads(line))
            if case.id in seen:
                raise ValueError(f"duplicate id {case.id!r}")
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        seen.add(case.id)
        cases.append(case)
    return cases


def _case(raw: Any) -> JudgeCase:
    if not isinstance(raw, dict):
        raise ValueError("a case must be a JSON object")
    unknown = set(raw) - {"id", "kind", "payload", "label", "note"}
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(sorted(unknown))}")
    case_id, kind = raw.get("id"), raw.get("kind")
    if not isinstance(case_id, str) or not case_id:
        raise ValueError("'id' must be a non-empty string")
    if kind not in TASK_KINDS:
        raise ValueError(f"{case_id}: unknown kind {kind!r}")
    payload, label, note = raw.get("payload"), raw.get("label"), raw.get("note", "")
    if not isinstance(payload, dict) or not isinstance(label, dict) or not isinstance(note, str):
        raise ValueError(f"{case_id}: 'payload' and 'label' must be objects, 'note' a string")
    prompt = check_payload(kind, payload)
    extra = set(payload) - set(prompt.fields)
    if extra:
        raise ValueError(f"{case_id}: payload field(s) {', '.join(sorted(extra))} are not part of a {kind} task")
    check_label(kind, label, payload)
    return JudgeCase(case_id, kind, payload, label, note)


_BOOLEAN_LABELS = {"reference": "correct", "sentence": "present", "equivalence": "equivalent", "interpretation": "valid"}


def check_label(kind: str, label: Mapping[str, Any], payload: Mapping[str, Any]) -> None:
    """ValueError unless `label` is a well-formed human verdict for this kind and payload."""

    def need(condition: bool, what: str) -> None:
        if not condition:
            raise ValueError(f"{kind} label {json.dumps(label, ensure_ascii=False)}: {what}")

    keys = set(label)
    if kind in _BOOLEAN_LABELS:
        name = _BOOLEAN_LABELS[kind]
        need(keys == {name} and isinstance(label[name], bool), f"must be {{{name!r}: true | false}}")
    elif kind == "directions":
        end = label.get("end")
        need(keys == {"end"} and isinstance(end, list) and len(end) == 2
             and all(isinstance(v, int) and not isinstance(v, bool) for v in end), "must be {'end': [x, y]} in whole km")
    elif kind == "restaurant":
        need(keys == {"dishes", "drinks"}, "must be {'dishes': [...], 'drinks': [...]}")
        for name, known in (("dishes", payload["menu"]), ("drinks", payload["drinks"])):
            need(isinstance(label[name], list) and all(isinstance(v, str) for v in label[name]), f"{name!r} must list names")
            folded = {_fold(item) for item in known}
            need(all(_fold(item) in folded for item in label[name]), f"{name!r} must use names from the payload")
    elif kind == "items":
        need(keys <= {"matching", "abstains", "extra"} and {"matching", "abstains"} <= keys,
             "must be {'matching': [...], 'abstains': bool, 'extra': int (optional)}")
        matching, abstaining, extra = label["matching"], label["abstains"], label.get("extra", 0)
        need(isinstance(matching, list) and len(matching) == len(payload["ground_truth"]),
             "'matching' needs one credit per ground-truth item")
        need(all(not isinstance(v, bool) and v in SCORES for v in matching), "credits must be 0, 0.5 or 1")
        need(isinstance(abstaining, bool), "'abstains' must be true or false")
        need(isinstance(extra, int) and not isinstance(extra, bool) and extra >= 0, "'extra' must be a count")
        names_something = any(v > 0 for v in matching) or extra > 0
        need(abstaining != names_something, "'abstains' is true exactly when no item is credited or extra")
    elif kind == "order":
        indexes = label.get("predicted_indexes")
        size = len(payload["ground_truth"])
        need(keys == {"predicted_indexes"} and isinstance(indexes, list), "must be {'predicted_indexes': [...]}")
        need(len(indexes) == len(payload["predicted"]), "one index per predicted item")
        need(all(isinstance(v, int) and not isinstance(v, bool) and -1 <= v < size for v in indexes),
             "indexes must be -1 or a ground-truth index")
        used = [v for v in indexes if v != -1]
        need(len(used) == len(set(used)), "a ground-truth index can be used once")
    elif kind == "nugget":
        score = label.get("score")
        need(keys == {"score"} and not isinstance(score, bool) and score in SCORES, "must be {'score': 0 | 0.5 | 1}")
    else:  # pragma: no cover - TASK_KINDS and this function move together
        raise ValueError(f"no label rule for kind {kind!r}")


# -- comparison rules, one per kind -------------------------------------------------------------------


def _fold(name: str) -> str:
    return " ".join(str(name).split()).casefold()


def reference_correct(data: Mapping[str, Any]) -> bool:
    """GoodAI's rule on a reference verdict, exactly as `score_reference` applies it."""
    numeric, match = bool(data.get("expected_is_number")), data.get("numbers_match")
    return bool(data["refers"]) and not (numeric and match is False)


def compare_reference(label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]) -> Comparison:
    got = reference_correct(data)
    return Comparison(got == label["correct"], dict(label), {"correct": got})


def compare_sentence(label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]) -> Comparison:
    got = bool(data["present"])
    return Comparison(got == label["present"], dict(label), {"present": got})


def route_end(hops: Iterable[Mapping[str, Any]]) -> list[int]:
    """Where the hops lead from (0, 0): north = +y, east = +x."""
    x = y = 0
    for hop in hops:
        dx, dy = _STEPS[str(hop["direction"]).lower()]
        x, y = x + dx * int(hop["kilometers"]), y + dy * int(hop["kilometers"])
    return [x, y]


def compare_directions(label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]) -> Comparison:
    got = route_end(data["hops"])
    return Comparison(got == list(label["end"]), dict(label), {"end": got})


def compare_restaurant(label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]) -> Comparison:
    agree = all({_fold(v) for v in data[name]} == {_fold(v) for v in label[name]} for name in ("dishes", "drinks"))
    return Comparison(agree, dict(label), {"dishes": list(data["dishes"]), "drinks": list(data["drinks"])})


def human_items_f1(label: Mapping[str, Any], ground_truth: Sequence[str]) -> float:
    """The F1 the human verdict gives: credited items (plus `extra` placeholders) as identified."""
    if label["abstains"]:
        identified: list[str] = []
    else:
        identified = [item for item, credit in zip(ground_truth, label["matching"]) if credit > 0]
        identified += [f"(extra item {number})" for number in range(1, label.get("extra", 0) + 1)]
    return items_f1(identified, label["matching"], ground_truth).value


def compare_items(label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]) -> Comparison:
    ground_truth = [str(item) for item in payload["ground_truth"]]
    matching = list(data["matching"])
    judge_f1 = items_f1(list(data["identified"]), matching, ground_truth).value
    human_f1 = human_items_f1(label, ground_truth)
    abstaining = not data["identified"]
    agree = abstaining == label["abstains"] and abs(judge_f1 - human_f1) <= F1_TOLERANCE + 1e-9
    same = sum(1 for mine, theirs in zip(matching, label["matching"]) if mine == theirs)
    expected = {**label, "f1": round(human_f1, 3)}
    got = {"matching": matching, "abstains": abstaining, "f1": round(judge_f1, 3)}
    return Comparison(agree, expected, got, (same, len(ground_truth)))


def compare_order(label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]) -> Comparison:
    got = [int(index) for index in data["predicted_indexes"]]
    return Comparison(got == list(label["predicted_indexes"]), dict(label), {"predicted_indexes": got})


def compare_nugget(label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]) -> Comparison:
    got = data["score"]
    return Comparison(float(got) == float(label["score"]), dict(label), {"score": got})


def compare_equivalence(label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]) -> Comparison:
    got = bool(data["equivalent"])
    return Comparison(got == label["equivalent"], dict(label), {"equivalent": got})


def compare_interpretation(label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]) -> Comparison:
    got = bool(data["valid"])
    return Comparison(got == label["valid"], dict(label), {"valid": got})


COMPARATORS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]], Comparison]] = {
    "reference": compare_reference,
    "sentence": compare_sentence,
    "directions": compare_directions,
    "restaurant": compare_restaurant,
    "items": compare_items,
    "order": compare_order,
    "nugget": compare_nugget,
    "equivalence": compare_equivalence,
    "interpretation": compare_interpretation,
}
assert set(COMPARATORS) == set(TASK_KINDS)


def compare(case: JudgeCase, data: Mapping[str, Any]) -> Comparison:
    """The judge's verdict data (in the task's output schema) against the case's label."""
    return COMPARATORS[case.kind](case.label, data, case.payload)


def label_verdict(kind: str, label: Mapping[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    """A verdict in the task's output schema that a judge agreeing with the human would give.

    It documents what each label means in output terms, and makes an oracle judge for tests.
    """
    if kind == "reference":
        return {"refers": label["correct"], "expected_is_number": False, "numbers_match": None}
    if kind == "sentence":
        return {"present": label["present"], "extracted": payload["sentence"] if label["present"] else None}
    if kind == "directions":
        places = [str(place) for place in payload["places"]] or ["start", "end"]
        x, y = label["end"]
        hops = []
        for amount, positive, negative in ((x, "east", "west"), (y, "north", "south")):
            if amount:
                origin = places[len(hops) % len(places)]
                destination = places[(len(hops) + 1) % len(places)]
                hops.append({"origin": origin, "kilometers": abs(amount),
                             "direction": positive if amount > 0 else negative, "destination": destination})
        return {"hops": hops}
    if kind == "restaurant":
        return {"dishes": list(label["dishes"]), "drinks": list(label["drinks"]), "other": None}
    if kind == "items":
        ground_truth = [str(item) for item in payload["ground_truth"]]
        identified: list[str] = []
        if not label["abstains"]:
            identified = [item for item, credit in zip(ground_truth, label["matching"]) if credit > 0]
            identified += [f"(extra item {number})" for number in range(1, label.get("extra", 0) + 1)]
        return {"identified": identified, "matching": list(label["matching"])}
    if kind == "order":
        return {"predicted_indexes": list(label["predicted_indexes"])}
    if kind == "nugget":
        return {"score": label["score"]}
    if kind == "equivalence":
        return {"equivalent": label["equivalent"]}
    if kind == "interpretation":
        return {"valid": label["valid"]}
    raise ValueError(f"unknown judge task {kind!r}")


# -- running ------------------------------------------------------------------------------------------


async def evaluate_judge(
    judge: Judge,
    cases: Sequence[JudgeCase] | None = None,
    *,
    concurrency: int = 8,
    progress: Callable[[int, int, int], None] | None = None,
) -> JudgeCheckReport:
    """Ask `judge` every case (default: the packaged set) and measure its agreement with the labels.

    At most `concurrency` cases are in flight (a `CachedJudge` bounds its own calls too).  A judge
    that raises, returns an error verdict or a verdict outside the task's schema disagrees, and the
    error is kept in the disagreement.  `progress(done, total, errors)` hears of every finished case.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    cases = load_cases() if cases is None else list(cases)
    semaphore = asyncio.Semaphore(concurrency)
    finished = [0, 0]  # cases done, of which errors

    async def one(case: JudgeCase) -> tuple[Comparison | None, str | None]:
        result = await judged(case)
        finished[0] += 1
        finished[1] += result[1] is not None
        if progress is not None:
            progress(finished[0], len(cases), finished[1])
        return result

    async def judged(case: JudgeCase) -> tuple[Comparison | None, str | None]:
        async with semaphore:
            try:
                verdict = await judge.judge(case.task())
            except Exception as exc:  # noqa: BLE001 - a failing judge costs the case, not the run
                return None, f"judge-error: {describe_exception(exc)}"
        if not verdict.ok:
            return None, verdict.error or "the judge gave no verdict"
        try:
            data = validate(case.kind, verdict.data, case.payload)
        except ValueError as exc:
            return None, f"{UNPARSEABLE}: {exc}"
        try:
            return compare(case, data), None
        except (KeyError, TypeError, ValueError) as exc:  # a verdict validate() let through but the rule cannot read
            return None, f"{UNPARSEABLE}: {describe_exception(exc)}"

    results = await asyncio.gather(*(one(case) for case in cases))
    report = JudgeCheckReport(str(getattr(judge, "name", type(judge).__name__)))
    present = {case.kind for case in cases}
    report.kinds = {kind: KindAgreement(kind) for kind in TASK_KINDS if kind in present}
    credits_agreed = credits_total = 0
    for case, (comparison, error) in zip(cases, results):
        tally = report.kinds[case.kind]
        tally.total += 1
        if case.kind == "items":
            credits_total += len(case.payload["ground_truth"])
            credits_agreed += comparison.units[0] if comparison is not None and comparison.units else 0
        if comparison is not None and comparison.agree:
            tally.agreed += 1
            continue
        expected = comparison.expected if comparison is not None else _display_label(case)
        got = comparison.got if comparison is not None else None
        report.disagreements.append(Disagreement(case.id, case.kind, expected, got, error))
    report.item_credits = (credits_agreed, credits_total)
    return report


def _display_label(case: JudgeCase) -> dict[str, Any]:
    if case.kind == "items":
        return {**case.label, "f1": round(human_items_f1(case.label, [str(v) for v in case.payload["ground_truth"]]), 3)}
    return dict(case.label)


# -- the report ---------------------------------------------------------------------------------------


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
    if rate >= 0.9:
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


def _round_robin(disagreements: Sequence[Disagreement]) -> list[Disagreement]:
    """Disagreements taking turns by kind, so a short list shows every kind's weak spots."""
    by_kind: dict[str, list[Disagreement]] = {}
    for item in disagreements:
        by_kind.setdefault(item.kind, []).append(item)
    queues = list(by_kind.values())
    result = []
    for turn in range(max((len(queue) for queue in queues), default=0)):
        result.extend(queue[turn] for queue in queues if turn < len(queue))
    return result


def report_lines(report: JudgeCheckReport, *, max_disagreements: int = MAX_DISAGREEMENTS) -> list[str]:
    """The report as a table of lines of at most 80 columns.

    Kinds, cases, agreement; the overall line; the items' per-item credit agreement; up to
    `max_disagreements` disagreements (taking turns by kind); a one-line interpretation.
    """
    lines = [
        _fit(f"judge meta-evaluation of {report.judge}: {report.total} labelled cases", WIDTH),
        f"{'kind':<14}{'cases':>7}{'agreed':>8}{'agreement':>11}",
    ]
    for tally in report.kinds.values():
        lines.append(f"{tally.kind:<14}{tally.total:>7}{tally.agreed:>8}{_percent(tally.rate):>11}")
    lines.append(f"{'overall':<14}{report.total:>7}{report.agreed:>8}{_percent(report.agreement):>11}")
    agreed, total = report.item_credits
    if total:
        lines.append(f"items: per-item credits agree for {agreed} of {total} ({_percent(agreed / total)})")
    if report.disagreements:
        shown = _round_robin(report.disagreements)[:max_disagreements]
        more = f", first {len(shown)} shown" if len(shown) < len(report.disagreements) else ""
        lines.append(f"disagreements: {len(report.disagreements)}{more}")
        lines.append(f"  {'case':<15} {'human':<31} judge")
        for item in shown:
            judge_said = f"error: {item.error}" if item.error else describe(item.kind, item.got)
            head = f"  {_fit(item.id, 15):<15} {_fit(describe(item.kind, item.expected), 31):<31} "
            lines.append(head + _fit(judge_said, WIDTH - len(head)))
    else:
        lines.append("disagreements: none")
    lines.append(interpretation(report))
    return lines


PROGRESS_SECONDS = 5.0
UNUSABLE_SHARE = 0.5  # a check in which more verdicts than this are errors measures nothing


def run_judge_check(judge_spec: str, cache_path: Path | None, write: Callable[[str], None]) -> int:
    """`pytest --mb-judge-check`: score the labelled set with the chosen judge and print agreement.

    A line every few seconds says how far it is (an LLM judge on a small machine takes minutes).
    Exit 1 when most verdicts were errors (unparseable or failed calls): the agreement figure would
    measure the server, not the judge, and one line says so.
    """
    from pytest_memorybench.judges.spec import build_judge, check_judge_spec, parse_judge_spec

    spec = parse_judge_spec(judge_spec)
    check_judge_spec(spec)
    judge = build_judge(spec, cache_path=cache_path)
    last = [time.monotonic()]

    def progress(done: int, total: int, errors: int) -> None:
        if done == total or time.monotonic() - last[0] >= PROGRESS_SECONDS:
            last[0] = time.monotonic()
            write(f"[memorybench] judged {done}/{total} cases" + (f", {errors} unusable so far" if errors else ""))

    async def check() -> JudgeCheckReport:
        try:
            return await evaluate_judge(judge, progress=progress)
        finally:
            await judge.aclose()

    report = asyncio.run(check())
    for line in report_lines(report):
        write(line)
    if report.total and len(report.errors) > UNUSABLE_SHARE * report.total:
        first = report.errors[0].error or "no verdict"
        write(
            f"ERROR: {len(report.errors)} of {report.total} verdicts of {report.judge} were unusable "
            f"(first: {_fit(first, 120)}); check the model and the server before trusting this judge"
        )
        return 1
    return 0
