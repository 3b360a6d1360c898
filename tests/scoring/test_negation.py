"""The negation-aware matcher: a reply that names a value to reject it does not assert it.

Each case is a reply a right or a wrong answer could give about a changed fact, with the verdict a
reader would give and, where it rejects, the cue that says so.
"""

from __future__ import annotations

import pytest

from pytest_memorybench.scoring.negation import asserted, mentions

ASSERTED = [
    ("Red.", "red"),
    ("Your favourite colour is red.", "Red"),
    ("Red, not blue.", "red"),
    ("Not blue but red.", "red"),
    ("No, it is red.", "red"),  # the "No" answers the question; the clause asserts red
    ("My 5-year-old dog is called Red.", "red"),  # "old" is more than three words before
    ("Instead of red you now like blue.", "blue"),
    ("You changed it from red to blue.", "blue"),  # the value after the change's "to"
    ("A present from Anna: red.", "red"),  # "from" without a "to" is no change
    ("Your address is 4 Oak Lane, not 12 Elm Street.", "4 Oak Lane"),
]
REJECTED = [
    ("Not red.", "red", "Not"),
    ("It is no longer red; now blue.", "red", "no longer"),
    ("It used to be red.", "red", "used to"),
    ("You changed it from red to blue.", "red", "changed it from"),
    ("Blue, not red.", "red", "not"),
    ("Blue (red was your old favourite).", "red", "was your old"),
    ("Was it red?", "red", "a question"),
    ("I don't think it's red.", "red", "n't"),
    ("Instead of red you now like blue.", "red", "Instead of"),
    ("Red is no longer your favourite.", "red", "no longer"),
    ("Your address is 4 Oak Lane, not 12 Elm Street.", "12 Elm Street", "not"),
    ("You moved from 12 Elm Street to 4 Oak Lane.", "12 Elm Street", "moved from"),
    ("Your previous address was 12 Elm Street.", "12 Elm Street", "previous"),
]


@pytest.mark.parametrize(("reply", "value"), ASSERTED)
def test_a_reply_asserts_the_value_it_gives_as_the_answer(reply: str, value: str) -> None:
    mention = asserted(reply, value)
    assert mention is not None and mention.cue is None


@pytest.mark.parametrize(("reply", "value", "cue"), REJECTED)
def test_a_reply_naming_a_value_to_reject_it_does_not_assert_it(reply: str, value: str, cue: str) -> None:
    assert asserted(reply, value) is None
    assert [mention.cue for mention in mentions(reply, value)] == [cue]


def test_a_value_is_matched_as_whole_words_case_and_spacing_aside() -> None:
    assert mentions("I am bored.", "red") == [] and mentions("Blue-green.", "green")[0].asserted
    assert asserted("It is  12 ELM street.", "12 Elm Street") is not None
    assert mentions("anything", "  ") == []


def test_one_asserted_mention_is_enough_whatever_else_the_reply_rejects() -> None:
    reply = "Not red. Actually, thinking again, it is red."
    assert [mention.asserted for mention in mentions(reply, "red")] == [False, True]
    assert asserted(reply, "red") is not None
