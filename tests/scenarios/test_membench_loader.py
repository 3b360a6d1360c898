"""The released MemBench format: our cases written in it load back identically; step ids; bad files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.scenarios.membench.benchmark import capacity_asks
from pytest_memorybench.scenarios.membench.case import Case
from pytest_memorybench.scenarios.membench.published import (
    load_cases,
    parse_time,
    to_published,
)
from pytest_memorybench.scenarios.membench.trajectory import generate_case
from tests.support.paths import REFERENCE as SHARED_REFERENCE
from tests.support.runs import run_benchmark

REFERENCE = SHARED_REFERENCE / "membench"


def generated(dialogue: bool, kind: str = "knowledge_update", n: int = 2) -> list[Case]:
    return [
        generate_case(f"g-{kind}-{i}", kind, seed=i, dialogue=dialogue, target_tokens=1500, related=6)
        for i in range(n)
    ]


def published(cases: list[Case], *, dialogue: bool, noise_inserted: bool = False) -> list[dict[str, Any]]:
    """`cases` as a released file lists them, numbered in order."""
    return [
        to_published(case, dialogue=dialogue, noise_inserted=noise_inserted, tid=i)
        for i, case in enumerate(cases)
    ]


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def same_case(
    loaded: Case, original: Case, *, dialogue: bool, suffixed: bool = False, timed: bool = True
) -> None:
    assert (loaded.question, loaded.options, loaded.answer) == (
        original.question,
        original.options,
        original.answer,
    )
    assert loaded.evidence == original.evidence and loaded.steps == original.steps
    assert loaded.messages_per_step == original.messages_per_step
    mine, theirs = list(original.turns()), list(loaded.turns())
    assert len(mine) == len(theirs)
    users = [(m.text, m.timestamp) for m in mine if m.role == "user"]
    if suffixed:  # "<message> (place: P; time'T')": the text says its place and time
        assert all(
            t.text.startswith(m.text[: m.text.rindex(" (place:")]) for m, t in zip(mine, theirs, strict=True)
        )
    elif timed:
        assert users == [(m.text, m.timestamp) for m in theirs if m.role == "user"]
    else:  # FirstAgent test files keep no times: a minute apart from a fixed start
        assert [text for text, _ in users] == [m.text for m in theirs if m.role == "user"]
    assert [m.text for m in mine if m.role == "assistant"] == [
        m.text for m in theirs if m.role == "assistant"
    ]
    for step, texts in zip(loaded.evidence, loaded.evidence_texts, strict=True):
        assert texts and all(
            text
            in theirs[
                step * loaded.messages_per_step + (1 if dialogue and text not in theirs[step * 2].text else 0)
            ].text
            for text in texts
        )


@pytest.mark.parametrize("dialogue", [True, False])
def test_raw_category_files_load_back_as_the_same_cases(tmp_path: Path, dialogue: bool) -> None:
    cases = generated(dialogue)
    folder = "FirstAgent" if dialogue else "ThirdAgent"
    write(
        tmp_path / "MemData" / folder / "knowledge_update.json",
        {"events": published(cases, dialogue=dialogue)},
    )
    loaded = load_cases(str(tmp_path), dialogue=dialogue, prefix="p")
    assert [c.id for c in loaded] == ["p-knowledge_update-events-0", "p-knowledge_update-events-1"]
    for got, original in zip(loaded, cases, strict=True):
        same_case(got, original, dialogue=dialogue)
        assert got.type == "knowledge_update" and got.level == "factual" and got.time is not None


@pytest.mark.parametrize("dialogue", [True, False])
def test_noise_inserted_test_files_load_back_too(tmp_path: Path, dialogue: bool) -> None:
    cases = generated(dialogue, "single_hop")
    stem = "FirstAgentDataLowLevel" if dialogue else "ThirdAgentDataLowLevel"
    path = write(
        tmp_path / "data2test" / "0-10k" / f"{stem}_multiple_0.json",
        {"simple": {"roles": published(cases, dialogue=dialogue, noise_inserted=True)}},
    )
    loaded = load_cases(str(path), dialogue=dialogue, prefix="p")
    for got, original in zip(loaded, cases, strict=True):
        same_case(got, original, dialogue=dialogue, suffixed=not dialogue, timed=not dialogue)
        assert got.type == "simple"
    if not dialogue:
        first = next(iter(loaded[0].turns()))
        assert " (place: the " in first.text and "; time'" in first.text
        assert first.timestamp == next(iter(cases[0].turns())).timestamp, "the time is read from the suffix"


# A raw FirstAgent trajectory of our own in the released layout: three sessions starting at messages
# 0, 14 and 27, five evidence steps named [message, session] as the released files name them.
SESSIONS = (14, 13, 12)
EVIDENCE = {
    4: ("My sister Maren moved to Lisbon last spring.", "Lisbon should suit Maren well."),
    9: ("My uncle Tobias has lived in Lisbon for twenty years now.", "Twenty years in one city is long."),
    18: ("My cousin Ilse just rented a flat in Lisbon near the river.", "A flat by the river sounds lovely."),
    31: (
        "Grandpa Otto still bakes bread every morning by the Tagus.",
        "Fresh bread each morning, a fine habit.",
    ),
    36: ("Aunt Vera says the yellow trams outside her window never stop rattling.", "Those trams are loud."),
}
CHORES = (
    "repainting the shed", "sorting old photographs", "fixing a bicycle chain", "planting tulip bulbs",
    "baking oat biscuits", "cleaning the aquarium", "tuning the piano", "knitting a scarf",
    "reading about volcanoes", "learning chess openings", "building a bird box", "washing the car",
    "ironing shirts",
)  # fmt: skip
RELEASED_IDS = [[4, 0], [9, 0], [18, 1], [31, 2], [36, 2]]


def released_trajectory(ids: list[Any] | None = None) -> dict[str, Any]:
    sessions, step = [], 0
    for number, length in enumerate(SESSIONS):
        turns = []
        for place in range(length):
            chore = CHORES[step % len(CHORES)]
            user, reply = EVIDENCE.get(
                step, (f"Spent hour {step} {chore}.", f"Noted, hour {step} of {chore}.")
            )
            stamp = f"2024-03-{number + 1:02d} {8 + place // 4:02d}:{place % 4 * 15:02d}"
            turns.append({"user_message": user, "assistant_message": reply, "time": stamp, "place": "home"})
            step += 1
        sessions.append(turns)
    qa = {
        "qid": 0,
        "question": "How many of my relatives live in Lisbon?",
        "time": "2024-03-04 09:00",
        "choices": {"A": "2", "B": "3", "C": "5", "D": "4"},
        "ground_truth": "C",
        "answer": "5",
        "target_step_id": RELEASED_IDS if ids is None else ids,
    }
    return {"tid": 0, "message_list": sessions, "QA": qa}


def released_folder(root: Path, ids: list[Any] | None = None) -> Path:
    write(root / "MemData" / "FirstAgent" / "aggregative.json", {"roles": [released_trajectory(ids)]})
    return root


def test_raw_first_agent_ids_are_message_and_session_pairs(tmp_path: Path) -> None:
    """`[[4,0],[9,0],[18,1],[31,2],[36,2]]` with sessions from messages 0, 14 and 27: the first
    number is the message across the whole trajectory (MemBench's load_test_data.py keeps id[0]),
    so all five evidence steps stay, and the capacity asks start after step 36."""
    tally = LoadTally()
    (case,) = load_cases(str(released_folder(tmp_path)), dialogue=True, prefix="p", tally=tally)
    assert case.evidence == (4, 9, 18, 31, 36) and case.steps == sum(SESSIONS)
    turns = list(case.turns())
    for step, (user, reply) in EVIDENCE.items():
        assert (turns[2 * step].text, turns[2 * step + 1].text) == (user, reply)
    assert case.evidence_texts[2] == EVIDENCE[18]
    assert tally.report().lines("membench") == [
        "membench data: 1 FirstAgent trajectory → 0 items; nothing skipped"
    ], "nothing is dropped (the suite counts the items)"
    assert capacity_asks(case, 8) == [case.messages_after(36), case.messages_after(37)]


def test_ids_that_cannot_be_placed_are_counted_never_dropped_quietly(tmp_path: Path) -> None:
    ids = [*RELEASED_IDS, [5, 2], [99, 0], 10**6, -1, "x", []]
    tally = LoadTally()
    (case,) = load_cases(str(released_folder(tmp_path, ids)), dialogue=True, prefix="p", tally=tally)
    assert case.evidence == (4, 5, 9, 18, 31, 36), "[5, 2] is message 5 (of session 0), as MemBench places it"
    assert tally.report().lines("membench")[1:] == [
        "  membench: evidence ids whose message is in another session than they name, placed by the"
        " message as MemBench's code does: 1 (aggregative/roles/0: [5, 2])",
        "  membench: evidence ids outside the trajectory, left out: 3 (aggregative/roles/0: [99, 0] of 39"
        " steps, aggregative/roles/0: 1000000 of 39 steps, aggregative/roles/0: -1 of 39 steps)",
        "  membench: evidence ids that are no step number, left out: 2 (aggregative/roles/0: 'x',"
        " aggregative/roles/0: [])",
    ]
    empty = LoadTally()
    (bare,) = load_cases(str(released_folder(tmp_path / "b", [])), dialogue=True, prefix="p", tally=empty)
    assert bare.evidence == ()
    assert empty.report().notes[0].line() == (
        "questions without evidence ids (recall not measured for them): 1 (aggregative/roles/0)"
    )


def test_our_raw_first_agent_files_number_ids_as_the_released_ones(tmp_path: Path) -> None:
    (case,) = generated(True, "multi_session_assistant", 1)
    raw = to_published(case, dialogue=True, noise_inserted=False)
    starts = [0]
    for session in raw["message_list"]:
        starts.append(starts[-1] + len(session))
    pairs = raw["QA"]["target_step_id"]
    assert len({session for _, session in pairs}) == 4
    assert [message for message, _ in pairs] == list(case.evidence)
    assert all(starts[session] <= message < starts[session + 1] for message, session in pairs)
    write(tmp_path / "FirstAgent" / "RecMultiSession.json", {"movie": [raw]})
    tally = LoadTally()
    (loaded,) = load_cases(str(tmp_path), dialogue=True, prefix="p", tally=tally)
    assert loaded.evidence == case.evidence and not tally.report().notes


def test_raw_third_agent_sessions_are_flattened_the_same_way(tmp_path: Path) -> None:
    """ThirdAgent highlevel raw files hold sessions of messages too (load_test_data.py's
    `infuse_single_trajectory_message_special`), their ids `[message, session]` alike."""

    def message(s: int, m: int) -> dict[str, str]:
        return {
            "message": f"Note {s}-{m}: the kettle is blue.",
            "time": f"2024-05-0{s + 1} 09:0{m}",
            "place": "kitchen",
        }

    sessions = [[message(s, m) for m in range(3)] for s in range(2)]
    qa = {"question": "What colour is the kettle?", "choices": {"A": "blue", "B": "red"}, "ground_truth": "A"}
    trajectory = {"tid": 3, "message_list": sessions, "QA": {**qa, "target_step_id": [[1, 0], [4, 1]]}}
    write(tmp_path / "ThirdAgent" / "highlevel.json", {"movie": [trajectory]})
    tally = LoadTally()
    (case,) = load_cases(str(tmp_path), dialogue=False, prefix="o", tally=tally)
    assert case.evidence == (1, 4) and case.steps == 6 and case.level == "reflective"
    assert [m.text for m in case.turns()][4] == "Note 1-1: the kettle is blue. (place: kitchen)"
    assert tally.report().lines("membench") == [
        "membench data: 1 ThirdAgent trajectory → 0 items; nothing skipped"
    ]


def test_released_participation_data_runs_with_every_evidence_step(pytester: pytest.Pytester) -> None:
    """Through a whole run: the header says what the data held, recall@10 is over all five
    evidence steps (the recall baseline finds 2 of them: 0.400; reading [turn, session] kept only
    steps 4 and 9 and read 1.000), the capacity asks come after step 36, the oracle scores 1."""
    data = released_folder(pytester.path / "released")
    pytester.makefile(".yaml", mb=RELEASED_SUITE)
    run = run_benchmark(pytester, "--agent=recall", "--mb-suite=mb.yaml", f"--mb-data=membench={data}")
    run.outcome.stdout.fnmatch_lines(
        ["memorybench: mb data: 1 FirstAgent trajectory → 1 item; nothing skipped"]
    )
    (item,) = run.results["items"]
    assert item["details"]["scoring"]["evidence"] == [4, 9, 18, 31, 36]
    assert run.results["scenarios"]["membench.participation"]["metrics"]["recall@10"] == 0.4
    assert [ask["turns"] for ask in item["details"]["asks"]] == [78, 74, 76], (
        "after steps 36 and 37, then the end"
    )
    oracle = run_benchmark(pytester, "--agent=oracle", "--mb-suite=mb.yaml", f"--mb-data=membench={data}")
    assert [i["score"] for i in oracle.results["items"]] == [1.0]


RELEASED_SUITE = """
name: mb
span: isolated
threshold: 1.0
scenarios:
  - scenario: membench.participation
    params: {per_type: 0, capacity_points: 8}
"""


def test_the_agent_kind_is_read_from_the_data_when_the_path_does_not_say(tmp_path: Path) -> None:
    first, third = generated(True, "emotion", 1)[0], generated(False, "emotion", 1)[0]
    write(tmp_path / "mixed" / "a.json", [to_published(first, dialogue=True, noise_inserted=True)])
    write(tmp_path / "mixed" / "b.json", [to_published(third, dialogue=False, noise_inserted=False)])
    (one,) = load_cases(str(tmp_path / "mixed"), dialogue=True, prefix="p")
    (two,) = load_cases(str(tmp_path / "mixed"), dialogue=False, prefix="o")
    assert one.question == first.question and two.question == third.question
    write(tmp_path / "highlevel.json", [to_published(third, dialogue=False, noise_inserted=False)])
    assert load_cases(str(tmp_path / "highlevel.json"), dialogue=False, prefix="o")[0].level == "reflective"


def test_per_type_samples_each_type_with_the_seed(tmp_path: Path) -> None:
    cases = generated(False, "single_hop", 6)
    write(
        tmp_path / "ThirdAgent" / "simple.json",
        {"roles": published(cases, dialogue=False)},
    )
    write(
        tmp_path / "ThirdAgent" / "comparative.json",
        {"roles": [to_published(cases[0], dialogue=False, noise_inserted=False)]},
    )
    picked = load_cases(str(tmp_path), dialogue=False, prefix="o", per_type=2, seed=1)
    assert [c.type for c in picked] == ["comparative", "simple", "simple"]
    assert [c.id for c in picked] == [
        c.id for c in load_cases(str(tmp_path), dialogue=False, prefix="o", per_type=2, seed=1)
    ]
    assert len(load_cases(str(tmp_path), dialogue=False, prefix="o")) == 7


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ('"a string"', "expected MemBench trajectories"),
        ('{"roles": [{"tid": 1}]}', "no message_list"),
        ('{"roles": [{"tid": 1, "message_list": []}]}', "no QA"),
        ('{"roles": [{"tid": 1, "message_list": ["x"], "QA": {"question": "q",'
         ' "choices": {"A": "a", "B": "b"}, "ground_truth": "E"}}]}',
         "ground_truth 'E' is not one of its choices"),
        ('{"simple": {"roles": 3}}', "should be a list of trajectories"),
        ('{"roles": [{"tid": 1, "message_list": [3], "QA": {"question": "q",'
         ' "choices": {"A": "a"}, "ground_truth": "A"}}]}',
         "a message is a int"),
    ],
)  # fmt: skip
def test_bad_files_fail_in_one_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "ThirdAgent" / "simple.json"
    path.parent.mkdir()
    path.write_text(content)
    with pytest.raises(UsageError, match=message) as error:
        load_cases(str(path), dialogue=False, prefix="o")
    assert "\n" not in str(error.value)


def test_missing_paths_and_empty_folders_say_so(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file or folder"):
        load_cases(str(tmp_path / "nope"), dialogue=False, prefix="o")
    with pytest.raises(UsageError, match="no .json files"):
        load_cases(str(tmp_path), dialogue=False, prefix="o")


def test_times_are_read_leniently() -> None:
    assert parse_time("'2024-10-01 08:00'").hour == 8  # type: ignore[union-attr]
    assert parse_time("2024-10-01 08:00:30").second == 30  # type: ignore[union-attr]
    assert parse_time("October 1, 2024 08:00").month == 10  # type: ignore[union-attr]
    assert parse_time("next Tuesday") is None and parse_time(None) is None


def test_the_scenario_runs_released_data_and_skips_what_it_lacks(tmp_path: Path) -> None:
    cases = generated(False, "single_hop", 3)
    write(
        tmp_path / "ThirdAgent" / "simple.json",
        {"roles": published(cases, dialogue=False)},
    )
    observation, participation = get_scenario("membench.observation"), get_scenario("membench.participation")
    contexts = observation.contexts("membench", {"data_path": str(tmp_path), "per_type": 0}, 0)
    assert [c.probes[0].test_id for c in contexts] == [f"observation::simple-roles-{i}" for i in range(3)]
    assert contexts[0].probes[0].category == "simple" and contexts[0].probes[0].markers == (
        "observation",
        "simple",
    )
    (nothing,) = participation.contexts("membench", {"data_path": str(tmp_path)}, 0)
    assert "holds no FirstAgent trajectories" in nothing.probes[0].skip_reason  # type: ignore[operator]


@pytest.mark.skipif(
    not any(REFERENCE.rglob("*.json")) if REFERENCE.exists() else True,
    reason="no released MemBench data in shared/reference/membench",
)
def test_the_released_data_loads_when_present() -> None:
    for dialogue in (True, False):
        for case in load_cases(str(REFERENCE), dialogue=dialogue, prefix="r", per_type=3):
            assert case.answer in "ABCD"[: len(case.options)]
            assert all(0 <= step < case.steps for step in case.evidence)
            assert sum(1 for _ in case.turns()) == case.steps * case.messages_per_step
