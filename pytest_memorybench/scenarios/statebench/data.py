"""StateBench's timelines, read from its published JSONL into records.

StateBench publishes each release as JSONL under `data/releases/<version>/` (`train`, `dev`,
`test`, `hidden`, `full`), one timeline a line (`schema/timeline.py`, `Timeline`): `id`, `track`,
`domain`, `initial_state` (identity and role, persistent facts, working set, environment), and
`events` in order, each a `conversation_turn` (`speaker`, `text`), a `state_write` or
`supersession` (structured `writes`), or a `query` (`prompt` and `ground_truth`: `decision`,
`must_mention`, `must_not_mention`, ...).  A phrase is a string or a `MentionRequirement`
(`phrase`, and in 2.x `kind` and `negation_exempt`).

Its harness (`runner/harness.py`) hands a transcript strategy the conversation turns as they come
and asks each query at its place; the structured writes go to its state-based strategies only, the
initial state too.  The agent here gets the conversation turns (the scenario may add the initial
state as a first message, `state: true`).  A row or an event that cannot be used is counted in the
load report, never dropped quietly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.readers import Malformed

SPLITS = ("dev", "test", "train", "hidden", "full")
KINDS = ("superseded", "restricted", "fabricated", "other")
STATE_EVENTS = ("state_write", "supersession")
LAYOUT = "expected StateBench's release JSONL (data/releases/<version>/<split>.jsonl), one timeline a line"


@dataclass(frozen=True)
class Phrase:
    """A phrase a reply must or must not say; `kind` is the failure it detects ("other": the
    track's), `negation_exempt` that naming it under a negation still counts (deletion)."""

    text: str
    kind: str = "other"
    negation_exempt: bool = False


@dataclass(frozen=True)
class Truth:
    """A query's ground truth, as far as its deterministic judge reads it."""

    decision: str
    must_mention: tuple[Phrase, ...]
    must_not_mention: tuple[Phrase, ...]
    reasoning: str = ""


@dataclass(frozen=True)
class Turn:
    """A conversation turn: who said it, what, and when."""

    speaker: str  # user or assistant
    text: str
    when: datetime


@dataclass(frozen=True)
class Query:
    """A query at its place: `after` conversation turns of its timeline come before it."""

    prompt: str
    when: datetime
    truth: Truth
    after: int


@dataclass(frozen=True)
class Timeline:
    """A timeline as delivered: its turns, its queries at their places, its initial state."""

    id: str
    track: str
    domain: str
    turns: tuple[Turn, ...]
    queries: tuple[Query, ...]
    initial_state: JsonObject
    version: str = ""


def timeline(row: Any, tally: LoadTally, where: str) -> Timeline | None:
    """One JSONL row as a timeline; None (counted) when it has no id, track or events."""
    if not isinstance(row, dict) or not isinstance(row.get("events"), list):
        tally.note("rows that are no timeline (no events list), not read", where)
        return None
    name, track = row.get("id"), row.get("track")
    if not isinstance(name, str) or not isinstance(track, str):
        tally.note("timelines without an id or a track, not read", where)
        return None
    turns: list[Turn] = []
    queries: list[Query] = []
    for number, event in enumerate(row["events"]):
        kind = event.get("type") if isinstance(event, dict) else None
        place = f"{name} event {number}"
        if kind in STATE_EVENTS:
            continue  # delivered to state-based strategies only (see the module's docstring)
        when = _when(event.get("ts") if isinstance(event, dict) else None)
        if kind == "conversation_turn" and isinstance(event.get("text"), str) and when:
            turns.append(
                Turn("assistant" if event.get("speaker") == "assistant" else "user", event["text"], when)
            )
        elif kind == "query" and isinstance(event.get("prompt"), str) and when:
            truth = _truth(event.get("ground_truth"), tally, place)
            if truth is not None:
                queries.append(Query(event["prompt"], when, truth, len(turns)))
        else:
            tally.note("events of no known type, or without text or time, not used", place)
    if not queries:
        tally.note("timelines without a usable query, not asked", name)
        return None
    state = row.get("initial_state")
    return Timeline(
        name,
        track,
        str(row.get("domain") or ""),
        tuple(turns),
        tuple(queries),
        state if isinstance(state, dict) else {},
        str(row.get("version") or ""),
    )


def _when(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _truth(raw: Any, tally: LoadTally, place: str) -> Truth | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("decision"), str):
        tally.note("queries without a ground-truth decision, not asked", place)
        return None
    return Truth(
        raw["decision"],
        _phrases(raw.get("must_mention"), tally, place),
        _phrases(raw.get("must_not_mention"), tally, place),
        str(raw.get("reasoning") or ""),
    )


def _phrases(raw: Any, tally: LoadTally, place: str) -> tuple[Phrase, ...]:
    found = []
    for item in raw if isinstance(raw, list) else ():
        if isinstance(item, str):
            found.append(Phrase(item))
        elif isinstance(item, dict) and isinstance(item.get("phrase"), str):
            kind = item.get("kind") if item.get("kind") in KINDS else "other"
            found.append(Phrase(item["phrase"], str(kind), bool(item.get("negation_exempt"))))
        else:
            tally.note("phrases that are neither a string nor a requirement, not scored", place)
    return tuple(found)


def release_file(path: str | Path, split: str) -> Path:
    """The JSONL file to read: `path` itself, or the one `<split>.jsonl` under a folder."""
    root = Path(path)
    if root.is_file():
        return root
    found = sorted(root.rglob(f"{split}.jsonl"))
    if len(found) == 1:
        return found[0]
    if not found:
        raise Malformed(f"no {split}.jsonl under {root}; {LAYOUT}")
    shown = ", ".join(str(file.relative_to(root)) for file in found)
    raise Malformed(f"several {split}.jsonl under {root} ({shown}): give the release folder or the file")


def read_timelines(path: str | Path, split: str, tally: LoadTally) -> Iterator[Timeline]:
    """Every usable timeline of the release file, in its order (counted in `tally`)."""
    file = release_file(path, split)
    with open(file, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise Malformed(f"{file.name} line {number}: not JSON ({exc.msg}); {LAYOUT}") from None
            tally.held("timelines")
            found = timeline(row, tally, f"{file.name} line {number}")
            if found is not None:
                tally.held("queries", len(found.queries))
                yield found


def state_text(state: Mapping[str, Any]) -> str:
    """The initial state as one message, the four layers StateBench's state-based strategies get."""
    lines = ["Current state before our conversation:"]
    identity = state.get("identity_role")
    if isinstance(identity, dict):
        known = ", ".join(f"{key}: {value}" for key, value in identity.items() if value)
        if known:
            lines.append(f"- who you are helping: {known}")
    for layer in ("persistent_facts", "working_set"):
        for fact in state.get(layer) or ():
            if isinstance(fact, dict) and fact.get("is_valid", True):
                value = fact.get("value") or fact.get("content") or ""
                lines.append(f"- {fact.get('key') or fact.get('item_type') or layer}: {value}")
    for key, value in (state.get("environment") or {}).items():
        lines.append(f"- {key}: {value}")
    return "\n".join(lines)


__all__ = [
    "KINDS",
    "SPLITS",
    "Phrase",
    "Query",
    "Timeline",
    "Truth",
    "Turn",
    "read_timelines",
    "release_file",
    "state_text",
    "timeline",
]
