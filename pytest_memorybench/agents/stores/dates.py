"""Time into the products and back: the harness's simulated clock as each product takes it, and a
product's times as the naive UTC times hits carry.

The harness's times are naive and mean UTC (a benchmark's session dates carry no zone).  A product
that wants a zone gets UTC spelt out (Zep's own ingestion tool refuses a time without an offset);
reading `datetime.timestamp()` of a naive time instead would take it in the machine's zone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from itertools import groupby

from pytest_memorybench.core.records import Message

# What a product with no time of its own reads first of a session (LangMem, Vertex AI Memory Bank):
# its date, so that "yesterday" is resolved against it and not against the day it extracts.
SAID_ON = "These messages were said on {date}. Resolve every relative date in them against {date}."


def in_utc(when: datetime) -> datetime:
    """A harness time (naive, UTC) as an aware UTC time; an aware time converted to UTC."""
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)


def iso_utc(when: datetime) -> str:
    """ISO 8601 with its offset, `2023-05-08T13:56:00+00:00`."""
    return in_utc(when).isoformat()


def epoch_seconds(when: datetime) -> int:
    """Seconds since 1970 (UTC) of a harness time, as products that take a Unix time want it."""
    return int(in_utc(when).timestamp())


def naive_utc(when: datetime | None) -> datetime | None:
    """A product's time as hits carry it: UTC without a zone (an aware time converted first)."""
    if when is None:
        return None
    return when.astimezone(timezone.utc).replace(tzinfo=None) if when.tzinfo else when


def parsed_time(when: object) -> datetime | None:
    """A product's time (ISO text with `Z` or an offset, epoch seconds, or a datetime) as a naive UTC
    time; None when absent or unreadable."""
    if isinstance(when, datetime):
        return naive_utc(when)
    if isinstance(when, int | float) and not isinstance(when, bool):
        return datetime.fromtimestamp(when, timezone.utc).replace(tzinfo=None)
    if not isinstance(when, str) or not when:
        return None
    try:
        return naive_utc(datetime.fromisoformat(when.replace("Z", "+00:00")))
    except ValueError:
        return None


def sessions(messages: Sequence[Message]) -> Iterator[list[Message]]:
    """The messages in runs of one session each, in order: the unit a product ingests with one date.
    A message with no session (`Message.session`) belongs to its calendar day's run."""
    for _, run in groupby(messages, key=lambda m: m.session if m.session is not None else m.timestamp.date()):
        yield list(run)
