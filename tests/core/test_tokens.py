"""The token counters: cuts, where a text counts as the sum of its parts, and remembered counts."""

from __future__ import annotations

import random
import string

import pytest

from pytest_memorybench.core.tokens import (
    ApproximateCounter,
    TiktokenCounter,
    TokenCounter,
    default_counter,
    remember,
    sums_at_cuts,
)


def tiktoken_counter() -> TiktokenCounter:
    """A counter of its own (nothing remembered yet) on the run's cl100k_base encoding."""
    counter = default_counter()
    if not isinstance(counter, TiktokenCounter):
        pytest.skip("cl100k_base cannot load on this machine")
    return TiktokenCounter(counter._encoding, "cl100k_base")


@pytest.fixture(params=["tiktoken", "approximate"])
def counter(request: pytest.FixtureRequest) -> TokenCounter:
    return tiktoken_counter() if request.param == "tiktoken" else ApproximateCounter()


def is_cut(text: str, i: int) -> bool:
    """The cuts of tokens.py's docstring."""
    before, after = text[i - 1], text[i]
    ascii_alnum = string.ascii_letters + string.digits
    return (
        (before == "\n" and after in string.ascii_letters)
        or (before in ascii_alnum and after == "\n")
        or (before in string.punctuation and after == " ")
    )


# Runs of one kind of character, so that letters, numbers, punctuation and whitespace meet in every
# order (and non-ASCII letters, contractions and digit groups sit next to the cuts).
RUNS = (
    string.ascii_letters, string.digits, string.punctuation, " ", "\n", "\r\n", "\t ", "'s", "'ll",
    "éüßñ", "日本語", "’“”", "Q: ", '", "', "?, A: ",
)  # fmt: skip


def random_text(rng: random.Random) -> str:
    return "".join(
        "".join(rng.choice(run) for _ in range(rng.randint(1, 4))) if len(run) > 4 else run
        for run in (rng.choice(RUNS) for _ in range(rng.randint(2, 14)))
    )


def test_counts_add_up_over_cuts(counter: TokenCounter) -> None:
    assert sums_at_cuts(counter)
    rng = random.Random(0)
    checked = 0
    for _ in range(1500):
        text = random_text(rng)
        for i in range(1, len(text)):
            if is_cut(text, i):
                assert counter.count(text) == counter.count(text[:i]) + counter.count(text[i:]), (text, i)
                checked += 1
    assert checked > 1000


def test_counts_add_up_over_the_cuts_of_a_filler_message(counter: TokenCounter) -> None:
    lines = [
        "Below are some questions.",
        'Q: Who wrote "Emma"?, A: Jane Austen',
        "Q: What is 12 times 7?, A: 84",
    ]
    lines += ["Q: What is the capital of the United States?, A: Washington, D.C.", "Q: 1,000?, A: (x)"]
    message = "\n".join(lines)
    assert counter.count(message) == sum(counter.count(line + "\n") for line in lines[:-1]) + counter.count(
        lines[-1]
    )
    reply = '["Jane Austen", "84", "Washington, D.C.", "(x)"]'
    parts = ['["Jane Austen",', ' "84",', ' "Washington, D.C.",', ' "(x)"]']
    assert "".join(parts) == reply
    assert counter.count(reply) == sum(counter.count(part) for part in parts)


def test_special_tokens_count_as_plain_text() -> None:
    counter = tiktoken_counter()
    text = "a <|endoftext|> b"
    assert counter.count(text) == len(counter._encoding.encode(text, disallowed_special=())) > 3


def test_other_counters_do_not_sum_at_cuts() -> None:
    class Words:
        name = "words"

        def count(self, text: str) -> int:
            return len(text.split())

    assert not sums_at_cuts(Words())
    remember(Words(), "a b", 2)  # nothing to tell: no error


def test_a_remembered_count_is_used_and_the_oldest_are_forgotten() -> None:
    counter = tiktoken_counter()
    remember(counter, "a text told", 999)  # only a test would tell a wrong count
    assert counter.count("a text told") == 999
    assert counter.count("hello world") == 2
    for i in range(TiktokenCounter.REMEMBERED):
        counter.remember(f"text {i}", i)
    assert counter.count("a text told") == 3, "forgotten, so counted again"
    assert counter.count(f"text {TiktokenCounter.REMEMBERED - 1}") == TiktokenCounter.REMEMBERED - 1
    assert len(counter._remembered) <= TiktokenCounter.REMEMBERED
