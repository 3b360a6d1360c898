"""Probe contexts: a context delivered once, its questions asked as independent probes.

A made-up scenario (people and their locker numbers) exercises the engine the episodic, BEAM and
MemBench families share: delivery through observe or packed transcripts, forks, ask points,
retrieval, resume and replay from the event log, and the plugin's items for probes.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent
from pytest_memorybench.agents.reference.null import NullAgent
from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.probes import ProbeContext, file_stem, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.log_reader import iter_events
from pytest_memorybench.conversation.probe_log import read_probe_log
from pytest_memorybench.conversation.probing import ProbeSession, pack_transcript
from pytest_memorybench.conversation.stats import ScheduledTest
from pytest_memorybench.core.records import Message, Score, TestDefinition
from pytest_memorybench.scenarios import SCENARIOS, get_scenario
from tests.support.engine import WordCounter
from tests.support.runs import results_in

START = datetime(2025, 3, 1, 9, 0)
NAMES = ["Ada", "Bruno", "Chiara", "Dmitri", "Esme", "Farid", "Greta", "Hiro"]


class Lockers:
    """Each person's locker number, told once; a question per person (and one capacity probe)."""

    name = "toy.lockers"
    skills = ("recall",)

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        rng = random.Random(seed)
        people = [(name, rng.randint(100, 999)) for name in NAMES[: params.get("people", 6)]]

        def turns() -> Iterator[Message]:
            for index, (name, number) in enumerate(people):
                yield Message(
                    f"{name} keeps their coat in locker number {number}.", START + timedelta(hours=index)
                )
                yield Message(
                    "Noted, I will remember that.", START + timedelta(hours=index, minutes=1), "assistant"
                )

        probes = [
            probe_definition(
                suite=suite,
                scenario=self.name,
                seed=seed,
                context="lockers",
                probe_id=f"lockers::q{i}[{name}]",
                question=f"Which locker number does {name} use?",
                ideal_answer=str(number),
                expected=str(number),
                category="lookup",
                markers=("lookup", f"bin{i % 2}"),
                params={"retrieve_k": 2},
                index=i,
            )
            for i, (name, number) in enumerate(people)
        ]
        name, number = people[0]
        probes.append(
            probe_definition(
                suite=suite,
                scenario=self.name,
                seed=seed,
                context="lockers",
                probe_id="lockers::capacity[Ada]",
                question=f"Which locker number does {name} use?",
                ideal_answer=str(number),
                expected=str(number),
                category="capacity",
                params={"ask_at": [2, 6, 12]},
                index=len(people),
            )
        )
        return [
            ProbeContext("lockers", tuple(probes), turns, header="Earlier:", pack_tokens=25, observe_batch=3)
        ]

    def score(self, definition: TestDefinition, responses: Sequence[str], context: Any) -> Score:
        hits = [definition.expected in response for response in responses]
        return Score(sum(hits) / len(hits), (f"hits {hits}",))


SCENARIOS[Lockers.name] = Lockers()


class CountingAgent:
    """Remembers what it is told; counts every call; may fail on its nth question."""

    def __init__(self, fail_on_question: int | None = None) -> None:
        self.memory: list[str] = []
        self.calls: dict[str, int] = {"reply": 0, "observe": 0}
        self.questions = 0
        self.fail_on_question = fail_on_question

    def reply(self, message: Message) -> str:
        self.calls["reply"] += 1
        if "?" not in message.text:
            self.memory.append(message.text)
            return "ok"
        self.questions += 1
        if self.questions == self.fail_on_question:
            raise ConnectionError("the model server went away")
        name = message.text.split(" does ")[1].split()[0]
        for text in self.memory:
            for line in text.splitlines():
                if line.split("] user: ")[-1].startswith(name + " "):
                    return line.rstrip(".").split()[-1]
        return "no idea"


def _context(people: int = 6) -> ProbeContext:
    return Lockers().contexts("toy", {"people": people}, seed=7)[0]


def _session(
    agent: Any,
    tmp_path: Path,
    *,
    context: ProbeContext | None = None,
    logged: Any = None,
    log_name: str = "events.jsonl",
) -> tuple[ProbeSession, EventLog]:
    context = context or _context()
    log = EventLog(tmp_path / log_name)
    channel = AgentChannel(
        AgentAdapter(agent, type(agent).__name__) if agent is not None else None,
        group="toy::lockers",
        counter=WordCounter(),
        clock=SimulatedClock(START),
        log=log,
    )
    tests = [ScheduledTest(f"toy::{d.test_id}", d) for d in context.probes]
    return ProbeSession(
        context, tests, channel, scoring=ScoringContext(), scenario_of=get_scenario, logged=logged
    ), log


def _run(agent: Any, tmp_path: Path, **kwargs: Any) -> tuple[dict[str, Any], ProbeSession]:
    session, log = _session(agent, tmp_path, **kwargs)
    try:
        return asyncio.run(session.run()), session
    finally:
        log.close()


def test_the_oracle_gets_the_context_packed_into_transcripts_and_scores_one(tmp_path: Path) -> None:
    outcomes, session = _run(OracleAgent(), tmp_path)
    assert {key: o.score.value for key, o in outcomes.items()} == dict.fromkeys(outcomes, 1.0)
    # Dated lines of 11 and 8 words under a 1-word header, at most 25 words a message: 2 turns each.
    assert session.stats.filler_messages == 6
    assert session.stats.tokens == 6 * (1 + 11 + 8)
    capacity = outcomes["toy::lockers::capacity[Ada]"]
    assert [ask["turns"] for ask in capacity.details["asks"]] == [2, 6, 12]
    assert len(capacity.responses) == 3


def test_a_transcript_message_dates_each_turn_under_the_header() -> None:
    text = pack_transcript(
        "Earlier:", [Message("Ada keeps a coat.", START), Message("Noted.", START, "assistant")]
    )
    assert (
        text == "Earlier:\n\n[2025-03-01 09:00] user: Ada keeps a coat.\n[2025-03-01 09:00] assistant: Noted."
    )


def test_an_agent_with_observe_and_fork_answers_from_memory_without_delivery_replies(tmp_path: Path) -> None:
    agent = ExtractiveAgent()
    outcomes, session = _run(agent, tmp_path)
    ada = outcomes["toy::lockers::q0[Ada]"]
    assert ada.score.value == 1.0
    assert ada.details["retrieved"][0][0].startswith("Ada keeps their coat")
    assert "write_seconds" not in ada.details  # once for the context, in its conversation's record:
    assert session.stats.write_timing is not None
    assert session.stats.write_timing["calls"] == 5  # batches of 3 turns, cut at the ask points 2 and 6
    assert session.stats.filler_messages == 0  # observed: no reply calls for delivery
    # The capacity probe asked after 2 turns knows Ada's locker already; forks keep probes apart.
    assert outcomes["toy::lockers::capacity[Ada]"].score.value == 1.0
    assert len(agent._store.texts) == 12  # the context alone: the probes ran on forks
    assert all(o.usage.calls == len(o.responses) for o in outcomes.values())


def test_the_null_agent_scores_zero(tmp_path: Path) -> None:
    outcomes, _ = _run(NullAgent(), tmp_path)
    assert {o.score.value for o in outcomes.values()} == {0.0}


def test_questions_are_dated_after_the_last_delivered_turn(tmp_path: Path) -> None:
    outcomes, _ = _run(OracleAgent(), tmp_path)
    assert (
        outcomes["toy::lockers::q0[Ada]"].transcript[0].timestamp
        == (START + timedelta(hours=5, minutes=1)).isoformat()
    )


def test_an_interrupted_probe_run_resumes_asking_only_the_unanswered_probes(tmp_path: Path) -> None:
    first, _ = _run(CountingAgent(fail_on_question=6), tmp_path)  # capacity's 3 asks, q0, q1, then fails
    errors = [key for key, outcome in first.items() if outcome.error]
    assert errors and all("went away" in first[key].error for key in errors)
    logged = read_probe_log(iter_events(tmp_path))
    assert {key: len(asks) for key, asks in logged.answers.items()} == {
        "toy::lockers::capacity[Ada]": 3,
        "toy::lockers::q0[Ada]": 1,
        "toy::lockers::q1[Bruno]": 1,
    }

    agent = CountingAgent()
    resumed, _ = _run(agent, tmp_path, logged=logged, log_name="events-resumed.jsonl")
    uninterrupted, _ = _run(CountingAgent(), tmp_path / "whole")
    assert {k: (o.responses, o.score) for k, o in resumed.items()} == {
        k: (o.responses, o.score) for k, o in uninterrupted.items()
    }
    asked = sum(len(o.responses) for o in uninterrupted.values())
    assert agent.questions == asked - 5  # the five logged answers were not asked again


def test_replay_rescores_from_the_log_without_an_agent(tmp_path: Path) -> None:
    original, _ = _run(CountingAgent(), tmp_path)
    replayed, session = _run(
        None, tmp_path, logged=read_probe_log(iter_events(tmp_path), spending=False), log_name="replay.jsonl"
    )
    assert {k: o.score for k, o in replayed.items()} == {k: o.score for k, o in original.items()}
    assert session.error is None


def test_replay_of_a_probe_never_answered_says_so(tmp_path: Path) -> None:
    outcomes, _ = _run(None, tmp_path)
    assert all("no agent is given" in o.error for o in outcomes.values())


def test_file_stems_are_safe_and_distinct() -> None:
    assert file_stem("colours[rep1]") == "colours[rep1]"
    one, two = file_stem("q1[(t,s,*,*)]"), file_stem("q1[(t,*,*,*)]")
    assert one != two and "*" not in one and "/" not in file_stem("a/b")


SUITE = """
name: toy
scenarios:
  - scenario: toy.lockers
    params: {people: 4}
"""


def test_probes_are_items_with_markers_definitions_and_results(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", toy=SUITE)
    run = pytester.path / "run"
    result = pytester.runpytest(
        "--memorybench",
        "--agent=oracle",
        "--mb-suite=toy.yaml",
        f"--mb-output={run}",
        "-p",
        "no:cacheprovider",
        "-m",
        "lookup",
        "--strict-markers",
    )
    result.assert_outcomes(passed=4, deselected=1)
    stems = sorted(p.name for p in (run / "definitions" / "toy").iterdir())
    assert len(stems) == 5 and not any(":" in stem for stem in stems)
    results = results_in(run)
    assert {item["test_id"] for item in results["items"]} == {
        f"lockers::q{i}[{n}]" for i, n in enumerate(NAMES[:4])
    }
    replay = pytester.runpytest(
        "--memorybench",
        f"--mb-replay={run}",
        "--mb-suite=toy.yaml",
        f"--mb-output={pytester.path / 'again'}",
        "-p",
        "no:cacheprovider",
        "-k",
        "bin0",
    )
    replay.assert_outcomes(passed=2, deselected=3)
