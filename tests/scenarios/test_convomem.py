"""ConvoMem: the loader on a download of our own in its Hugging Face folders (evidence questions,
pre-mixed test cases, filler, personas), evidence located by ConvoMem's own rule, the mixing of
evidence among filler, each kind's judge rule on concrete replies, and the suite's calibration on
generated and published data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.readers import reading
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.convomem.data import Conversation, Turn
from pytest_memorybench.scenarios.convomem.loader import load_convomem
from pytest_memorybench.scenarios.convomem.matching import locate
from pytest_memorybench.scenarios.convomem.scenario import IDS, SCENARIOS, mixed
from tests.support.convomem import FILLER, NOT_THERE, PERSON, filler, user_items, write_download
from tests.support.runs import QUIET, run_benchmark, usage_error_line


def _scenario(part: str):  # type: ignore[no-untyped-def]
    return next(s for s in SCENARIOS if s.part == part)


def test_evidence_questions_are_read_with_their_persons_filler(tmp_path: Path) -> None:
    loaded = load_convomem(write_download(tmp_path), "user_facts", 10, cases="evidence")
    assert [(item.evidence_count, item.person) for item in loaded.items] == [(2, PERSON), (2, PERSON)], (
        "the item without personId takes the file name's"
    )
    assert [len(item.evidence) for item in loaded.items] == [2, 3]
    assert sum(len(c) for c in loaded.filler.values()) == FILLER and loaded.roles == {
        PERSON: "Procurement Lead"
    }
    report = loaded.report
    assert (report.files, report.items, report.filler, report.personas) == (3, 2, FILLER, 1)
    assert dict(report.skipped) == {
        "evidence items without a question and an answer": 1,
        "evidence messages found in no conversation": 1,
        "filler conversations without messages": 1,
    }
    assert report.other_files == 1 and report.topped_up == 0
    assert report.report().lines("convomem") == [
        "convomem data: 2 questions → 0 items",
        "  convomem: not used: evidence items without a question and an answer: 1 (user_evidence)",
        "  convomem: not used: evidence messages found in no conversation: 1 (user_evidence)",
        "  convomem: not used: filler conversations without messages: 1 (user_evidence)",
        "  convomem: JSON files outside ConvoMem's folders, left alone: 1",
    ], "the header's lines (the suite adds the items)"


def test_pre_mixed_cases_are_read_as_given(tmp_path: Path) -> None:
    loaded = load_convomem(write_download(tmp_path), "user_facts", 10)
    assert [(case.size, len(case.items), case.length) for case in loaded.cases] == [(10, 2, 10), (10, 1, 10)]
    assert loaded.report.other_sizes == {4: 1} and loaded.report.cases == 2 and loaded.report.items == 3
    assert loaded.report.skipped == {"evidence messages found in no conversation": 2}
    first, second = user_items()
    case = loaded.cases[0]
    history = case.history()
    assert [c.id for c in history[1:3]] == [first.conversations[0].id, "filler-imogen-3"], (
        "in the published order"
    )
    assert history[1].turns[4] == Turn("user", first.conversations[0].turns[4].text), "speakers as published"
    for item, source in zip(case.items, (first, second), strict=True):
        found = [history[number].turns[place] for number, place in case.evidence[item.id]]
        assert [turn.text for turn in found] == [
            turn.text
            for conversation in source.conversations
            for turn in conversation.turns
            if turn.text.rstrip(".").lower() in {e.text.rstrip(".").lower() for e in source.evidence}
        ]
    assert case.missing == {case.items[0].id: 0, case.items[1].id: 1}
    assert loaded.cases[1].items[0].id == case.items[1].id, "an item is named alike in every case"


def test_a_size_no_pre_mixed_case_has_fails_in_one_line(tmp_path: Path) -> None:
    root = write_download(tmp_path)
    with pytest.raises(Exception) as raised, reading(f"convomem data {root}"):
        load_convomem(root, "user_facts", 20)
    assert "no pre-mixed test case of user_evidence has 20 conversations (they have 4, 10)" in str(
        raised.value
    )
    assert "\n" not in str(raised.value)


def test_the_limit_keeps_the_first_questions_and_says_so(tmp_path: Path) -> None:
    root = write_download(tmp_path)
    loaded = load_convomem(root, "user_facts", 10, limit=1)
    assert [len(case.items) for case in loaded.cases] == [1] and loaded.report.beyond_limit == 1
    evidence = load_convomem(root, "user_facts", 10, cases="evidence", limit=1)
    assert len(evidence.items) == 1
    assert "  convomem: questions past limit, not asked: 2 (user_evidence)" in evidence.report.report().lines(
        "convomem"
    )


def test_evidence_is_located_by_convomems_own_rule() -> None:
    said = "I moved the budget review to Thursday at ten in room Atrium."
    history = [
        Conversation("a", (Turn("User", "Hello there."), Turn("Assistant", said))),
        Conversation("b", (Turn("user", f"So: {said} Thanks."), Turn("user", said[:-1].upper()))),
    ]
    assert locate([Turn("User", said)], history) == ([(1, 0)], 0), "same speaker only; containment first"
    assert locate([Turn("Assistant", said.lower())], history) == ([(0, 1)], 0), "within the Levenshtein bound"
    agreed = (
        "We agreed the offsite budget is twelve thousand dollars, split between travel, rooms and dinner."
    )
    longer = Turn(
        "User", f"{agreed} Please note that down."
    )  # 80 % of it is the message; too far for the 15 %
    assert locate([longer], [Conversation("c", (Turn("User", agreed),))]) == ([(0, 0)], 0)
    assert locate(
        [Turn("User", f"{agreed} Please note that down, all of it, now.")],
        [Conversation("c", (Turn("User", agreed),))],
    ) == ([], 1)
    assert locate([Turn("User", said)], history, {0}) == ([], 1), "only the conversations asked"
    assert locate([Turn("User", "Nothing like it at all, really not.")], history) == ([], 1)
    assert locate([Turn("User", "  ")], history) == ([], 1), "an empty copy is no evidence"


def test_a_folder_of_another_layout_fails_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "misc").mkdir()
    (tmp_path / "misc" / "x.json").write_text(json.dumps({"evidence_items": []}), encoding="utf-8")
    (tmp_path / "locomo10.json").write_text(json.dumps([{"sample_id": "conv-26"}]), encoding="utf-8")
    with pytest.raises(Exception) as raised, reading(f"convomem data {tmp_path}"):
        load_convomem(tmp_path, "user_facts", 10)
    assert "Salesforce/ConvoMem" in str(raised.value) and "\n" not in str(raised.value)


def test_evidence_keeps_its_order_among_filler_of_the_same_person(tmp_path: Path) -> None:
    loaded = load_convomem(write_download(tmp_path), "changing_facts", 10)
    (item,) = loaded.items
    for size in (2, 10, 20):
        history = mixed(item, loaded.filler, size, seed=0)
        assert len(history) == max(size, 3), "every evidence conversation is kept, the rest is filler"
        evidence = [c for c in history if c in item.conversations]
        assert evidence == list(item.conversations), "in their order"
        assert len({c.id for c in history}) == len(history), "no conversation twice"
    assert {c.id for c in mixed(item, loaded.filler, 10, 0)} - {c.id for c in item.conversations} <= {
        c.id for c in filler()
    }, "the person's published filler"
    assert (
        mixed(item, loaded.filler, 10, 0)
        == mixed(item, loaded.filler, 10, 0)
        != mixed(item, loaded.filler, 10, 1)
    )


def test_a_history_short_of_filler_is_topped_up_and_said(tmp_path: Path) -> None:
    loaded = load_convomem(write_download(tmp_path), "changing_facts", 30)
    assert loaded.report.topped_up == 1
    (context,) = _scenario("changing_facts").contexts(
        "convomem", {"data_path": str(tmp_path), "conversations": 30}, 0
    )
    assert context.sessions == 30 and len({m.session for m in context.turns()}) == 30
    assert context.report is not None and (
        "  convomem: questions short of filler of their person, topped up with our generator's filler: 1"
        " (changing_evidence)"
    ) in context.report.lines("convomem")


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("category", "right", "wrong"),
    [
        ("changing_facts", "It is {answer} now, after the last change.", "It was $1k."),
        ("abstention", "You never told me a phone number for them.", "It is 555-0100."),
        ("user_facts", "They are called {answer}.", "I don't know."),
    ],
)
async def test_each_kind_is_judged_by_its_rule(category: str, right: str, wrong: str) -> None:
    scenario = _scenario(category)
    (context, *_) = scenario.contexts("convomem", {}, 0)
    definition = context.probes[0]
    answer = definition.expected["answer"].replace("; ", " and ")
    judged = ScoringContext(profile="paper", judge=LocalJudge())
    assert (await scenario.score(definition, [right.format(answer=answer)], judged)).value == 1.0
    assert (await scenario.score(definition, [wrong], judged)).value == 0.0


def test_the_suite_runs_offline_oracle_one_null_zero_but_abstention(pytester: pytest.Pytester) -> None:
    oracle = run_benchmark(pytester, "--agent=oracle", "--mb-suite=convomem", *QUIET).results
    null = run_benchmark(pytester, "--agent=null", "--mb-suite=convomem", *QUIET).results
    assert len(oracle["scenarios"]) == 6 and {s["mean"] for s in oracle["scenarios"].values()} == {1.0}
    assert {name: s["mean"] for name, s in null["scenarios"].items() if s["mean"]} == {
        "convomem.abstention": 1.0
    }
    assert {item["details"]["sessions"] for item in oracle["items"]} == {10}, "each history's size"
    assert {item["category"] for item in oracle["items"]} == {"1 evidence", "2 evidence", "3 evidence"}


@pytest.mark.parametrize("cases", ["premixed", "evidence"])
def test_a_published_download_runs_oracle_one_null_zero_but_abstention(
    pytester: pytest.Pytester, cases: str
) -> None:
    root = write_download(pytester.path / "ConvoMem")
    suite = pytester.path / "convomem-published.yaml"
    scenarios = "\n".join(
        f"  - scenario: convomem.{part}\n    params: {{conversations: 10, cases: {cases}}}"
        for part in ("user_facts", "changing_facts", "abstention")
    )
    suite.write_text(
        f"name: convomem\nspan: isolated\nthreshold: 1.0\nscenarios:\n{scenarios}\n", encoding="utf-8"
    )
    data = f"--mb-data=convomem={root}"
    oracle = run_benchmark(pytester, "--agent=oracle", f"--mb-suite={suite}", data, "-rs", *QUIET)
    null = run_benchmark(pytester, "--agent=null", f"--mb-suite={suite}", data, *QUIET).results
    scored = oracle.results["items"]
    expected = {"premixed": (3, 0, 2), "evidence": (2, 1, 2)}[cases]
    kinds = ("user_facts", "changing_facts", "abstention")
    assert tuple(sum(item["scenario"] == f"convomem.{kind}" for item in scored) for kind in kinds) == expected
    assert {item["score"] for item in scored} == {1.0}
    assert {item["details"]["sessions"] for item in scored} == {10}
    assert {name: s["mean"] for name, s in null["scenarios"].items() if s["mean"]} == {
        "convomem.abstention": 1.0
    }
    oracle.outcome.stdout.fnmatch_lines(
        [
            f"memorybench: convomem data: {sum(expected)} questions* → {sum(expected)} items",
            "memorybench:   convomem: not used: evidence messages found in no conversation: *",
        ]
    )


def test_published_evidence_ids_are_the_evidence_messages(tmp_path: Path) -> None:
    root = write_download(tmp_path)
    for cases in ("premixed", "evidence"):
        contexts = _scenario("user_facts").contexts("convomem", {"data_path": str(root), "cases": cases}, 0)
        for context in contexts:
            said = {message.id: message.text for message in context.turns()}
            for definition in context.probes:
                if definition.skip_reason:
                    continue
                texts = [said[i].rstrip(".").lower() for i in definition.expected["evidence_ids"]]
                assert texts and all(i % IDS < IDS for i in definition.expected["evidence_ids"])
                assert NOT_THERE.text.lower().rstrip(".") not in texts
                assert all(
                    any(word in text for word in ("dog", "cat", "parrot", "tortoise", "manager"))
                    for text in texts
                )


def test_a_run_at_a_size_the_download_lacks_stops_in_one_line(pytester: pytest.Pytester) -> None:
    root = write_download(pytester.path / "ConvoMem")
    suite = pytester.path / "convomem-20.yaml"
    suite.write_text(
        "name: convomem\nspan: isolated\nscenarios:\n"
        "  - scenario: convomem.user_facts\n    params: {conversations: 20}\n",
        encoding="utf-8",
    )
    result = pytester.runpytest(
        "--memorybench", *QUIET, "--agent=oracle", f"--mb-suite={suite}", f"--mb-data=convomem={root}"
    )
    line = usage_error_line(result)
    assert "convomem data" in line and "no pre-mixed test case of user_evidence has 20 conversations" in line
