"""Filler trivia: our own fact tables, the deterministic source, message sizing and reply checks."""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict

import pytest

from pytest_memorybench.conversation.filler import INSTRUCTION, FillerTask, check_filler_reply, make_filler
from pytest_memorybench.conversation.trivia import (
    TriviaItem,
    TriviaSource,
    arithmetic,
    arithmetic_item,
    catalogue,
    roman_item,
    to_roman,
)
from pytest_memorybench.conversation.trivia_tables import AUTHORS, CAPITALS, ELEMENTS, PLANETS
from pytest_memorybench.core.tokens import default_counter


class WordCounter:
    """One token per word or punctuation mark: exactly additive over lines, so sizes are exact."""

    name = "test:words"

    def count(self, text: str) -> int:
        return len(re.findall(r"\w+|[^\w\s]", text))


WORDS = WordCounter()


def item_tokens(item: TriviaItem, first: bool = False) -> int:
    """What one item adds to message + reply under WordCounter (its line, its answer, a comma)."""
    line = f"Q: {item.question}, A: {item.answer}"
    own = WORDS.count(line) + WORDS.count(json.dumps(item.answer))
    return own + (0 if first else WORDS.count(", "))


# --- the source -----------------------------------------------------------------------------------


def test_same_seed_and_index_give_the_same_item() -> None:
    assert TriviaSource(0).item(5) == TriviaSource(0).item(5)
    late = TriviaSource(7)
    indices = (900, 3, 5000)
    assert [late.item(i) for i in indices] == [TriviaSource(7).item(i) for i in indices]


def test_items_depend_on_the_seed() -> None:
    first = [TriviaSource(1).item(i) for i in range(20)]
    second = [TriviaSource(2).item(i) for i in range(20)]
    assert first != second


def test_first_500_items_are_varied() -> None:
    items = [TriviaSource(3).item(i) for i in range(500)]
    families = {item.family for item in items}
    assert len(families) >= 10
    assert "arithmetic" in families
    assert len({item.question for item in items}) >= 400


def test_items_continue_past_one_pass_over_the_tables() -> None:
    source = TriviaSource(4)
    items = [source.item(i) for i in range(0, 5000, 7)]
    assert all(item.question and item.answer for item in items)


def test_negative_index_is_refused() -> None:
    with pytest.raises(ValueError):
        TriviaSource(0).item(-1)


# --- the tables ---------------------------------------------------------------------------------


def test_tables_hold_hundreds_of_well_formed_questions() -> None:
    items = catalogue()
    assert len({(item.question, item.answer) for item in items}) >= 500
    answers_by_question: dict[str, set[str]] = defaultdict(set)
    for item in items:
        assert item.question.endswith("?"), item
        assert item.question.lstrip('"')[0].isupper(), item
        assert "\n" not in item.question + item.answer, item
        assert ", A:" not in item.question, item
        assert item.answer.strip() == item.answer != "", item
        assert item.question.isascii() and item.answer.isascii(), item
        answers_by_question[item.question].add(item.answer)
    assert all(len(answers) == 1 for answers in answers_by_question.values())


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is the capital of Japan?", "Tokyo"),
        ("What is the chemical symbol for iron?", "Fe"),
        ("What is the atomic number of gold?", "79"),
        ("Which element has the chemical symbol K?", "potassium"),
        ("Which planet is fourth from the Sun?", "Mars"),
        ('Who wrote "Pride and Prejudice"?', "Jane Austen"),
        ("What is a baby kangaroo called?", "joey"),
        ("How many metres are there in a kilometre?", "1000"),
        ("How many days are there in a leap year?", "366"),
        ("What is the 26th letter of the English alphabet?", "Z"),
        ("Which month comes after December?", "January"),
        ("Which day of the week comes before Monday?", "Sunday"),
        ("How many sides does a hexagon have?", "6"),
        ("Which river flows through Paris?", "Seine"),
    ],
)
def test_spot_checks(question: str, answer: str) -> None:
    assert {item.question: item.answer for item in catalogue()}[question] == answer


def test_spot_checks_in_the_raw_tables() -> None:
    assert CAPITALS["Japan"] == "Tokyo"
    assert CAPITALS["Australia"] == "Canberra"
    assert ELEMENTS["iron"] == ("Fe", 26)
    assert ELEMENTS["sodium"] == ("Na", 11)
    assert PLANETS.index("Earth") == 2 and len(PLANETS) == 8
    assert AUTHORS["Moby-Dick"] == "Herman Melville"


def test_arithmetic() -> None:
    item = arithmetic(17, "times", 6)
    assert item == TriviaItem("What is 17 times 6?", "102", "arithmetic")
    assert arithmetic(250, "minus", 75, phrasing=1).answer == "175"
    assert arithmetic(250, "plus", 75).answer == "325"


def test_generated_arithmetic_is_always_right() -> None:
    rng = random.Random(17)
    for _ in range(300):
        item = arithmetic_item(rng)
        a, b = (int(n) for n in re.findall(r"\d+", item.question))
        if "multipl" in item.question or "times" in item.question:
            expected = a * b
        elif "plus" in item.question or "sum" in item.question:
            expected = a + b
        elif "add" in item.question:
            expected = b + a
        elif "subtracted" in item.question or "away from" in item.question:
            expected = b - a  # "{b} subtracted from {a}", "take {b} away from {a}"
        else:
            expected = a - b
        assert item.answer == str(expected), item
        assert int(item.answer) > 0


@pytest.mark.parametrize(
    ("n", "numeral"),
    [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (49, "XLIX"), (90, "XC"),
     (400, "CD"), (900, "CM"), (1994, "MCMXCIV"), (2024, "MMXXIV"), (3999, "MMMCMXCIX")],
)  # fmt: skip
def test_roman_numerals(n: int, numeral: str) -> None:
    assert to_roman(n) == numeral


def test_generated_roman_items_agree_with_to_roman() -> None:
    rng = random.Random(5)
    for _ in range(100):
        item = roman_item(rng)
        number = re.search(r"\b\d+\b", item.question)
        if number:
            assert item.answer == to_roman(int(number.group()))
        else:
            numeral = re.search(r"\b[IVXLCDM]+\b", item.question)
            assert numeral and to_roman(int(item.answer)) == numeral.group()


# --- sizing -------------------------------------------------------------------------------------


def test_need_of_one_gives_one_item() -> None:
    task = make_filler(TriviaSource(0), 0, 1, 4096, WORDS)
    assert task.items == 1
    assert task.next_index == 1


def test_nothing_needed_still_gives_one_item() -> None:
    assert make_filler(TriviaSource(0), 10, 0, 4096, WORDS).items == 1
    assert make_filler(TriviaSource(0), 10, 500, 0, WORDS).items == 1


def test_stops_at_the_first_item_that_reaches_the_need() -> None:
    source = TriviaSource(0)
    task = make_filler(source, 0, 500, 4096, WORDS)
    last = source.item(task.next_index - 1)
    assert task.tokens >= 500
    assert task.tokens - item_tokens(last) < 500


def test_cap_is_respected() -> None:
    source = TriviaSource(0)
    task = make_filler(source, 0, 10_000, 1_000, WORDS)
    biggest = max(item_tokens(source.item(i)) for i in range(task.next_index))
    assert 1_000 <= task.tokens < 1_000 + biggest


def test_tokens_is_the_exact_count() -> None:
    task = make_filler(TriviaSource(0), 0, 2_000, 4_096, WORDS)
    assert task.tokens == WORDS.count(task.message) + WORDS.count(task.expected_reply)
    counter = default_counter()  # tiktoken or the approximation, whichever this machine has
    real = make_filler(TriviaSource(0), 0, 2_000, 4_096, counter)
    assert real.tokens == counter.count(real.message) + counter.count(real.expected_reply)
    assert real.tokens >= 2_000


def test_next_index_advances_by_items_and_chains() -> None:
    source = TriviaSource(9)
    first = make_filler(source, 37, 300, 4096, WORDS)
    assert first.next_index == 37 + first.items
    second = make_filler(source, first.next_index, 300, 4096, WORDS)
    assert second.message.splitlines()[1] == f"Q: {source.item(first.next_index).question}, " + (
        f"A: {source.item(first.next_index).answer}"
    )


def test_same_arguments_give_the_same_task() -> None:
    assert make_filler(TriviaSource(2), 100, 800, 4096, WORDS) == make_filler(
        TriviaSource(2), 100, 800, 4096, WORDS
    )


def test_message_format_and_expected_reply() -> None:
    source = TriviaSource(6)
    task = make_filler(source, 20, 400, 4096, WORDS)
    lines = task.message.split("\n")
    assert lines[0] == INSTRUCTION
    assert len(lines) == 1 + task.items
    items = [source.item(20 + i) for i in range(task.items)]
    assert lines[1:] == [f"Q: {item.question}, A: {item.answer}" for item in items]
    assert all(re.fullmatch(r"Q: .+\?, A: .+", line) for line in lines[1:])
    reply = json.loads(task.expected_reply)
    assert reply == [item.answer for item in items]
    assert task.expected_reply.startswith('["')


# --- checking replies ---------------------------------------------------------------------------


@pytest.fixture
def task() -> FillerTask:
    return make_filler(TriviaSource(11), 0, 300, 4096, WORDS)


def test_expected_reply_passes(task: FillerTask) -> None:
    assert check_filler_reply(task, task.expected_reply)


def test_reordered_and_recased_lists_pass(task: FillerTask) -> None:
    answers = json.loads(task.expected_reply)
    assert check_filler_reply(task, json.dumps(list(reversed(answers))))
    assert check_filler_reply(task, json.dumps([a.upper() for a in answers]))
    assert check_filler_reply(task, "Sure! " + repr(answers))  # the reference's Python-style list


def test_prose_passes(task: FillerTask) -> None:
    answers = json.loads(task.expected_reply)
    prose = "Here you go. The answers were " + ", then ".join(answers) + ". Happy to help!"
    assert check_filler_reply(task, prose)


def test_missing_answer_fails(task: FillerTask) -> None:
    answers = json.loads(task.expected_reply)
    # Drop an answer that occurs once and not as a word inside another answer.
    dropped = next(
        a
        for a in answers
        if answers.count(a) == 1
        and not any(re.search(rf"(?<!\w){re.escape(a.lower())}(?!\w)", b.lower()) for b in answers if b != a)
    )
    rest = [a for a in answers if a != dropped]
    assert not check_filler_reply(task, json.dumps(rest))
    assert not check_filler_reply(task, "The answers: " + "; ".join(rest))


def test_repeated_answers_must_all_be_there() -> None:
    task = FillerTask("m", json.dumps(["4", "Tokyo", "4"]), 0, 3, 3, 0)
    assert check_filler_reply(task, '["4", "tokyo", "4"]')
    assert not check_filler_reply(task, '["4", "Tokyo"]')


def test_numbers_with_thousands_separators_pass() -> None:
    task = FillerTask("m", json.dumps(["5280", "Washington, D.C.", "C"]), 0, 3, 3, 0)
    assert check_filler_reply(task, "5,280 feet; Washington, D.C.; and C")
    assert not check_filler_reply(task, "5,280 feet and Washington, D.C.")
