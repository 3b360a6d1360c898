"""Where each answer was lost: the classes of concrete items, and their sums."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_memorybench.results.losses import CLASSES, loss_class, loss_split, split_text


def item(
    passed: bool, recall: float | None, context: float | None = None, score: float | None = 1.0
) -> dict[str, Any]:
    evidence: dict[str, Any] | None = None
    if recall is not None:
        evidence = {"recall": recall, **({"context": {"recall": context}} if context is not None else {})}
    return {"score": score, "passed": passed, "details": {"evidence": evidence} if evidence else {}}


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (item(True, 1.0, 1.0), "found_right"),
        (item(False, 1.0, 1.0), "found_wrong"),
        (item(False, 1.0, 0.5), "cut_from_prompt"),  # search found it all, the prompt held half
        (item(False, 0.5, 0.5), "not_retrieved"),  # one of two messages of a multi-hop question
        (item(True, 0.0), "right_without"),
        (item(True, 1.0, 0.0), "right_without"),  # right though the prompt held none of it
        (item(False, 1.0), "found_wrong"),  # no context reported: what search found is what it had
        (item(False, None), "no_evidence"),
        (item(False, 1.0, score=None), None),  # errored: no verdict, no class
    ],
)
def test_each_item_falls_in_one_class(record: dict[str, Any], expected: str | None) -> None:
    assert loss_class(record) == expected


def test_the_split_counts_every_scored_item_and_shares_those_with_evidence() -> None:
    records = [
        item(True, 1.0, 1.0),
        item(True, 1.0, 1.0),
        item(False, 1.0, 1.0),
        item(False, 0.0, 0.0),
        item(False, None),
        item(False, 1.0, score=None),
    ]
    split = loss_split(records)
    assert split is not None
    assert split["items"] == 5 and split["labelled"] == 4 and sum(split["counts"].values()) == 5
    assert set(split["counts"]) == set(CLASSES)
    assert split["shares"]["found_right"] == 0.5 and split["shares"]["not_retrieved"] == 0.25
    assert split["reasoning_loss"] == pytest.approx(1 / 3, abs=1e-6)
    text = split_text(split)
    assert text is not None and text.startswith(
        "where answers were lost (4 with evidence): found and right 50.0%"
    )
    assert text.endswith("; 1 without labelled evidence")


def test_a_run_that_never_measured_recall_has_no_split() -> None:
    assert loss_split([item(True, None), item(False, None)]) is None
