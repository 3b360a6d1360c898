"""ConvoMem: the loader on files of our own in its repository's layout, the mixing of evidence among
filler, each kind's judge rule on concrete replies, and the suite's calibration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_memorybench.core.readers import reading
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.base import ScoringContext
from pytest_memorybench.scenarios.convomem.data import evidence_json, load_convomem
from pytest_memorybench.scenarios.convomem.generator import evidence_items, filler_conversations
from pytest_memorybench.scenarios.convomem.scenario import SCENARIOS, mixed
from tests.support.runs import QUIET, run_benchmark


def _write(folder: Path) -> Path:
    """Our generated items and filler, saved where ConvoMem's resources keep theirs."""
    resources = folder / "resources"
    for kind, category in (("user_evidence", "user_facts"), ("changing_evidence", "changing_facts")):
        items = evidence_items(category, 0, 2)
        target = resources / "questions" / "evidence" / kind / f"{items[0].evidence_count}_evidence"
        target.mkdir(parents=True)
        (target / "batch_0.json").write_text(json.dumps(evidence_json(items)), encoding="utf-8")
    filler = resources / "conversations" / "irrelevant"
    filler.mkdir(parents=True)
    person = evidence_items("user_facts", 0, 1)[0].person
    payload = {
        "evidence_items": [
            {
                "question": "",
                "answer": "",
                "message_evidences": [],
                "personId": person,
                "conversations": [
                    {"id": c.id, "messages": [{"speaker": t.speaker, "text": t.text} for t in c.turns]}
                    for c in filler_conversations(7, person or "", 12)
                ],
            }
        ]
    }
    (filler / "person_0.json").write_text(json.dumps(payload), encoding="utf-8")
    return resources


def test_the_loader_reads_the_repositorys_layout(tmp_path: Path) -> None:
    loaded = load_convomem(_write(tmp_path))
    assert [(item.category, item.evidence_count) for item in loaded.items] == [
        ("changing_facts", 3),
        ("changing_facts", 3),
        ("user_facts", 2),
        ("user_facts", 2),
    ]
    changing = loaded.items[0]
    assert changing.answer.startswith("$") and len(changing.conversations) == 3
    assert changing.evidence[-1].text.startswith("Final word on the offsite")
    assert sum(len(conversations) for conversations in loaded.filler.values()) == 12


def test_a_folder_of_another_layout_fails_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "misc").mkdir()
    (tmp_path / "misc" / "x.json").write_text(json.dumps({"evidence_items": []}), encoding="utf-8")
    (tmp_path / "locomo10.json").write_text(json.dumps([{"sample_id": "conv-26"}]), encoding="utf-8")
    with pytest.raises(Exception) as raised, reading(f"convomem data {tmp_path}"):
        load_convomem(tmp_path)
    assert "evidence_items" in str(raised.value) and "\n" not in str(raised.value)


def test_evidence_keeps_its_order_among_filler_of_the_same_person(tmp_path: Path) -> None:
    loaded = load_convomem(_write(tmp_path))
    item = next(item for item in loaded.items if item.category == "changing_facts")
    for size in (2, 10, 20):
        history = mixed(item, loaded.filler, size, seed=0)
        assert len(history) == max(size, 3), "every evidence conversation is kept, the rest is filler"
        evidence = [c for c in history if c in item.conversations]
        assert evidence == list(item.conversations), "in their order"
        assert len({c.id for c in history}) == len(history), "no conversation twice"
    assert (
        mixed(item, loaded.filler, 10, 0)
        == mixed(item, loaded.filler, 10, 0)
        != mixed(item, loaded.filler, 10, 1)
    )


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
    scenario = next(s for s in SCENARIOS if s.part == category)
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


def test_a_published_folder_runs_its_items(pytester: pytest.Pytester) -> None:
    resources = _write(pytester.path)
    run = run_benchmark(
        pytester, "--agent=oracle", "--mb-suite=convomem", f"--mb-data=convomem={resources}", *QUIET
    )
    assert run.results["totals"]["max"] == 4 and run.results["totals"]["mean"] == 1.0
    assert set(run.results["scenarios"]) == {"convomem.user_facts", "convomem.changing_facts"}
