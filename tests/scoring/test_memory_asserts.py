"""The asserts of what a memory must not give: each passes on a clean memory and fails, on a leaky
one, with the message checked line by line; and the example in the docs runs as written."""

from __future__ import annotations

import pytest

from pytest_memorybench import assert_forgotten, assert_isolated, assert_not_returned, assert_not_stale
from tests.support.paths import EXAMPLES

pytest_plugins = ["pytester"]

FACT = "My sister Anna moved to Lisbon in May."


def failure(check: object) -> list[str]:
    with pytest.raises(AssertionError) as raised:
        check()  # type: ignore[operator]
    return str(raised.value).splitlines()


def test_not_returned_names_each_memory_that_holds_the_text() -> None:
    returned = ["user: I live at 4 Oak Lane.", "user: My old flat on 12 Elm Street was damp."]
    assert failure(lambda: assert_not_returned("12 Elm Street", returned)) == [
        "memory check failed (not_returned): 1 of 2 memories returned hold what must not come back",
        "  must not return: 12 Elm Street",
        "  memory [1]: user: My old flat on 12 Elm Street was damp.",
    ]
    assert assert_not_returned("12 Elm Street", returned[:1]).value == 1.0
    assert assert_not_returned(["Elm"], ["I like elms."]).value == 1.0  # whole words: "elms" is not "Elm"


def test_a_long_text_is_held_as_evidence_is_found_by_its_content_words() -> None:
    stamped = [f"[2024-05-01 09:00] user: {FACT}\nassistant: Noted!"]
    assert failure(lambda: assert_not_returned(FACT, stamped))[0].startswith(
        "memory check failed (not_returned): 1 of 1"
    )
    split = ["user: My sister Anna is a nurse.", "user: She moved to Lisbon in May."]
    assert assert_not_returned(FACT, split).value == 1.0  # no one memory holds it


def test_many_leaks_show_the_first_three_and_count_the_rest() -> None:
    lines = failure(lambda: assert_forgotten("red", [f"note {n}: red" for n in range(5)]))
    assert (
        lines[0]
        == "memory check failed (forgotten): a deleted memory is still there: 5 of 5 memories hold it"
    )
    assert lines[1:3] == ["  deleted: red", "  memory [0]: note 0: red"] and lines[-1] == "  … and 2 more"
    assert len(lines) == 8


def test_isolated_says_which_namespace_saw_which_memory() -> None:
    leaked = ["alice: My favourite number is 7.", "[bob] user: My PIN is 4321, keep it safe."]
    lines = failure(
        lambda: assert_isolated(leaked, ["My PIN is 4321, keep it safe."], namespace="alice", other="bob")
    )
    assert lines == [
        "memory check failed (isolated): a search in namespace 'alice' returned 1 of 2 memories written to"
        " namespace 'bob' only",
        "  written to 'bob': My PIN is 4321, keep it safe.",
        "  memory [1]: [bob] user: My PIN is 4321, keep it safe.",
    ]
    assert assert_isolated(leaked[:1], ["My PIN is 4321, keep it safe."]).value == 1.0


def test_not_stale_fails_on_the_clause_that_asserts_the_old_value() -> None:
    reply = "It used to be blue. Your favourite colour is red."
    assert failure(lambda: assert_not_stale(reply, ["blue", "red"], current="green")) == [
        "memory check failed (not_stale): the reply asserts a superseded value",
        "  superseded: red",
        "  current:    green",
        "  asserted:   'Your favourite colour is red.' (no negation, change or past in its clause)",
        "  got:        It used to be blue. Your favourite colour is red.",
    ]
    assert assert_not_stale("Green. Not red, and no longer blue.", ["red", "blue"]).value == 1.0
    assert "current" not in "\n".join(failure(lambda: assert_not_stale("Red.", "red")))


def test_the_docs_example_passes_and_a_leaky_store_fails_it(pytester: pytest.Pytester) -> None:
    example = (EXAMPLES / "test_memory_hygiene.py").read_text()
    pytester.makepyfile(test_memory_hygiene=example)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=4)
    leaky = example.replace(
        "found = [note for note in self.notes.get(namespace, []) if words & set(note.lower().split())]",
        "found = [note for notes in self.notes.values() for note in notes]",  # every namespace, everything
    ).replace("self.notes[namespace] = [", "_ = [")  # and a delete that keeps it
    assert leaky != example
    pytester.makepyfile(test_memory_hygiene=leaky)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=3)
    for line in (  # each on its own: the tests' order may be shuffled (pytest-randomly)
        "*memory check failed (not_returned): 1 of 2 memories returned hold what must not come back",
        "*memory check failed (isolated): a search in namespace 'alice' returned 1 of 2 memories*",
        "*memory check failed (forgotten): a deleted memory is still there: 1 of 1 memories hold it",
    ):
        result.stdout.fnmatch_lines([line])
