"""The refusal of a name we do not know: the closest known names, or the list, never a wall of text."""

from __future__ import annotations

import pytest

from pytest_memorybench.core.names import closest, suggest

PROFILES = ("paper", "official", "audited")


@pytest.mark.parametrize(
    ("name", "known", "expected"),
    [
        ("recal", ["recall", "null", "oracle"], ["recall"]),
        ("PAPR", PROFILES, ["paper"]),  # case aside
        ("ltm.colors", ["ltm.colours", "ltm.jokes", "ltm.locations"], ["ltm.colours"]),  # not the far ones
        ("mem", ["memgpt", "memorybank", "mem0"], ["mem0"]),  # memgpt is much further
        ("xyzzy", PROFILES, []),
        ("anything", [], []),
    ],
)
def test_closest_names_only_what_is_near(name: str, known: list[str], expected: list[str]) -> None:
    assert closest(name, known) == expected


def test_a_close_name_is_suggested_and_the_list_follows() -> None:
    assert suggest("papr", PROFILES) == "did you mean paper? (known: paper, official, audited)"


def test_nothing_close_gives_the_list_or_where_it_is() -> None:
    assert suggest("zz", PROFILES) == "known: paper, official, audited"
    assert suggest("zz", PROFILES, where="every form: pytest --help") == "every form: pytest --help"


def test_a_name_is_suggested_as_it_is_written() -> None:
    written = {"rag": "rag:MODEL_SPEC"}
    assert (
        suggest("ragg", ["rag", "recall"], where="w", written=written) == "did you mean rag:MODEL_SPEC? (w)"
    )


def test_several_close_names_read_as_a_choice() -> None:
    assert suggest("memgp", ["memgpt", "memgpu"], where="w") == "did you mean memgpt or memgpu? (w)"
