"""The conversation engine's policy (GoodAI App. C.2), on small hand-made tests.

Tests here are dynamic programs that finish with their own score, so no scenario scorer is
involved; a word-counting token counter makes every token number checkable by hand.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.program import (
    Exchange,
    Finish,
    ProgramContext,
    RegisterCallback,
    Say,
    TestProgram,
    Verdict,
    Wait,
)
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation.channel import AgentChannel, LoggedExchange, ReplayDivergence
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.scheduler import INTRO, Conversation
from pytest_memorybench.conversation.stats import ScheduledTest
from pytest_memorybench.conversation.trivia import TriviaSource
from pytest_memorybench.core.errors import AgentError
from pytest_memorybench.core.records import Message, Score, ScriptLine, TestDefinition, Usage

START = datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc)


class Words:
    """One token per whitespace-separated word."""

    name = "words"

    def count(self, text: str) -> int:
        return len(text.split())


class Agent:
    """Replies `ok`; records what it was sent and told; optional observe."""

    def __init__(self, *, fail_at: int | None = None) -> None:
        self.received: list[Message] = []
        self.observed: list[Message] = []
        self.resets = 0
        self.fail_at = fail_at

    def reply(self, message: Message) -> str:
        self.received.append(message)
        if self.fail_at is not None and len(self.received) >= self.fail_at:
            raise RuntimeError("server down")
        return "ok"

    def reset(self) -> None:
        self.resets += 1


class ObservingAgent(Agent):
    def observe(self, messages: Sequence[Message]) -> None:
        self.observed.extend(messages)


def definition(scenario: str, repetition: int = 1) -> TestDefinition:
    return TestDefinition("t", scenario, repetition, 0, (ScriptLine("unused"),), ("",), None)


class Playing:
    """Made-up scenarios whose tests play the programs given, one per definition (each ends with its
    own `Finish`, so none is scored by a scenario)."""

    def __init__(self, factories: dict[int, Any]) -> None:
        self.factories = factories

    def program(self, definition: TestDefinition, context: ProgramContext) -> TestProgram:
        return self.factories[id(definition)]()


def converse(
    programs: dict[str, object],
    agent: Agent | None,
    *,
    span: int | None = 100,
    tmp_path: Path,
    incompatible: Sequence[Sequence[str]] = (),
    replay: Sequence[LoggedExchange] = (),
    saving_mode: bool | None = None,
):
    """Run tests named `scenario/rep` whose programs are given; return (outcomes, channel, conversation)."""
    tests = []
    for name in programs:
        scenario, _, repetition = name.partition("/")
        tests.append(ScheduledTest(name, definition(scenario, int(repetition or 1))))
    adapter = AgentAdapter(agent, "fake") if agent is not None else None
    channel = AgentChannel(
        adapter,
        group="g",
        counter=Words(),
        clock=SimulatedClock(START),
        log=EventLog(tmp_path / "events.jsonl"),
        replay=replay,
        saving_mode=saving_mode,
    )
    playing = Playing({id(test.definition): programs[test.key] for test in tests})
    conversation = Conversation(
        tests,
        channel,
        span=span,
        scoring=ScoringContext(),
        filler=TriviaSource(0),
        scenario_of=lambda scenario: playing,
        incompatible=incompatible,
    )
    outcomes = asyncio.run(conversation.run())
    return outcomes, channel, conversation


def said(agent: Agent) -> list[str]:
    """What the tests said, without the intro and filler (whose lines read `Q: …, A: …`)."""
    return [m.text for m in agent.received if m.text != INTRO and "\nQ: " not in m.text]


def lines(name: str, count: int, wait: Wait | None = None):
    """A test saying `name-1` … `name-count`, waiting `wait` after each line but the last."""

    async def program() -> TestProgram:
        for index in range(1, count + 1):
            yield Say(f"{name}-{index}")
            if wait is not None and index < count:
                yield wait
        yield Finish(Score(1.0))

    return program


def test_compatible_tests_interleave_at_their_waits(tmp_path: Path) -> None:
    agent = Agent()
    converse(
        {"a": lines("a", 3, Wait(tokens=2)), "b": lines("b", 3, Wait(tokens=2))}, agent, tmp_path=tmp_path
    )
    assert said(agent) == ["a-1", "b-1", "a-2", "b-2", "a-3", "b-3"]
    assert agent.received[0].text == INTRO


def test_incompatible_tests_never_overlap(tmp_path: Path) -> None:
    agent = Agent()
    programs = {
        "a/1": lines("a1", 2, Wait(tokens=2)),
        "a/2": lines("a2", 2, Wait(tokens=2)),
        "b": lines("b", 2, Wait(tokens=2)),
    }
    converse(programs, agent, tmp_path=tmp_path)
    sequence = said(agent)
    assert sequence.index("a1-2") < sequence.index("a2-1"), "repetitions of one scenario follow each other"
    assert sequence.index("b-1") < sequence.index("a1-2"), "another scenario interleaves"


def test_suite_incompatibility_groups(tmp_path: Path) -> None:
    agent = Agent()
    programs = {"a": lines("a", 2, Wait(tokens=2)), "b": lines("b", 2, Wait(tokens=2))}
    converse(programs, agent, tmp_path=tmp_path, incompatible=[["a", "b"]])
    assert said(agent) == ["a-1", "a-2", "b-1", "b-2"]


def test_waiting_tests_resume_before_new_ones_start(tmp_path: Path) -> None:
    agent = Agent()
    programs = {"a": lines("a", 2, Wait(tokens=1)), "b": lines("b", 1), "c": lines("c", 1)}
    converse(programs, agent, tmp_path=tmp_path)
    # After b's turn, a's one-token wait is over: a resumes before c starts.
    assert said(agent) == ["a-1", "b-1", "a-2", "c-1"]


def test_time_waits_jump_the_clock_instead_of_filler(tmp_path: Path) -> None:
    agent = Agent()
    _, channel, conversation = converse(
        {"a": lines("a", 2, Wait(seconds=3 * 3600))}, agent, tmp_path=tmp_path
    )
    assert said(agent) == ["a-1", "a-2"]
    assert conversation.stats.filler_messages == 0 and conversation.stats.clock_jumps == 1
    assert (agent.received[-1].timestamp - agent.received[1].timestamp).total_seconds() == 3 * 3600


def test_token_waits_are_filled_with_filler_sized_to_the_need(tmp_path: Path) -> None:
    agent = Agent()
    outcomes, channel, conversation = converse(
        {"a": lines("a", 2, Wait(tokens=300))}, agent, span=1000, tmp_path=tmp_path
    )
    assert conversation.stats.filler_messages >= 1
    filler_tokens = conversation.stats.filler_tokens
    assert 300 - 2 <= filler_tokens < 300 + 60, "filler stops at the need, overshooting by less than one item"


def test_percentage_waits_count_from_the_tests_first_message(tmp_path: Path) -> None:
    agent = Agent()
    outcomes, channel, conversation = converse(
        {"a": lines("a", 2, Wait(percentage=50))}, agent, span=400, tmp_path=tmp_path
    )
    events = (tmp_path / "events.jsonl").read_text().splitlines()
    parsed = [json.loads(line) for line in events]
    begin = next(e["tokens"] for e in parsed if e["kind"] == "test_begin")
    second = next(e for e in parsed if e["kind"] == "message" and e.get("text") == "a-2")
    tokens_before_second = max(
        e["tokens"] for e in parsed if e["kind"] in ("reply", "observed") and e["i"] < second["i"]
    )
    assert tokens_before_second >= begin + 200
    assert tokens_before_second - (begin + 200) < 60


def test_span_is_measured_and_overruns_are_flagged(tmp_path: Path) -> None:
    async def question_after_wait() -> TestProgram:
        yield Say("needle one two three")
        yield Wait(percentage=90)
        yield Say("question?", is_question=True)
        yield Finish(Score(1.0))

    async def long_test() -> TestProgram:
        yield Say("needle " + "word " * 30)
        yield Say("question?", is_question=True)
        yield Finish(Score(1.0))

    outcomes, *_ = converse({"a": question_after_wait}, Agent(), span=200, tmp_path=tmp_path)
    assert 180 <= outcomes["a"].span_tokens <= 200 + 60 and outcomes["a"].span_target == 200
    outcomes, *_ = converse({"b": long_test}, Agent(), span=10, tmp_path=tmp_path)
    assert outcomes["b"].span_tokens == 31 + 1 + 1 and outcomes["b"].overrun


def test_callbacks_hear_every_later_turn_until_they_deregister(tmp_path: Path) -> None:
    heard: list[list[str]] = []

    def third_reply_wins(exchanges: Sequence[Exchange]) -> Verdict:
        heard.append([e.message for e in exchanges])
        return Verdict(done=True, score=Score(0.5)) if len(exchanges) == 3 else Verdict(done=False)

    async def prospective() -> TestProgram:
        yield Say("remember to quote")
        yield RegisterCallback(third_reply_wins)

    agent = ObservingAgent()
    outcomes, _, conversation = converse({"p": prospective, "b": lines("b", 1)}, agent, tmp_path=tmp_path)
    assert outcomes["p"].score == Score(0.5)
    assert heard[1][0] == "b-1", "other tests' turns count"
    assert len(heard) == 3
    assert conversation.stats.saved_filler_messages == 0, "no saving mode while a callback listens"
    assert agent.observed == []


def test_dynamic_tests_choose_their_next_line_from_the_reply(tmp_path: Path) -> None:
    class Waiter(Agent):
        def reply(self, message: Message) -> str:
            super().reply(message)
            return "fish" if "menu" in message.text else "ok"

    async def restaurant() -> TestProgram:
        reply = yield Say("here is the menu")
        if reply == "fish":
            yield Say("sorry, no fish today")
            yield Finish(Score(1.0, ("stage 1 passed",)))
        else:
            yield Finish(Score(0.0))

    agent = Waiter()
    outcomes, *_ = converse({"r": restaurant}, agent, tmp_path=tmp_path)
    assert said(agent) == ["here is the menu", "sorry, no fish today"]
    assert outcomes["r"].score.reasons == ("stage 1 passed",)


def test_saving_mode_hands_filler_to_observe_without_replies(tmp_path: Path) -> None:
    agent = ObservingAgent()
    _, _, conversation = converse({"a": lines("a", 2, Wait(tokens=200))}, agent, span=1000, tmp_path=tmp_path)
    assert conversation.stats.filler_messages == conversation.stats.saved_filler_messages >= 1
    assert len(agent.received) == 1 + 2, "intro and the test's lines only"
    assert [m.role for m in agent.observed[:2]] == ["user", "assistant"]


def test_what_observing_filler_costs_counts_as_filler_overhead(tmp_path: Path) -> None:
    class Summarising(ObservingAgent):
        def __init__(self) -> None:
            super().__init__()
            self.usage = Usage()

        def observe(self, messages: Sequence[Message]) -> None:
            super().observe(messages)
            self.usage.cost_usd += 0.5

    _, _, conversation = converse(
        {"a": lines("a", 2, Wait(tokens=200))}, Summarising(), span=1000, tmp_path=tmp_path
    )
    saved = conversation.stats.saved_filler_messages
    assert saved >= 1 and conversation.stats.overhead_usage.cost_usd == pytest.approx(0.5 * saved)
    assert conversation.stats.overhead_usage.calls == 1, "the intro: observing is no call"


def test_isolated_mode_resets_and_sends_no_intro_and_no_filler(tmp_path: Path) -> None:
    agent = Agent()
    _, _, conversation = converse(
        {"a": lines("a", 2, Wait(tokens=500, seconds=60, percentage=50))}, agent, span=None, tmp_path=tmp_path
    )
    assert [m.text for m in agent.received] == ["a-1", "a-2"]
    assert agent.resets == 1
    assert conversation.stats.filler_messages == 0
    assert (agent.received[1].timestamp - agent.received[0].timestamp).total_seconds() == 60


def test_an_agent_failure_stops_the_conversation_and_keeps_finished_tests(tmp_path: Path) -> None:
    agent = Agent(fail_at=4)  # intro, a-1, a-2 succeed; b-1 fails
    outcomes, _, conversation = converse(
        {"a": lines("a", 2), "b": lines("b", 2), "c": lines("c", 1)}, agent, tmp_path=tmp_path
    )
    assert outcomes["a"].error is None and outcomes["a"].score.value == 1.0
    assert "RuntimeError: server down" in (outcomes["b"].error or "")
    assert "stopped during this test" in (outcomes["b"].error or "")
    assert "stopped before this test began" in (outcomes["c"].error or "")
    assert conversation.stats.error is not None


def test_replay_reuses_logged_replies_and_then_goes_live(tmp_path: Path) -> None:
    logged = [LoggedExchange(INTRO, "understood"), LoggedExchange("a-1", "logged reply")]
    agent = ObservingAgent()
    outcomes, channel, _ = converse({"a": lines("a", 2)}, agent, tmp_path=tmp_path, replay=logged)
    assert [m.text for m in agent.received] == ["a-2"], "only what the log lacks is asked"
    assert [m.text for m in agent.observed] == [INTRO, "understood", "a-1", "logged reply"], (
        "the agent is told the history"
    )
    assert outcomes["a"].transcript[0].reply == "logged reply"


def test_replay_without_an_agent_stops_where_the_log_ends(tmp_path: Path) -> None:
    logged = [LoggedExchange(INTRO, "understood"), LoggedExchange("a-1", "r1"), LoggedExchange("a-2", "r2")]
    outcomes, *_ = converse({"a": lines("a", 2), "b": lines("b", 1)}, None, tmp_path=tmp_path, replay=logged)
    assert outcomes["a"].error is None
    assert "the logged run ends here" in (outcomes["b"].error or "")


def test_replay_detects_a_diverging_conversation(tmp_path: Path) -> None:
    logged = [LoggedExchange(INTRO, "understood"), LoggedExchange("something else", "r")]
    outcomes, _, conversation = converse({"a": lines("a", 1)}, Agent(), tmp_path=tmp_path, replay=logged)
    assert "diverges" in (conversation.stats.error or "")
    assert issubclass(ReplayDivergence, AgentError)


def test_the_oracle_is_told_to_quote_in_the_nth_reply(tmp_path: Path) -> None:
    from pytest_memorybench.agents.reference.oracle import OracleAgent

    class Recording(OracleAgent):
        def __init__(self) -> None:
            super().__init__()
            self.replies: list[str] = []

        async def reply(self, message: Message) -> str:
            self.replies.append(await super().reply(message))
            return self.replies[-1]

    def quoted_second(exchanges: Sequence[Exchange]) -> Verdict:
        if len(exchanges) < 2:
            return Verdict(done=False)
        return Verdict(done=True, score=Score(1.0 if exchanges[1].reply.endswith("To be.") else 0.0))

    async def prospective() -> TestProgram:
        yield Say("Add 'To be.' to your second reply from now.")
        yield RegisterCallback(quoted_second, oracle_reply=(2, "To be."))

    async def other() -> TestProgram:
        yield Say("first other")
        yield Say("question?", is_question=True, ideal="forty-two")
        yield Finish(Score(1.0))

    oracle = Recording()
    outcomes, *_ = converse({"p": prospective, "o": other}, oracle, tmp_path=tmp_path)  # type: ignore[arg-type]
    # intro, the instruction, then o's two lines: the second reply after registration carries the quote
    assert oracle.replies == ["Noted.", "Noted.", "Noted.", "forty-two To be."]
    assert outcomes["p"].score.value == 1.0
