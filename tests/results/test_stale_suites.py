"""The stale-fact rate beyond LTM: each suite's superseded values where its own data says them.

ConvoMem's changing facts, MemoryAgentBench's conflict resolution and LongMemEval's knowledge
updates from our generators (their published files name no earlier value: a published item has
none); StateBench from its forbidden phrases of kind `superseded`.  And a whole ConvoMem run with
an agent that keeps the first budget it heard, against `oracle`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_memorybench.contract.stale import stale_details, superseded_values
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.scenarios.convomem.data import Skips, evidence_item, evidence_json
from pytest_memorybench.scenarios.convomem.generator import evidence_items
from pytest_memorybench.scenarios.convomem.scenario import SCENARIOS as CONVOMEM
from pytest_memorybench.scenarios.longmemeval.data import load_entries
from pytest_memorybench.scenarios.longmemeval.generator import generate_questions, write_longmemeval
from pytest_memorybench.scenarios.longmemeval.scenario import SCENARIO as LONGMEMEVAL
from pytest_memorybench.scenarios.memoryagentbench.generator import Sized, conflict_sample
from pytest_memorybench.scenarios.memoryagentbench.scenario import SCENARIOS as MEMORYAGENTBENCH
from pytest_memorybench.scenarios.statebench.generator import timeline_rows, write_release
from pytest_memorybench.scenarios.statebench.scenario import SCENARIO as STATEBENCH
from tests.support.runs import run_benchmark
from tests.support.stale import stuck_agent

CHANGING = next(scenario for scenario in CONVOMEM if scenario.part == "changing_facts")
CONFLICTS = next(scenario for scenario in MEMORYAGENTBENCH if scenario.part == "conflict_resolution")


def test_a_changing_fact_replaced_the_budgets_said_before_the_last() -> None:
    (context, *_) = CHANGING.contexts("convomem", {}, 0)
    definition = context.probes[0]
    (item, *_) = evidence_items("changing_facts", 0, 2)
    said = [re.search(r"\$\d+k", turn.text).group(0) for turn in item.evidence]  # type: ignore[union-attr]
    assert superseded_values(CHANGING, definition) == said[:2] == definition.expected["superseded"]
    assert definition.expected["answer"] == said[2] not in said[:2]
    others = [s for s in CONVOMEM if s is not CHANGING]
    assert all(superseded_values(s, s.contexts("convomem", {}, 0)[0].probes[0]) == [] for s in others)


def test_a_published_changing_item_names_no_earlier_value() -> None:
    """ConvoMem's records give the change in free text and the outcome as the answer: none is read."""
    (made, *_) = evidence_items("changing_facts", 0, 1)
    row = evidence_json([made])["evidence_items"][0]
    assert "superseded" not in json.dumps(row)
    read = evidence_item(row, "changing_facts", 3, "someone", Skips())
    assert read is not None and read.superseded == ()


def _said_of(context: str, person: str, relation: str) -> list[str]:
    """Every value the numbered facts gave `person`'s `relation`, in order."""
    pattern = {"lives": rf"{person} lives in (.+)\.", "job": rf"{person} works as a (.+)\."}[relation]
    return [
        found.group(1) for line in context.splitlines() if (found := re.search(rf"^\d+\. {pattern}$", line))
    ]


def test_a_conflict_replaced_the_values_an_earlier_fact_gave() -> None:
    size = Sized(6000, 10, default_counter().count)
    single = conflict_sample(0, 1, size, multi_hop=False)
    checked = 0
    for question in single.questions:
        relation = "lives" if question.text.startswith("in which town") else "job"
        person = re.search(r"does (.+?) (?:live|work)", question.text).group(1)  # type: ignore[union-attr]
        said = _said_of(single.context, person, relation)
        assert said[-1] == question.answers[0]  # the last fact is the answer
        expected = list(dict.fromkeys(value for value in said if value != said[-1]))
        assert list(question.superseded) == expected
        checked += bool(expected)
    assert checked >= 5, "most facts were overridden at least once"
    (context, *_) = CONFLICTS.contexts("memoryagentbench", {}, 0)
    definition = context.probes[0]
    assert superseded_values(CONFLICTS, definition) == list(single.questions[0].superseded)
    multi = conflict_sample(0, 1, size, multi_hop=True)
    assert all(q.answers[0] not in q.superseded for q in multi.questions)


def test_a_released_conflict_sample_names_no_overridden_value(tmp_path: Path) -> None:
    """The release's rows give the current answer only: a question read from one has none."""
    row = {
        "context": "0. Orla Venn lives in Umbervale.\n1. Orla Venn lives in Tarnwick.",
        "questions": ["in which town does Orla Venn live?"],
        "answers": [["Tarnwick"]],
        "metadata": {"source": "factconsolidation_sh_6k", "qa_pair_ids": ["q0"]},
    }
    (tmp_path / "conflict.json").write_text(json.dumps([row]), encoding="utf-8")
    (context,) = CONFLICTS.contexts("memoryagentbench", {"data_path": str(tmp_path)}, 0)
    assert superseded_values(CONFLICTS, context.probes[0]) == []


def test_a_knowledge_update_replaced_the_old_commute(tmp_path: Path) -> None:
    made = dict((raw["question_type"], (raw, values)) for raw, values in generate_questions(0))
    raw, values = made["knowledge-update"]
    first_said = next(
        turn["content"] for session in raw["haystack_sessions"] for turn in session if turn.get("has_answer")
    )
    assert len(values) == 1 and values[0] in first_said and values[0] != raw["answer"]
    assert all(not values for kind, (_, values) in made.items() if kind != "knowledge-update")
    definitions = {c.probes[0].expected["type"]: c.probes[0] for c in LONGMEMEVAL.contexts("lme", {}, 0)}
    assert superseded_values(LONGMEMEVAL, definitions["knowledge-update"]) == list(values)
    # LongMemEval's files flag the evidence turns, old and new alike, and name no replaced value
    path = write_longmemeval(tmp_path / "longmemeval_s.json")
    assert "superseded" not in path.read_text(encoding="utf-8")
    published = LONGMEMEVAL.contexts("lme", {"data_path": str(path)}, 0)
    assert [superseded_values(LONGMEMEVAL, c.probes[0]) for c in published] == [[]] * 7
    assert len(load_entries(path, LoadTally())) == 7


def test_statebench_superseded_phrases_are_its_forbidden_ones_of_that_kind(tmp_path: Path) -> None:
    definitions = {c.probes[0].category: c.probes[0] for c in STATEBENCH.contexts("sb", {"generated": 1}, 0)}
    supersession = definitions["supersession"]
    (old,) = [p["text"] for p in supersession.expected["must_not_mention"]]
    assert superseded_values(STATEBENCH, supersession) == [old] and old not in supersession.ideal_answers[0]
    assert superseded_values(STATEBENCH, definitions["scope_leak"]) == []  # restricted, not superseded
    assert superseded_values(STATEBENCH, definitions["interruption_resumption"]) == []  # "other"
    # a 1.0 release's plain strings take their track's kind, as its SFRR reads them
    rows = timeline_rows(0, 1, ("supersession", "scope_leak"))
    for row in rows:
        query = next(event for event in row["events"] if event["type"] == "query")
        query["ground_truth"]["must_not_mention"] = ["Elm Street", "Elm Street"]
    write_release(rows, tmp_path / "dev.jsonl")
    published = STATEBENCH.contexts("sb", {"data_path": str(tmp_path / "dev.jsonl")}, 0)
    assert [superseded_values(STATEBENCH, c.probes[0]) for c in published] == [["Elm Street"], []]


def test_statebench_stale_details_assert_negation_aware() -> None:
    definitions = {c.probes[0].category: c.probes[0] for c in STATEBENCH.contexts("sb", {"generated": 1}, 0)}
    definition = definitions["supersession"]
    (old,) = superseded_values(STATEBENCH, definition)
    new = definition.expected["decision"]
    stuck = stale_details(STATEBENCH, definition, [f"Ship it to {old}."], {})["stale"]
    right = stale_details(STATEBENCH, definition, [f"Ship it to {new}, not {old}."], {})["stale"]
    assert (stuck["asserted"], right["asserted"]) == (True, False)


STUCK_AGENT = stuck_agent(r'r"\$\d+k"', "The offsite budget is {}.")


@pytest.mark.e2e
@pytest.mark.parametrize(("agent", "asserted"), [("stuck:Stuck", 1.0), ("oracle", 0.0)])
def test_a_convomem_run_counts_the_answers_that_gave_an_earlier_budget(
    pytester: pytest.Pytester, agent: str, asserted: float
) -> None:
    pytester.makepyfile(stuck=STUCK_AGENT)
    run = run_benchmark(pytester, f"--agent={agent}", "--mb-suite=convomem", "-k", "changing_facts")
    stale = run.results["totals"]["stale_facts"]
    assert stale["questions"] == 2 and stale["asserted_rate"] == asserted, run.outcome.stdout.str()
    assert run.results["scenarios"]["convomem.changing_facts"]["stale_facts"] == stale
    run.outcome.stdout.fnmatch_lines(
        [f"stale facts: {int(2 * asserted)} of 2 answers * assert a superseded value*"]
    )


@pytest.mark.e2e
def test_a_statebench_run_shows_the_stale_rate_beside_its_own_sfrr(pytester: pytest.Pytester) -> None:
    """Every query with a superseded phrase counts; `recall`, which answers with what it found, asserts
    some old values, `oracle` none; StateBench's SFRR stays in its metrics."""
    contexts = STATEBENCH.contexts("statebench", {}, 0)
    measured = sum(bool(superseded_values(STATEBENCH, d)) for c in contexts for d in c.probes)
    for agent in ("oracle", "recall"):
        results = run_benchmark(pytester, f"--agent={agent}", "--mb-suite=statebench").results
        scenario = results["scenarios"]["statebench.timelines"]
        stale = scenario["stale_facts"]
        assert stale["questions"] == measured > 10 and "SFRR" in scenario["metrics"]
        assert (stale["asserted"] > 0) is (agent == "recall"), stale
