"""How the harness calls a store: a session a call, parts a product can take, retries that never
store a message twice, the question's time for stores that search as of a date, dated hits."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from pytest_memorybench.agents.stores.dates import epoch_seconds, iso_utc, parsed_time, sessions
from pytest_memorybench.agents.stores.memory import ANSWER_PROMPTS
from pytest_memorybench.agents.stores.store_protocol import Hit, StoreClient, Validity, server_asked_wait
from pytest_memorybench.core.records import Message

MAY = datetime(2023, 5, 8, 13, 56)


def chat(*sessions_and_sizes: tuple[str, int]) -> list[Message]:
    """Messages of consecutive sessions, each session a day after the one before."""
    messages = []
    for day, (session, size) in enumerate(sessions_and_sizes):
        for position in range(size):
            when = MAY + timedelta(days=day, minutes=position)
            messages.append(Message(f"{session} message {position}", when, "user", len(messages), session))
    return messages


class Recording:
    """Keeps every add call as it came; `fail_on` calls raise once, after storing or before."""

    def __init__(self, *, messages_per_add: int | None = None, fail_on: int = -1, stored_first: bool = False):
        self.calls: list[list[Message]] = []
        self.stored: list[str] = []
        self.fail_on = fail_on
        self.stored_first = stored_first
        if messages_per_add:
            self.messages_per_add = messages_per_add

    def add(self, messages: list[Message], namespace: str) -> None:
        self.calls.append(messages)
        if len(self.calls) - 1 == self.fail_on:
            raise ConnectionError("connection reset")
        self.stored += [message.text for message in messages]

    def search(self, query: str, namespace: str, k: int) -> list[str]:
        return self.stored[:k]

    def clear(self, namespace: str) -> None:
        self.stored.clear()


@pytest.mark.asyncio
async def test_an_add_never_carries_two_sessions_and_each_part_keeps_to_the_products_limit() -> None:
    store = Recording(messages_per_add=3)
    await StoreClient(store, "recording").add(chat(("s1", 5), ("s2", 2), ("s3", 4)), "ns")
    assert [[m.session for m in call] for call in store.calls] == [
        ["s1"] * 3,
        ["s1"] * 2,
        ["s2"] * 2,
        ["s3"] * 3,
        ["s3"],
    ]


def test_messages_without_a_session_go_in_by_calendar_day() -> None:
    day_one = [Message("a", MAY), Message("b", MAY + timedelta(hours=2))]
    day_two = [Message("c", MAY + timedelta(days=1))]
    assert list(sessions([*day_one, *day_two])) == [day_one, day_two]


@pytest.mark.asyncio
async def test_a_failure_part_way_retries_only_the_part_that_failed() -> None:
    store = Recording(messages_per_add=2, fail_on=1)
    await StoreClient(store, "recording", backoff=0.01).add(chat(("s1", 6)), "ns")
    assert len(store.calls) == 4  # parts 1, 2 (failed), 2 again, 3
    assert store.stored == [f"s1 message {i}" for i in range(6)]  # each once, in order


@pytest.mark.asyncio
async def test_the_question_time_reaches_a_store_whose_search_takes_it_and_no_other() -> None:
    seen: list[datetime | None] = []

    class AsOf(Recording):
        def search(self, query: str, namespace: str, k: int, asked_at: datetime | None = None) -> list[str]:
            seen.append(asked_at)
            return []

    asked = datetime(2023, 6, 1, 10, 0)
    await StoreClient(AsOf(), "as-of").search("when?", "ns", 5, asked)
    await StoreClient(Recording(), "plain").search("when?", "ns", 5, asked)  # would raise TypeError if passed
    assert seen == [asked]


def test_a_hit_line_carries_its_time_and_a_facts_validity_in_one_bracket() -> None:
    ended = Hit("Caroline works at the bakery", 0.9, MAY, Validity(MAY, datetime(2023, 6, 1)))
    current = Hit("Caroline works at the library", None, None, Validity(datetime(2023, 6, 1), None))
    assert ended.line == "[2023-05-08 13:56; valid 2023-05-08 → 2023-06-01] Caroline works at the bakery"
    assert current.line == "[valid 2023-06-01 → present] Caroline works at the library"
    assert Hit("plain").line == "plain"
    event = Hit("Caroline saw the dentist", None, MAY, about=datetime(2023, 5, 7))
    assert event.line == "[2023-05-08 13:56; about 2023-05-07] Caroline saw the dentist", (
        "the date it was said and the date of its event, labelled apart"
    )


def test_the_answering_prompts_say_which_bracketed_date_is_which() -> None:
    """'yesterday' resolves against the date a memory was said, never against its event's date or the
    time a fact held, which the product resolved already: the prompts say how each is labelled."""
    for suite in ("locomo", "longmemeval"):
        prompt = ANSWER_PROMPTS[suite]
        assert "'about DATE'" in prompt and "'valid FROM → TO'" in prompt, prompt


@pytest.mark.parametrize(
    ("given", "read"),
    [
        ("2023-05-08T13:56:00Z", MAY),
        ("2023-05-08T15:56:00+02:00", MAY),  # an offset is converted, not dropped
        ("2023-05-08T13:56:00", MAY),
        (datetime(2023, 5, 8, 8, 56, tzinfo=timezone(timedelta(hours=-5))), MAY),
        (epoch_seconds(MAY), MAY),
        ("next Tuesday", None),
        (None, None),
    ],
)
def test_a_products_time_reads_back_as_the_harnesss_naive_utc(given: Any, read: datetime | None) -> None:
    assert parsed_time(given) == read


def test_a_harness_time_goes_out_with_its_utc_offset_whatever_the_machines_zone() -> None:
    assert iso_utc(MAY) == "2023-05-08T13:56:00+00:00"
    assert epoch_seconds(MAY) == 1683554160


def test_a_text_stamped_by_its_product_keeps_its_own_stamp() -> None:
    line = "[2023-05-08 14:03] user: the spare key is under the pot"
    assert Hit(line, None, MAY).line == line


class RateLimited(Exception):
    """A rate limit as Mem0's client raises it: the wait it asks for in `debug_info`."""

    debug_info = {"retry_after": 60}


def test_the_wait_a_server_asks_for_is_read_from_the_sdks_error_or_the_http_header() -> None:
    class Response:
        headers = {"retry-after": "7"}

    class HttpError(Exception):
        response = Response()

    assert server_asked_wait(RateLimited()) == 60
    assert server_asked_wait(HttpError()) == 7
    assert server_asked_wait(ConnectionError()) is None


@pytest.mark.asyncio
async def test_a_rate_limit_waits_what_the_server_asks_but_never_past_the_timeout() -> None:
    calls: list[float] = []

    class Limited(Recording):
        def add(self, messages: list[Message], namespace: str) -> None:
            calls.append(len(calls))
            if len(calls) == 1:
                raise RateLimited("rate limited")
            super().add(messages, namespace)

    store = Limited()
    client = StoreClient(store, "limited", timeout=0.2, backoff=30)  # 60 s asked, 0.2 s allowed
    await client.add(chat(("s1", 2)), "ns")
    assert len(calls) == 2 and store.stored == ["s1 message 0", "s1 message 1"]


def test_a_message_the_conversation_gave_no_time_is_stamped_now_in_utc_not_local_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every store reads a harness time as UTC, so the machine's own zone must not leak into one."""
    import time

    from pytest_memorybench.agents.mechanisms.base import Entry
    from pytest_memorybench.agents.stores.memory import _message

    monkeypatch.setenv("TZ", "Pacific/Kiritimati")  # UTC+14: a local stamp would be 14 hours off
    time.tzset()
    try:
        stamped = _message(Entry(0, "user", "no time given")).timestamp
    finally:
        monkeypatch.undo()
        time.tzset()
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    assert stamped.tzinfo is None and abs(now - stamped) < timedelta(minutes=5), stamped
