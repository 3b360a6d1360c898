"""A message as one text with one speaker label (`Message.labelled`), for products that take a
transcript (Graphiti's episodes, Hindsight's items)."""

from __future__ import annotations

from datetime import datetime

from pytest_memorybench.core.records import Message

WHEN = datetime(2024, 5, 1, 9, 0)


def test_a_named_speaker_who_opens_the_text_is_labelled_once() -> None:
    said = Message("Caroline: I went to the support group.", WHEN, "user", speaker="Caroline")
    assert said.labelled() == "Caroline: I went to the support group."


def test_a_named_speaker_is_the_label_and_otherwise_the_role() -> None:
    assert Message("Nice!", WHEN, "assistant", speaker="Melanie").labelled() == "Melanie: Nice!"
    assert Message("My locker code is 4512.", WHEN).labelled() == "user: My locker code is 4512."
