"""What a report shows of one item, in words, and report.html's items as one data block.

A run of LoCoMo's whole file has 1,986 items; drawn as markup they made a 10 MB page with no way to
find one.  So report.html holds the items once, as a JSON block its script
(templates/report_items.js) filters and draws fifty at a time, as compare.html does; texts that
recur (the memories a search returned, a transcript's messages) are stored once and pointed at.
`item_view` is the one place that puts an item into words: the pytest-html extras render it with
the `item_body` macro, report.html's script draws the same fields.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from pytest_memorybench.reports.judging import item_judging_text
from pytest_memorybench.reports.paged import TextTable, place_choices
from pytest_memorybench.reports.summary import compact_count
from pytest_memorybench.reports.transcript import Entry, TranscriptTurn
from pytest_memorybench.reports.words import excerpt, plain

OPEN_FAILURES = 5  # with more failed items than this, the page opens none of them
PREVIEW_WORDS = 12  # of its question, on an item's closed row
PREVIEW_REASON = 90  # characters of its first reason (the verdict), on an item's closed row
OUTCOMES = {"failed": "failed", "error": "errored (no score)", "passed": "passed"}


def item_view(record: Mapping[str, Any], transcript: list[Entry] | None) -> dict[str, Any]:
    """An item as words: its status, where it sits, its questions and answers, reasons, details and
    transcript, every text cut as the page shows it."""
    responses, expected = record.get("responses", []), record.get("expected", [])
    score, threshold = record.get("score"), float(record.get("threshold") or 0.0)
    return {
        "nodeid": record.get("nodeid"),
        "anchor": item_anchor(str(record.get("nodeid"))),
        "suite": record.get("suite"),
        "scenario": record.get("scenario"),
        "category": record.get("category"),
        "score": score,
        "threshold": threshold,
        "passed": bool(record.get("passed")),
        "outcome": outcome_of(record),
        "error_kind": record.get("error_kind") if score is None else None,
        "head": _head(record),
        "where": _where(record),
        "error": record.get("error"),
        "qa": [
            {
                "question": excerpt(question),
                "expected": excerpt(expected[index] if index < len(expected) else ""),
                "got": excerpt(
                    (responses[index] if index < len(responses) else "(no reply)") or "(empty reply)"
                ),
            }
            for index, question in enumerate(record.get("questions", []))
        ],
        "reasons": [excerpt(reason) for reason in record.get("reasons") or []],
        "judging": item_judging_text(record.get("judging")),
        "details": detail_rows(record.get("details") or {}),
        "transcript": None if transcript is None else _transcript_view(transcript),
        "transcript_title": _transcript_title(record, transcript),
        "preview": preview(record),
        "open": False,
    }


def preview(record: Mapping[str, Any]) -> str:
    """What a closed row says beside its id and score: the question's first words and the verdict
    (the first reason, or the error), so a reader finds an item without opening each."""
    questions = record.get("questions") or []
    words = str(questions[-1] if questions else "").split()
    question = " ".join(words[:PREVIEW_WORDS]) + (" …" if len(words) > PREVIEW_WORDS else "")
    verdict = str(record.get("error") or next(iter(record.get("reasons") or []), ""))
    if len(verdict) > PREVIEW_REASON:
        verdict = verdict[: PREVIEW_REASON - 2].rstrip() + " …"
    return " — ".join(part for part in (question, verdict) if part)


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key reading runs of digits as numbers: `multi_hop[3]` before `multi_hop[39]`."""
    return tuple((1, int(part)) if part.isdigit() else (0, part) for part in re.split(r"(\d+)", text) if part)


def outcome_of(record: Mapping[str, Any]) -> str:
    """passed, failed, or error (no score): what the outcome filter reads."""
    if record.get("score") is None:
        return "error"
    return "passed" if record.get("passed") else "failed"


def item_anchor(nodeid: str) -> str:
    """The id of an item's entry in report.html, which a comparison links to (`report.html#item-…`)."""
    return "item-" + "_".join(nodeid.split())


def _head(record: Mapping[str, Any]) -> str:
    score, threshold = record.get("score"), float(record.get("threshold") or 0.0)
    if score is None:
        kind = record.get("error_kind") or "agent"
        return f"ERROR ({kind}): no score, left out of every mean but the strict one"
    return f"score {score:.2f} {'≥' if score >= threshold else '<'} threshold {threshold:.2f}"


def _where(record: Mapping[str, Any]) -> str:
    parts = [str(record.get("scenario"))]
    if record.get("category"):
        parts.append(str(record.get("category")))
    span = f"span {compact_count(record.get('span_tokens') or 0)} tokens"
    if record.get("span_overrun"):
        span += f" (over {compact_count(record.get('span_target') or 0)})"
    parts.append(span)
    skills = [skill for skill in record.get("skills") or [] if skill != record.get("category")]
    if skills:  # LoCoMo's category is also its skill: said once
        parts.append(", ".join(skills))
    return " · ".join(parts)


def detail_rows(details: dict[str, Any]) -> list[dict[str, Any]]:
    """An item's details as labelled lines of words; lists of texts (the memories a search returned)
    as lists, each text cut."""
    rows: list[dict[str, Any]] = []
    for key, value in details.items():
        label = key.replace("_", " ")
        if isinstance(value, dict) and _texts(value.get("memories")):
            rest = {name: inner for name, inner in value.items() if name != "memories"}
            rows.append({"label": label, "text": plain(rest), "texts": None})
            rows.append(
                {
                    "label": f"{label}: memories returned, best first",
                    "text": None,
                    "texts": _cut(value["memories"]),
                }
            )
        elif _texts(value):
            rows.append({"label": label, "text": None, "texts": _cut(value)})
        else:
            rows.append({"label": label, "text": plain(value), "texts": None})
    return rows


def _texts(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(text, str) for text in value)


def _cut(texts: list[str]) -> list[str]:
    return [excerpt(text) for text in texts]


def _transcript_title(record: Mapping[str, Any], transcript: list[Entry] | None) -> str:
    """What the transcript box says it holds; an item asked on a copy of the memory after the
    conversation (LoCoMo, BEAM, …) has no turns of its own, and says where it was asked instead."""
    if transcript is not None:
        return "transcript of this test"
    asks = [ask for ask in (record.get("details") or {}).get("asks") or [] if isinstance(ask, dict)]
    if asks:
        turns, tokens = asks[0].get("turns", 0), asks[0].get("tokens", 0)
        return (
            f"no transcript of its own: asked after {turns:,} turns ({compact_count(tokens)} tokens) of the"
            " conversation, on a copy of the memory; its question and answer are above"
        )
    return "transcript of this test (not in the event log)"


def _transcript_view(transcript: list[Entry]) -> list[dict[str, Any]]:
    """Entries as template data; turns carry `when`: the simulated date, then time since the first turn.

    Elapsed simulated time is what a memory test is about (Jokes asks what was said 3 hours ago);
    full ISO stamps on every line would bury it.
    """
    first: datetime | None = None
    entries = []
    for entry in transcript:
        data = entry.to_json()
        if isinstance(entry, TranscriptTurn):
            data["message"] = excerpt(entry.message)
            data["reply"] = None if entry.reply is None else excerpt(entry.reply)
            moment = _parse_time(entry.time)
            if moment is not None and first is None:
                first = moment
                data["when"] = moment.strftime("%Y-%m-%d %H:%M")
            elif moment is not None and first is not None:
                data["when"] = "+" + _elapsed(moment - first)
            else:
                data["when"] = ""
        entries.append(data)
    return entries


def _parse_time(text: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def _elapsed(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    if days:
        return f"{days} d {hours} h {minutes} min"
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


# -- report.html's data block ----------------------------------------------------------------------


def items_view(
    records: Sequence[Mapping[str, Any]], transcripts: Mapping[str, list[Entry] | None]
) -> dict[str, Any]:
    """report.html's items, failed first, each part in natural order (`[3]` before `[39]`): the
    filters' choices and the data block its script reads."""
    records = sorted(
        records, key=lambda record: (bool(record.get("passed")), natural_key(str(record.get("nodeid"))))
    )
    failures = sum(not record.get("passed") for record in records)
    texts = TextTable()
    views = [item_view(record, transcripts.get(str(record.get("nodeid")))) for record in records]
    items = [_packed(view, texts, opened=not view["passed"] and failures <= OPEN_FAILURES) for view in views]
    outcomes = Counter(view["outcome"] for view in views)
    kinds = Counter(view["error_kind"] or "agent" for view in views if view["outcome"] == "error")
    data = {"texts": texts.texts, "items": items}
    places = (
        (str(view["suite"]), str(view["scenario"]), view["category"] and str(view["category"]))
        for view in views
    )
    return {
        "count": len(views),
        **place_choices(places),
        "outcomes": [(name, label, outcomes[name]) for name, label in OUTCOMES.items() if outcomes[name]],
        "error_kinds": sorted(kinds.items()),
        "data": data,
    }


# the fields of an item in the page's data, in order (report_items.js names them the same, in capitals)
ITEM_FIELDS = (
    "anchor",
    "nodeid",
    "suite",
    "scenario",
    "category",
    "outcome",
    "error_kind",
    "score",
    "threshold",
    "head",
    "where",
    "error",
    "qa",
    "reasons",
    "judging",
    "details",
    "transcript",
    "transcript_title",
    "open",
    "preview",
)


def _packed(view: dict[str, Any], texts: TextTable, *, opened: bool) -> list[Any]:
    """One item as report_items.js reads it: a list in the order of ITEM_FIELDS, repeated texts
    (memories, transcript turns) as numbers into the page's texts."""
    transcript = view["transcript"]
    fields = {
        **view,
        "error_kind": view["error_kind"] or ("agent" if view["outcome"] == "error" else None),
        "qa": [[qa["question"], qa["expected"], qa["got"]] for qa in view["qa"]],
        "details": [
            [row["label"], row["text"] if row["texts"] is None else [texts.at(text) for text in row["texts"]]]
            for row in view["details"]
        ],
        "transcript": None
        if transcript is None
        else [
            entry["gap"]
            if "gap" in entry
            else [
                texts.at(entry["message"]),
                None if entry["reply"] is None else texts.at(entry["reply"]),
                entry["when"],
                int(entry["is_question"]),
            ]
            for entry in transcript
        ],
        "transcript_title": texts.at(view["transcript_title"]),
        "open": int(opened),
    }
    return [fields[name] for name in ITEM_FIELDS]
