"""Values as a reader reads them: long texts cut with a note of what was left out, records as words."""

from __future__ import annotations

from typing import Any

MAX_SHOWN = 20_000  # characters of one message or reply: a chapter shows whole, a runaway reply does not


def excerpt(text: Any) -> Any:
    """A text as the report shows it: whole up to MAX_SHOWN characters, then cut, saying how much
    was left out (the run folder's events.jsonl keeps it whole)."""
    if not isinstance(text, str) or len(text) <= MAX_SHOWN:
        return text
    return f"{text[:MAX_SHOWN]} … [{len(text) - MAX_SHOWN:,} more characters in events.jsonl]"


def plain(value: Any) -> str:
    """A value as words and numbers, never a raw record: lists joined, numbers rounded (counts with
    thousands separated), a record's fields as "name value"."""
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        joint = "; " if any(isinstance(item, (dict, list, tuple)) for item in value) else ", "
        return joint.join(plain(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{key} {plain(inner)}" for key, inner in value.items())
    return str(value)
