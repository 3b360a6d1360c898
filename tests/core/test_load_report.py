"""The record of what a loader read: its header lines, and the reports of one suite's scenarios as one."""

from __future__ import annotations

from dataclasses import replace

from pytest_memorybench.core.load_report import LoadReport, LoadTally, counted, merged


def test_counts_take_their_noun_in_the_singular_when_one() -> None:
    assert [
        counted(n, noun) for n, noun in ((1, "trajectories"), (1, "questions"), (1_986, "questions"))
    ] == [
        "1 trajectory",
        "1 question",
        "1,986 questions",
    ]


def test_a_note_keeps_a_few_distinct_examples_and_says_when_there_are_more() -> None:
    tally = LoadTally()
    tally.held("conversations", 2)
    for example in ("a", "a", "b", "c"):
        tally.note("ids that name nothing", example)
    tally.note("gaps read by the table", "x", 2)
    report = replace(tally.report(), items=7)
    assert report.lines("s") == [
        "s data: 2 conversations → 7 items",
        "  s: ids that name nothing: 4 (a, b, c)",
        "  s: gaps read by the table: 2 (x)",
    ]
    tally.note("ids that name nothing", "d")
    assert tally.report().notes[0].line() == "ids that name nothing: 5 (a, b, c, …)"
    assert LoadReport((("rows", 3),), items=3).lines("t") == ["t data: 3 rows → 3 items; nothing skipped"]


def test_one_suites_reports_add_up_and_a_fact_of_the_whole_path_counts_once() -> None:
    """MemBench's two scenarios each count their own agent's trajectories; six ConvoMem kinds each
    see the same file outside its folders."""
    first, second = LoadTally(), LoadTally()
    first.held("FirstAgent trajectories", 3)
    second.held("ThirdAgent trajectories", 2)
    for tally, example in ((first, "p-1"), (second, "o-4")):
        tally.note("questions without evidence ids", example)
        tally.note("files outside the folders", count=1, shared=True)
    together = merged([replace(first.report(), items=3), None, replace(second.report(), items=2)])
    assert together is not None and together.lines("membench") == [
        "membench data: 3 FirstAgent trajectories, 2 ThirdAgent trajectories → 5 items",
        "  membench: questions without evidence ids: 2 (p-1, o-4)",
        "  membench: files outside the folders: 1",
    ]
    assert merged([None, None]) is None
