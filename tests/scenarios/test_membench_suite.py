"""MemBench end to end: calibration through the probe engine, the built-in suite, items and reports."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent
from pytest_memorybench.agents.reference.memories import (
    FullMemoryAgent,
    RecentMemoryAgent,
    RetrievalMemoryAgent,
)
from pytest_memorybench.agents.reference.null import NullAgent
from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.probing import ProbeSession
from pytest_memorybench.conversation.stats import ScheduledTest
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message, TestOutcome
from pytest_memorybench.core.tokens import ApproximateCounter
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.scenarios.membench.benchmark import HEADER
from pytest_memorybench.scenarios.membench.metrics import NO_RETRIEVE
from pytest_memorybench.suite import load_suite
from tests.support.runs import results_in

SMALL = {"per_type": 1, "target_tokens": 1200, "related": 6, "capacity_points": 3}


WRITE_TIMING: dict[str, Any] = {}  # each test's context's delivery times, as its conversation records them


def run(
    agent: Any, scenario: str, tmp_path: Path, params: dict[str, Any] = SMALL, profile: str = "paper"
) -> list[TestOutcome]:
    """Every context of `scenario` through the probe engine with `agent` (a fresh copy per context)."""
    outcomes: list[TestOutcome] = []
    log = EventLog(tmp_path / f"{scenario}-{type(agent).__name__}.jsonl")
    try:
        for context in get_scenario(scenario).contexts("membench", params, 0):
            channel = AgentChannel(
                AgentAdapter(agent, type(agent).__name__),
                group=context.id,
                counter=ApproximateCounter(),
                clock=SimulatedClock(datetime(2024, 1, 1)),
                log=log,
            )
            session = ProbeSession(
                context,
                [ScheduledTest(f"membench::{d.test_id}", d) for d in context.probes],
                channel,
                scoring=ScoringContext(profile=profile),  # type: ignore[arg-type]
                scenario_of=get_scenario,
            )
            found = asyncio.run(session.run())
            for outcome in found.values():  # measured once a context, in the conversation's record
                WRITE_TIMING[outcome.definition.test_id] = session.stats.write_timing
            outcomes.extend(found.values())
    finally:
        log.close()
    return outcomes


def records(outcomes: list[TestOutcome]) -> list[dict[str, Any]]:
    return [
        {"score": o.score.value, "category": o.definition.category, "details": o.details} for o in outcomes
    ]


@pytest.mark.parametrize("scenario", ["membench.participation", "membench.observation"])
@pytest.mark.parametrize("profile", ["paper", "official"])
def test_the_oracle_scores_one_on_every_question_type(tmp_path: Path, scenario: str, profile: str) -> None:
    outcomes = run(OracleAgent(), scenario, tmp_path, profile=profile)
    assert len(outcomes) == (10 if scenario.endswith("participation") else 8)
    assert all(o.score.value == 1.0 for o in outcomes), [
        o.score.reasons for o in outcomes if o.score.value < 1
    ]
    metrics = get_scenario(scenario).summarize(records(outcomes))  # type: ignore[attr-defined]
    assert metrics["factual accuracy"] == metrics["reflective accuracy"] == 1.0
    assert metrics["recall@10"] == NO_RETRIEVE and metrics["capacity collapse tokens"] == "none"
    assert metrics["capacity retained collapse tokens"] == "none"
    assert {accuracy for _, accuracy in metrics["capacity retained"]["curve"]} == {1.0}


@pytest.mark.parametrize("scenario", ["membench.participation", "membench.observation"])
def test_the_null_agent_scores_at_chance_or_below(tmp_path: Path, scenario: str) -> None:
    outcomes = run(NullAgent(), scenario, tmp_path)
    assert sum(o.score.value for o in outcomes) / len(outcomes) <= 0.25
    assert all(o.score.value == 0.0 for o in outcomes), "abstaining picks no option"


def test_the_recall_baseline_reports_recall_at_10_and_is_asked_at_every_capacity_point(
    tmp_path: Path,
) -> None:
    outcomes = run(ExtractiveAgent(), "membench.observation", tmp_path)
    for outcome in outcomes:
        asks = outcome.definition.params.get("ask_at", [-1])  # none when the evidence ends the trajectory
        assert (
            len(outcome.responses)
            == len(asks)
            == len(outcome.details["retrieved"])
            == len(outcome.details["scoring"]["correct"])
        )
        assert outcome.details["asks"][0]["tokens"] == max(a["tokens"] for a in outcome.details["asks"]), (
            "the item's own ask is last"
        )
        assert WRITE_TIMING[outcome.definition.test_id]["calls"] >= outcome.details["asks"][0]["turns"] - len(
            asks
        ), "one message an observe"
    conversations = [
        {"write_timing": timing} for timing in {id(t): t for t in WRITE_TIMING.values()}.values()
    ]
    metrics = get_scenario("membench.observation").summarize(records(outcomes), conversations)  # type: ignore[attr-defined]
    assert 0.0 < metrics["recall@10"] <= 1.0 and metrics["recall questions"] == len(outcomes)
    assert metrics["capacity"]["asks"] == sum(len(o.responses) for o in outcomes)
    assert {"read ms mean", "read ms p95", "write ms mean", "write ms p95"} <= set(metrics)
    assert sum(o.score.value for o in outcomes) >= 2, "lexical retrieval answers the simplest questions"


def test_an_agent_without_observe_gets_the_trajectory_as_transcripts(tmp_path: Path) -> None:
    outcomes = run(
        OracleAgent(), "membench.participation", tmp_path, {**SMALL, "types": "single_session_assistant"}
    )
    (outcome,) = outcomes
    assert outcome.score.value == 1.0 and "retrieved" not in outcome.details


class ReplyOnly:
    """A memory with `reply` alone: it gets the trajectory in the fallback form, dated transcripts."""

    def __init__(self) -> None:
        self.inner = ExtractiveAgent()
        self.received: list[Message] = []

    async def reply(self, message: Message) -> str:
        self.received.append(message)
        return await self.inner.reply(message)


@pytest.mark.parametrize("scenario", ["membench.participation", "membench.observation"])
def test_the_fallback_form_carries_every_turn_with_its_time_and_role(tmp_path: Path, scenario: str) -> None:
    params = {**SMALL, "target_tokens": 3000, "capacity_points": 0, "types": "single_hop"}
    (context,) = get_scenario(scenario).contexts("membench", params, 0)
    agent = ReplyOnly()
    (outcome,) = run(agent, scenario, tmp_path, params)
    packed, question = agent.received[:-1], agent.received[-1]
    assert 1 < len(packed) < sum(1 for _ in context.turns()), "several turns a message"
    assert all(m.text.startswith(HEADER + "\n\n") for m in packed)
    lines = [line for m in packed for line in m.text.split("\n")[2:]]
    assert lines == [f"[{m.timestamp:%Y-%m-%d %H:%M}] {m.role}: {m.text}" for m in context.turns()]
    assert question.text == context.probes[0].questions[0]
    assert WRITE_TIMING[outcome.definition.test_id]["calls"] == len(packed), (
        "each packed message is one write"
    )
    assert outcome.score.value == 1.0, "a single fact survives the packing"


@pytest.mark.parametrize("factory", [FullMemoryAgent, RecentMemoryAgent, RetrievalMemoryAgent])
def test_the_reference_memory_agents_run_the_benchmark(tmp_path: Path, factory: Any) -> None:
    outcomes = run(
        factory(), "membench.participation", tmp_path, {**SMALL, "types": "single_hop, knowledge_update"}
    )
    metrics = get_scenario("membench.participation").summarize(records(outcomes))  # type: ignore[attr-defined]
    assert isinstance(metrics["recall@10"], float) and metrics["factual accuracy"] >= 0.0


def test_a_short_recent_window_forgets_what_a_full_memory_keeps(tmp_path: Path) -> None:
    from pytest_memorybench.agents.reference.memories import MemoryAgent, RecentMemory

    params = {
        "per_type": 3,
        "target_tokens": 3000,
        "related": 4,
        "capacity_points": 0,
        "types": "single_session_assistant",
    }
    full = run(FullMemoryAgent(), "membench.participation", tmp_path, params)
    short = run(MemoryAgent(RecentMemory(turns=4)), "membench.participation", tmp_path, params)
    assert sum(o.score.value for o in full) == 3
    assert sum(o.score.value for o in short) < 3


def test_the_built_in_suite_has_both_scenarios_every_type_and_unique_items() -> None:
    suite = load_suite("membench")
    definitions = suite.definitions(0)
    assert len(definitions) == 90 and len({d.test_id for d in definitions}) == 90
    participation = [d for d in definitions if d.scenario == "membench.participation"]
    assert {d.category for d in participation} == {
        "single_hop", "multi_hop", "comparative", "aggregative", "post_processing", "knowledge_update",
        "single_session_assistant", "multi_session_assistant", "preference", "emotion",
    }  # fmt: skip
    first = participation[0]
    assert first.test_id == "participation::single_hop-1" and first.markers == ("participation", "single_hop")
    assert first.skills == ("factual",) and first.ideal_answers[0] in "ABCD"
    assert all(d.params["retrieve_k"] == 10 for d in definitions)
    asked_again = [d.params["ask_at"] for d in definitions if "ask_at" in d.params]
    assert len(asked_again) > 80 and all(asks[0] == -1 and len(asks) <= 9 for asks in asked_again)
    assert [d.questions for d in definitions] == [d.questions for d in load_suite("membench").definitions(0)]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"types": "single_hop, telepathy"}, "unknown question type 'telepathy'"),
        ({"types": "multi_session_assistant"}, "unknown question type"),
        ({"per_type": -1}, "per_type must be at least 0"),
        ({"target_tokens": "10k"}, "must be of type int"),
        ({"colour": 1}, "unknown parameter 'colour'"),
    ],
)
def test_bad_parameters_fail_in_one_line(params: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        get_scenario("membench.observation").contexts("membench", params, 0)


SUITE = """
name: mb
scenarios:
  - scenario: membench.participation
    params: {per_type: 1, target_tokens: 800, related: 4, capacity_points: 2}
  - scenario: membench.observation
    params: {per_type: 1, target_tokens: 800, related: 4, capacity_points: 2}
"""


def test_items_markers_results_and_summary_through_pytest(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", mb=SUITE)
    result = pytester.runpytest(
        "--memorybench",
        "--agent=oracle",
        "--mb-suite=mb.yaml",
        "--mb-output=run",
        "-p",
        "no:cacheprovider",
        "-m",
        "observation and reflective",
        "--strict-markers",
    )
    result.assert_outcomes(passed=2, deselected=16)
    result.stdout.fnmatch_lines(["*reflective accuracy * 1.000", "*recall@10 * skipped: the agent has no*"])
    results = results_in(pytester.path / "run")
    assert {i["test_id"] for i in results["items"]} == {"observation::preference-1", "observation::emotion-1"}
    metrics = results["scenarios"]["membench.observation"]["metrics"]
    assert metrics["capacity"]["curve"] and metrics["reflective accuracy"] == 1.0

    again = pytester.runpytest(
        "--memorybench",
        "--agent=retrieval-memory",
        "--mb-suite=mb.yaml",
        "--mb-output=run2",
        "-p",
        "no:cacheprovider",
        "-k",
        "single_hop",
    )
    assert again.ret in (0, 1)
    metrics = results_in(pytester.path / "run2")["scenarios"]["membench.participation"]["metrics"]
    assert isinstance(metrics["recall@10"], float)
