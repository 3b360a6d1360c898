"""Evidence recall: cut at k, matched by content, and measured over the prompt as well as the search.

Each test hands the measure a list a careless or a gaming memory could return, and checks the
verdict: everything heard returned newest first, a one-word piece of evidence, one paragraph of a
chapter, a statement split over two memories.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.agents.evidence_match import holds
from pytest_memorybench.conversation.evidence import (
    EVIDENCE_K,
    MEMORY_CHARS,
    context_recall,
    evidence_recall,
    mean_recall,
)
from tests.support.runs import results_in

pytest_plugins = ["pytester"]

FACT = "My sister Anna moved to Lisbon in May."
CHAPTER = "\n\n".join(
    [
        "Chapter 3",
        "On a wet Tuesday the baker of Lindell Street found a brass key in his flour sack.",
        "He asked every customer about it, and nobody knew which door it opened.",
        "By the evening he had hung it on a nail above the counter, where it stayed for years.",
    ]
)


def recall(evidence: list[str], memories: list[str], **options: Any) -> dict[str, Any]:
    measured = evidence_recall(evidence, memories, **options)
    assert measured is not None
    return measured


def test_a_memory_holding_the_statement_with_its_stamp_speaker_and_reply_finds_it() -> None:
    assert recall([FACT], [f"[2024-05-01 09:00] user: {FACT}\nassistant: Noted!"])["recall"] == 1.0
    assert recall([FACT], [f"user: {FACT.upper()}  (said twice)"])["recall"] == 1.0  # case and layout
    assert holds(f"Chapter 9, Paragraph 1: {FACT}", FACT)


def test_a_statement_split_over_two_memories_is_not_found() -> None:
    split = ["user: My sister Anna is a nurse.", "user: She moved to Lisbon in May."]
    assert recall([FACT], split)["recall"] == 0.0
    assert not holds(split[1], FACT)


def test_a_short_piece_is_found_only_as_a_whole_line() -> None:
    assert recall(["Yes."], ["user: Yes, but only on Sundays."])["recall"] == 0.0
    assert recall(["Yes."], ["I said yes to the invitation."])["recall"] == 0.0
    assert recall(["Yes."], ["[2024-05-01 09:00] user: Yes."])["recall"] == 1.0
    assert recall(["Sure, 4pm."], ["assistant: Noted.\nuser: sure, 4pm."])["recall"] == 1.0


def test_a_chapter_counts_the_share_of_its_paragraphs_found() -> None:
    paragraphs = CHAPTER.split("\n\n")
    one = [f"Chapter 3, Paragraph 2: {paragraphs[1]}"]
    assert recall([CHAPTER], one)["recall"] == 0.25  # one of four paragraphs ("Chapter 3" is one)
    labelled = [f"Chapter 3, Paragraph {n}: {text}" for n, text in enumerate(paragraphs, 1)]
    assert recall([CHAPTER], labelled)["recall"] == 1.0
    assert (
        recall([CHAPTER, FACT], [*labelled[:2], FACT])
        == {
            "k": EVIDENCE_K,
            "returned": 3,
            "used": 3,
            "evidence": 2,
            "recalled": 1.5,
            "recall": 0.75,
            "relevant": 3,
            "precision": 1.0,
            "tokens": 48,
            "evidence_tokens": 32,  # the labels "Chapter 3, Paragraph n:" are not evidence
            "share": 0.666667,
            "memories": [*labelled[:2], FACT],
        }
    )


def test_the_record_keeps_the_memories_searched_each_cut_to_its_opening() -> None:
    long = "user: " + "a very long memory about the garden " * 20
    measured = recall([FACT], [FACT, long, *[f"memory {n}" for n in range(20)]])
    kept = measured["memories"]
    assert len(kept) == EVIDENCE_K and kept[0] == FACT  # the k searched, in the order returned
    assert len(kept[1]) == MEMORY_CHARS and kept[1].endswith("…") and long.startswith(kept[1][:-1])


def test_only_the_first_k_memories_count_however_many_come_back() -> None:
    heard = [f"user: Filler message {n} about trains and the weather." for n in range(50)]
    everything = [FACT, *heard][::-1]  # all it heard, newest first: the evidence comes last
    measured = recall([FACT], everything)
    assert (measured["recall"], measured["returned"], measured["used"]) == (0.0, 51, EVIDENCE_K)
    assert recall([FACT], [FACT, *heard])["recall"] == 1.0  # ranked first, it counts


def test_units_count_when_any_of_their_pieces_is_found() -> None:
    evidence = ["I bought 3 plants.", "I bought 2 more plants.", "My commute is 35 minutes."]
    measured = recall(evidence, ["[2023-05-01] user: I bought 3 plants."], groups=["s1", "s3", "s3"])
    assert (measured["recalled"], measured["evidence"]) == (1, 3)
    assert (measured["groups_recalled"], measured["groups"]) == (1, 2)
    assert "groups" not in recall(evidence, [])
    assert evidence_recall([], ["anything"]) is None and evidence_recall(["  "], ["anything"]) is None


def test_context_recall_reads_every_memory_the_prompt_held() -> None:
    shown = [f"memory {n}: the tram to Belém leaves every {n} minutes." for n in range(30)] + [FACT]
    measured = context_recall([FACT], shown)
    assert measured is not None
    assert {name: measured[name] for name in ("memories", "evidence", "recalled", "recall", "relevant")} == {
        "memories": 31,
        "evidence": 1,
        "recalled": 1.0,
        "recall": 1.0,
        "relevant": 1,
    }
    assert measured["precision"] == round(1 / 31, 6) and measured["share"] < 0.05
    assert context_recall([FACT], []) == {
        "memories": 0,
        "evidence": 1,
        "recalled": 0.0,
        "recall": 0.0,
        "relevant": 0,
        "precision": None,
        "tokens": 0,
        "evidence_tokens": 0,
        "share": None,
    }


def test_the_mean_says_how_often_search_returned_more_than_k_and_what_the_prompts_held() -> None:
    def item(retrieval: float, returned: int, context: float | None = None) -> dict[str, Any]:
        evidence: dict[str, Any] = {"k": 10, "returned": returned, "recall": retrieval}
        if context is not None:
            evidence["context"] = {"recall": context}
        return {"score": 1.0, "details": {"evidence": evidence}}

    summary = mean_recall([item(1.0, 10, 0.5), item(0.0, 40, 1.0), item(0.5, 3), {"score": None}])
    assert summary == {
        "k": 10,
        "mean": 0.5,
        "questions": 3,
        "over_k": 1,
        "context_mean": 0.75,
        "context_questions": 2,
    }


GREEDY_AGENT = '''
class Greedy:
    """Remembers everything; `retrieve` hands all of it back, newest first, whatever k."""

    def __init__(self):
        self.heard = []

    def reply(self, message):
        self.heard.append(message.text)
        return "I don't know."

    def observe(self, messages):
        self.heard += [message.text for message in messages]

    def retrieve(self, query, k):
        return self.heard[::-1]
'''


def test_an_agent_returning_all_it_heard_is_measured_on_its_first_k(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(greedy=GREEDY_AGENT)
    run = pytester.path / "run"
    result = pytester.runpytest(
        "--memorybench",
        "--agent=greedy:Greedy",
        "--span=32k",
        "-p",
        "no:cacheprovider",
        "-k",
        "colours or name_list or shopping or locations",
        f"--mb-output={run}",
    )
    results = results_in(Path(run))
    measured = [r["details"]["evidence"] for r in results["items"] if r["details"].get("evidence")]
    assert measured, result.stdout.str()
    assert all(m["returned"] > m["used"] == EVIDENCE_K for m in measured)
    totals = results["totals"]["evidence_recall"]
    assert totals["mean"] < 0.5 and totals["over_k"] == totals["questions"], totals
    assert totals["precision_mean"] < 0.2 and totals["share_mean"] < 0.2, (
        "most of what it returns is not evidence"
    )
