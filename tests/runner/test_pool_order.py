"""Which conversations a process starts first: the longest, since the last one to end bounds the run.

The item pytest waits on starts at once; every other place goes to the longest conversation still
waiting, not to pytest's next item (which kept a place on a short conversation from the start).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest_plugins = ["pytester"]


def _events(pytester: pytest.Pytester, selection: str) -> list[dict[str, Any]]:
    """The event log of an oracle run of LTM's `selection`, two conversations at once."""
    pytester.runpytest(
        "--memorybench", "-p", "no:cacheprovider", "-p", "no:randomly", "--agent=oracle", "--span=isolated",
        "-k", selection, "--mb-concurrency=2", "--mb-output=run",
    )  # fmt: skip
    return [json.loads(line) for line in (pytester.path / "run" / "events.jsonl").read_text().splitlines()]


def _begun(events: list[dict[str, Any]]) -> list[str]:
    return [event["group"] for event in events if event["kind"] == "conversation_begin"]


def _replies(events: list[dict[str, Any]], group: str) -> int:
    return sum(event["kind"] == "reply" and event["group"] == group for event in events)


def test_the_places_beside_the_first_item_go_to_the_longest_conversations(pytester: pytest.Pytester) -> None:
    """Colours (four replies) comes first in pytest's order, then Sally-Anne's three (9, 11, 12)."""
    events = _events(pytester, "colours or sallyanne")
    begun = _begun(events)
    assert begun[:2] == ["ltm::colours[rep1]", "ltm::sallyanne[rep3]"], (
        "pytest's first item, and beside it the longest conversation, not pytest's next (colours[rep2])"
    )
    assert begun.index("ltm::sallyanne[rep2]") < begun.index("ltm::colours[rep2]")
    assert _replies(events, "ltm::sallyanne[rep3]") == max(_replies(events, group) for group in begun) == 12


def test_a_reset_message_counts_in_a_conversations_length(pytester: pytest.Pytester) -> None:
    """Trigger-response sends four script lines and a reset message: five replies against colours'
    four, so it goes first although both scripts have four lines."""
    events = _events(pytester, "colours or trigger_response")
    assert (
        _replies(events, "ltm::trigger_response[rep1]") == 5 and _replies(events, "ltm::colours[rep2]") == 4
    )
    assert _begun(events)[:3] == [
        "ltm::colours[rep1]",
        "ltm::trigger_response[rep1]",
        "ltm::trigger_response[rep2]",
    ]
