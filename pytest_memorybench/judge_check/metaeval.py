"""Judge meta-evaluation: how often does a judge agree with a human on labelled cases?

The packaged set (`data/judge_cases.jsonl`, written for this project) holds realistic memory-benchmark
situations, one JSON object a line:

    {"id": "reference-01", "kind": "reference", "payload": {...the task's input payload...},
     "label": {...the human verdict...}, "note": "why a human decides this way"}

`compare(case, verdict)` sets a judge's verdict against the label; `evaluation.evaluate_judge` asks
a judge every case (and the wrong answers), `command` prints the result.  A judge error (an
unparseable reply, an exception, a verdict outside the task's schema) counts as a disagreement.

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

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pytest_memorybench.core.text import fold
from pytest_memorybench.judge_check.answer_styles import styled_answers
from pytest_memorybench.judges.base import TASK_KINDS, JudgeTask
from pytest_memorybench.judges.prompts import check_payload
from pytest_memorybench.judges.replies import SCORES
from pytest_memorybench.judges.verdict_meaning import reference_correct, route_end
from pytest_memorybench.scoring.items_f1 import items_f1


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=_Identified)
CASES_FILE = Path(__file__).parent / "data" / "judge_cases.jsonl"
# LoCoMo's and LongMemEval's answers in the styles pipelines write them, each of a `class`.
ANSWER_CASES_FILE = Path(__file__).parent / "data" / "answer_cases.jsonl"
SCORER = "metaeval"  # the `scorer` of the tasks asked: part of an LLM judge's cache key
F1_TOLERANCE = 0.25  # items: |F1 judge - F1 human| up to this counts as agreement


@dataclass(frozen=True)
class JudgeCase:
    """One labelled case: the task's input payload and the human verdict on it."""

    id: str
    kind: str
    payload: dict[str, Any]
    label: dict[str, Any]
    note: str = ""
    group: str = ""  # the class of answer it stands for ("relative-date", "vague", …), when it has one

    def task(self) -> JudgeTask:
        return JudgeTask(self.kind, self.payload, SCORER)


@dataclass(frozen=True)
class Comparison:
    """A judge verdict set against the label, both in the label's terms (for display)."""

    agree: bool
    expected: dict[str, Any]
    got: dict[str, Any]
    units: tuple[int, int] | None = None  # items: ground-truth items whose credit agrees, of all


# -- loading ------------------------------------------------------------------------------------------


def load_cases(path: str | Path | None = None) -> list[JudgeCase]:
    """The cases of a JSONL file (default: the packaged sets), checked; ValueError names the line."""
    if path is not None:
        return load_jsonl(Path(path), _case)
    return [*load_jsonl(CASES_FILE, _case), *load_jsonl(ANSWER_CASES_FILE, _case), *style_cases()]


def style_cases() -> list[JudgeCase]:
    """The second labelled set of answers, made from templates (`answer_styles.py`)."""
    return [_case(raw) for raw in styled_answers()]


def load_jsonl(path: Path, parse: Callable[[Any], T]) -> list[T]:
    """One record a line, each read by `parse` and with an `id` no other has; ValueError names the line."""
    records: list[T] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = parse(json.loads(line))
            if record.id in seen:
                raise ValueError(f"duplicate id {record.id!r}")
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        seen.add(record.id)
        records.append(record)
    return records


def _case(raw: Any) -> JudgeCase:
    if not isinstance(raw, dict):
        raise ValueError("a case must be a JSON object")
    unknown = set(raw) - {"id", "kind", "payload", "label", "note", "class"}
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
        raise ValueError(
            f"{case_id}: payload field(s) {', '.join(sorted(extra))} are not part of a {kind} task"
        )
    check_label(kind, label, payload)
    group = raw.get("class", "")
    if not isinstance(group, str):
        raise ValueError(f"{case_id}: 'class' must be a string")
    return JudgeCase(case_id, kind, payload, label, note, group)


_BOOLEAN_LABELS = {
    "reference": "correct",
    "sentence": "present",
    "equivalence": "equivalent",
    "interpretation": "valid",
    "answer": "correct",
}


Need = Callable[[bool, str], None]


def check_label(kind: str, label: Mapping[str, Any], payload: Mapping[str, Any]) -> None:
    """ValueError unless `label` is a well-formed human verdict for this kind and payload."""

    def need(condition: bool, what: str) -> None:
        if not condition:
            raise ValueError(f"{kind} label {json.dumps(label, ensure_ascii=False)}: {what}")

    if kind in _BOOLEAN_LABELS:
        name = _BOOLEAN_LABELS[kind]
        need(set(label) == {name} and isinstance(label[name], bool), f"must be {{{name!r}: true | false}}")
        return
    rule = _LABEL_RULES.get(kind)
    if rule is None:  # pragma: no cover - TASK_KINDS and these rules move together
        raise ValueError(f"no label rule for kind {kind!r}")
    rule(need, label, payload)


def _directions_label(need: Need, label: Mapping[str, Any], payload: Mapping[str, Any]) -> None:
    end = label.get("end")
    need(
        set(label) == {"end"}
        and isinstance(end, list)
        and len(end) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in end),
        "must be {'end': [x, y]} in whole km",
    )


def _restaurant_label(need: Need, label: Mapping[str, Any], payload: Mapping[str, Any]) -> None:
    need(set(label) == {"dishes", "drinks"}, "must be {'dishes': [...], 'drinks': [...]}")
    for name, known in (("dishes", payload["menu"]), ("drinks", payload["drinks"])):
        need(
            isinstance(label[name], list) and all(isinstance(v, str) for v in label[name]),
            f"{name!r} must list names",
        )
        folded = {fold(item) for item in known}
        need(all(fold(item) in folded for item in label[name]), f"{name!r} must use names from the payload")


def _items_label(need: Need, label: Mapping[str, Any], payload: Mapping[str, Any]) -> None:
    keys = set(label)
    need(
        keys <= {"matching", "abstains", "extra"} and {"matching", "abstains"} <= keys,
        "must be {'matching': [...], 'abstains': bool, 'extra': int (optional)}",
    )
    matching, abstaining, extra = label["matching"], label["abstains"], label.get("extra", 0)
    need(
        isinstance(matching, list) and len(matching) == len(payload["ground_truth"]),
        "'matching' needs one credit per ground-truth item",
    )
    need(all(not isinstance(v, bool) and v in SCORES for v in matching), "credits must be 0, 0.5 or 1")
    need(isinstance(abstaining, bool), "'abstains' must be true or false")
    need(isinstance(extra, int) and not isinstance(extra, bool) and extra >= 0, "'extra' must be a count")
    names_something = any(v > 0 for v in matching) or extra > 0
    need(abstaining != names_something, "'abstains' is true exactly when no item is credited or extra")


def _order_label(need: Need, label: Mapping[str, Any], payload: Mapping[str, Any]) -> None:
    indexes = label.get("predicted_indexes")
    size = len(payload["ground_truth"])
    need(
        set(label) == {"predicted_indexes"} and isinstance(indexes, list),
        "must be {'predicted_indexes': [...]}",
    )
    assert isinstance(indexes, list)
    need(len(indexes) == len(payload["predicted"]), "one index per predicted item")
    need(
        all(isinstance(v, int) and not isinstance(v, bool) and -1 <= v < size for v in indexes),
        "indexes must be -1 or a ground-truth index",
    )
    used = [v for v in indexes if v != -1]
    need(len(used) == len(set(used)), "a ground-truth index can be used once")


def _nugget_label(need: Need, label: Mapping[str, Any], payload: Mapping[str, Any]) -> None:
    score = label.get("score")
    need(
        set(label) == {"score"} and not isinstance(score, bool) and score in SCORES,
        "must be {'score': 0 | 0.5 | 1}",
    )


_LABEL_RULES: dict[str, Callable[[Need, Mapping[str, Any], Mapping[str, Any]], None]] = {
    "directions": _directions_label,
    "restaurant": _restaurant_label,
    "items": _items_label,
    "order": _order_label,
    "nugget": _nugget_label,
}


# -- comparison rules, one per kind -------------------------------------------------------------------


def _compare_reference(
    label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]
) -> Comparison:
    got = reference_correct(data)
    return Comparison(got == label["correct"], dict(label), {"correct": got})


def _compare_sentence(
    label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]
) -> Comparison:
    got = bool(data["present"])
    return Comparison(got == label["present"], dict(label), {"present": got})


def _compare_directions(
    label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]
) -> Comparison:
    got = route_end(data["hops"])
    return Comparison(got == list(label["end"]), dict(label), {"end": got})


def _compare_restaurant(
    label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]
) -> Comparison:
    agree = all(
        {fold(v) for v in data[name]} == {fold(v) for v in label[name]} for name in ("dishes", "drinks")
    )
    return Comparison(agree, dict(label), {"dishes": list(data["dishes"]), "drinks": list(data["drinks"])})


def human_items_f1(label: Mapping[str, Any], ground_truth: Sequence[str]) -> float:
    """The F1 the human verdict gives: credited items (plus `extra` placeholders) as identified."""
    if label["abstains"]:
        identified: list[str] = []
    else:
        identified = [
            item for item, credit in zip(ground_truth, label["matching"], strict=True) if credit > 0
        ]
        identified += [f"(extra item {number})" for number in range(1, label.get("extra", 0) + 1)]
    return items_f1(identified, label["matching"], ground_truth).value


def _compare_items(
    label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]
) -> Comparison:
    ground_truth = [str(item) for item in payload["ground_truth"]]
    matching = list(data["matching"])
    judge_f1 = items_f1(list(data["identified"]), matching, ground_truth).value
    human_f1 = human_items_f1(label, ground_truth)
    abstaining = not data["identified"]
    agree = abstaining == label["abstains"] and abs(judge_f1 - human_f1) <= F1_TOLERANCE + 1e-9
    same = sum(1 for mine, theirs in zip(matching, label["matching"], strict=True) if mine == theirs)
    expected = {**label, "f1": round(human_f1, 3)}
    got = {"matching": matching, "abstains": abstaining, "f1": round(judge_f1, 3)}
    return Comparison(agree, expected, got, (same, len(ground_truth)))


def _compare_order(
    label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]
) -> Comparison:
    got = [int(index) for index in data["predicted_indexes"]]
    return Comparison(got == list(label["predicted_indexes"]), dict(label), {"predicted_indexes": got})


def _compare_nugget(
    label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]
) -> Comparison:
    got = data["score"]
    return Comparison(float(got) == float(label["score"]), dict(label), {"score": got})


def _compare_equivalence(
    label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]
) -> Comparison:
    got = bool(data["equivalent"])
    return Comparison(got == label["equivalent"], dict(label), {"equivalent": got})


def _compare_interpretation(
    label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]
) -> Comparison:
    got = bool(data["valid"])
    return Comparison(got == label["valid"], dict(label), {"valid": got})


def _compare_answer(
    label: Mapping[str, Any], data: Mapping[str, Any], payload: Mapping[str, Any]
) -> Comparison:
    got = bool(data["correct"])
    return Comparison(got == label["correct"], dict(label), {"correct": got})


COMPARATORS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]], Comparison]] = {
    "reference": _compare_reference,
    "sentence": _compare_sentence,
    "directions": _compare_directions,
    "restaurant": _compare_restaurant,
    "items": _compare_items,
    "order": _compare_order,
    "nugget": _compare_nugget,
    "equivalence": _compare_equivalence,
    "interpretation": _compare_interpretation,
    "answer": _compare_answer,
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
        hops: list[dict[str, Any]] = []
        for amount, positive, negative in ((x, "east", "west"), (y, "north", "south")):
            if amount:
                origin = places[len(hops) % len(places)]
                destination = places[(len(hops) + 1) % len(places)]
                hops.append(
                    {
                        "origin": origin,
                        "kilometers": abs(amount),
                        "direction": positive if amount > 0 else negative,
                        "destination": destination,
                    }
                )
        return {"hops": hops}
    if kind == "restaurant":
        return {"dishes": list(label["dishes"]), "drinks": list(label["drinks"]), "other": None}
    if kind == "items":
        ground_truth = [str(item) for item in payload["ground_truth"]]
        identified: list[str] = []
        if not label["abstains"]:
            identified = [
                item for item, credit in zip(ground_truth, label["matching"], strict=True) if credit > 0
            ]
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
    if kind == "answer":
        return {"correct": label["correct"]}
    raise ValueError(f"unknown judge task {kind!r}")
