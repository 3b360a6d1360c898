"""LoCoMo-Plus's cognitive category: the stitching of its scripts on a hand-built example, its time
gaps, our cue / trigger pairs (no shared content words), its judge's two profiles on concrete
replies, and the category run from a file of our own in the published layout."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.readers import reading
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.locomo.data import Sample, Session, Turn
from pytest_memorybench.scenarios.locomo.generator import write_locomo
from pytest_memorybench.scenarios.locomo.plus import (
    VAGUE,
    PlusItem,
    conversation_for,
    gap_days,
    generated_items,
    load_plus,
    plus_json,
    shared_words,
    stitch,
)
from pytest_memorybench.scenarios.locomo.scenario import SCENARIO
from tests.support.runs import QUIET, run_benchmark


@pytest.mark.parametrize(
    ("gap", "days"),
    [
        ("two weeks later", 14),
        ("About a month later", 30),
        ("3 years on", 1095),
        ("five days after", 5),
        ("an hour later", 0),
        ("", 0),
        ("several months later", 150),
        ("a couple of months later", 60),
        ("a few weeks later", 21),
        ("several weeks later", 35),
        ("several years later", 1825),
    ],
)
def test_a_time_gap_is_read_in_days_weeks_months_and_years(gap: str, days: int) -> None:
    assert gap_days(gap) == days


def test_vague_gaps_are_read_by_the_table_and_counted_and_an_unread_one_said(tmp_path: Path) -> None:
    """LoCoMo-Plus's 15 vague gaps (`build_conv.py` reads them as 0 days: the cue on the trigger's
    day) are read as VAGUE says, and the loader's report counts them and any gap still unread."""
    assert VAGUE == {"a couple of": 2, "a few": 3, "several": 5}
    gaps = ["several months later", "a couple of months later", "two weeks later", "several months later",
            "a few weeks later", "the following autumn"]  # fmt: skip
    items = [PlusItem("A: My knee is bad.", "A: Shall we run?", gap) for gap in gaps]
    stitched = [stitch(item, n, _sample(0)).sample.sessions for n, item in enumerate(items)]
    cues = [next(s.when for s in sessions if s.number == 0) for sessions in stitched]
    trigger = datetime(2023, 6, 17, 9)
    assert [(trigger - cue).days for cue in cues] == [150, 60, 14, 150, 21, 0]
    path = tmp_path / "locomo_plus.json"
    path.write_text(json.dumps(plus_json(items)), encoding="utf-8")
    tally = LoadTally()
    load_plus(path, tally)
    assert tally.report().lines("locomo") == [
        "locomo data: 6 LoCoMo-Plus items → 0 items",
        "  locomo: LoCoMo-Plus time gaps in vague words, read by the table in docs/suites/locomo.md: 4"
        " ('several months later' as 150 days, 'a couple of months later' as 60 days, 'a few weeks later'"
        " as 21 days)",
        "  locomo: LoCoMo-Plus time gaps we cannot read, the cue placed on the trigger's day: 1"
        " ('the following autumn')",
    ]


def _sample(index: int) -> Sample:
    def session(number: int, when: datetime) -> Session:
        turns = (
            Turn("Nadia", f"D{number}:1", f"hello {number}"),
            Turn("Joel", f"D{number}:2", f"hi {number}"),
        )
        return Session(number, when.strftime("%I:%M %p on %d %B, %Y"), when, turns)

    dates = [datetime(2023, 5, 1, 10), datetime(2023, 5, 20, 9), datetime(2023, 6, 10, 9)]
    return Sample(
        index, f"conv-{index}", ("Nadia", "Joel"), tuple(session(n, d) for n, d in enumerate(dates, 1)), ()
    )


def test_the_cue_is_placed_by_its_gap_and_the_trigger_a_week_after_the_last_session() -> None:
    item = PlusItem(
        "A: My doctor says no more peanuts for me.\nB: Oh no, that is a big change.",
        "A: Any ideas for snacks on the road trip?",
        "two weeks later",
    )
    stitched = stitch(item, 3, _sample(0))
    # built by hand: the trigger on 17 June (10 June + 7 days), the cue two weeks before, 3 June
    assert stitched.query_time == datetime(2023, 6, 17, 9)
    assert [s.when for s in stitched.sample.sessions] == [
        datetime(2023, 5, 1, 10),
        datetime(2023, 5, 20, 9),
        datetime(2023, 6, 3, 9),
        datetime(2023, 6, 10, 9),
    ]
    cue = stitched.sample.sessions[2]
    assert [(t.speaker, t.text) for t in cue.turns] == [
        ("Nadia", "My doctor says no more peanuts for me."),
        ("Joel", "Oh no, that is a big change."),
    ], "A is the conversation's first speaker, B its second"
    assert stitched.trigger == "Nadia: Any ideas for snacks on the road trip?"
    assert stitched.cue_ids == (1, 2) and stitched.id == "plus-3"


def test_a_cue_on_a_sessions_date_follows_it_and_a_gap_beyond_the_start_leads() -> None:
    on_day = stitch(PlusItem("A: x is so", "B: y", "four weeks"), 0, _sample(0))  # 17 June - 28 days = 20 May
    assert [s.number for s in on_day.sample.sessions] == [1, 2, 0, 3], "after the session of its date"
    early = stitch(PlusItem("A: x is so", "B: y", "a year later"), 0, _sample(0))
    assert early.sample.sessions[0].number == 0


def test_items_go_round_the_conversations_or_are_drawn_with_the_seed() -> None:
    samples = [_sample(index) for index in range(10)]
    assert [conversation_for(n, samples, "cycle", 0).index for n in (0, 9, 12)] == [0, 9, 2]
    drawn = [conversation_for(n, samples, "random", 5).index for n in range(20)]
    assert (
        drawn == [conversation_for(n, samples, "random", 5).index for n in range(20)] and len(set(drawn)) > 3
    )


def test_our_cues_and_triggers_share_no_content_word() -> None:
    items = generated_items(8)
    assert len({item.cue_dialogue for item in items}) == 8
    for item in items:
        assert shared_words(item.cue_dialogue, item.trigger_query) == set(), item
    assert shared_words("A: I avoid peanuts.", "B: Any peanuts left?") == {"peanuts"}, "the check can fail"


@pytest.mark.asyncio
@pytest.mark.parametrize(("profile", "half"), [("paper", 0.5), ("official", 0.0)])
async def test_a_reply_that_keeps_the_cue_scores_and_a_partial_link_depends_on_the_profile(
    profile: str, half: float
) -> None:
    contexts = [c for c in SCENARIO.contexts("locomo", {}, 0) if c.probes[0].category == "cognitive"]
    definition = contexts[1].probes[0]  # the knee: "the knee injury, no jogging"
    judged = ScoringContext(profile=profile, judge=LocalJudge())  # type: ignore[arg-type]
    right = await SCENARIO.score(
        definition, ["Not with that knee injury: no jogging until spring, remember?"], judged
    )
    partial = await SCENARIO.score(
        definition, ["Careful with that knee injury; maybe walk it instead."], judged
    )
    wrong = await SCENARIO.score(definition, ["Sure, the charity run sounds great, sign me up!"], judged)
    assert (right.value, partial.value, wrong.value) == (1.0, half, 0.0)


def test_a_file_of_another_layout_fails_in_one_line(tmp_path: Path) -> None:
    data, _ = write_locomo(tmp_path, conversations=1)
    with pytest.raises(Exception) as raised, reading(f"LoCoMo-Plus data {data}"):
        load_plus(data)
    assert "cue_dialogue and trigger_query" in str(raised.value) and "\n" not in str(raised.value)


def test_category_six_runs_from_a_file_of_our_own_in_the_published_layout(pytester: pytest.Pytester) -> None:
    data, _ = write_locomo(pytester.path, conversations=2)
    plus = pytester.path / "locomo_plus.json"
    items = generated_items(3)
    items[1] = replace(items[1], time_gap="several months later")
    plus.write_text(json.dumps(plus_json(items)), encoding="utf-8")
    given = (f"--mb-data=locomo={data}", f"--mb-data=locomo_plus={plus}")
    run = run_benchmark(pytester, "--agent=oracle", "--mb-suite=locomo", *given, "-m", "cognitive", *QUIET)
    run.outcome.stdout.fnmatch_lines(
        [
            "memorybench: locomo data: 2 conversations, 20 questions, 3 LoCoMo-Plus items → 23 items",
            "memorybench:   locomo: LoCoMo-Plus time gaps in vague words, read by the table in"
            " docs/suites/locomo.md: 1 ('several months later' as 150 days)",
        ]
    )
    items = run.results["items"]
    assert sorted(item["test_id"] for item in items) == [
        "gen-1::plus-0::cognitive",
        "gen-1::plus-2::cognitive",
        "gen-2::plus-1::cognitive",
    ], "item i goes into conversation i mod 2"
    assert all(item["score"] == 1.0 for item in items)
    metrics = run.results["scenarios"]["locomo.conversations"]["metrics"]
    assert "categories 1-4" not in metrics and metrics["category 6 (cognitive)"] == 1.0, "apart from 1-5"


def test_offline_category_six_calibrates(pytester: pytest.Pytester) -> None:
    means = {}
    for agent in ("oracle", "null"):
        run = run_benchmark(pytester, f"--agent={agent}", "--mb-suite=locomo", "-m", "cognitive", *QUIET)
        items = run.results["items"]
        assert len(items) == 8 and {item["category"] for item in items} == {"cognitive"}
        means[agent] = run.results["totals"]["mean"]
    assert means == {"oracle": 1.0, "null": 0.0}
