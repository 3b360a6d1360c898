"""Isolated mode: each test is its own conversation, with no interleaving, no filler and no intro.

As in the GoodAI reference's isolated runs: the agent is reset before the test, waits are ignored
except time waits, which become instant clock jumps, and the scenario's reset statement (if any)
is still sent after the last line.  The span is measured all the same, so reports can show how
short isolated conversations are.
"""

from __future__ import annotations

import dataclasses

from pytest_memorybench.agents.protocol import AgentAdapter
from pytest_memorybench.conversation.clock import SimulatedClock
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.tokens import TokenCounter
from pytest_memorybench.errors import AgentError
from pytest_memorybench.records import Message, Score, TestDefinition, TestOutcome, Turn
from pytest_memorybench.scenarios import ScoringContext, get_scenario


async def run_isolated(
    definition: TestDefinition,
    agent: AgentAdapter,
    *,
    key: str,
    clock: SimulatedClock,
    counter: TokenCounter,
    log: EventLog,
    scoring: ScoringContext,
) -> TestOutcome:
    usage_before = dataclasses.replace(agent.usage)
    transcript: list[Turn] = []
    responses: list[str] = []
    ideal_answers = iter(definition.ideal_answers)
    error: str | None = None
    log.emit("test_begin", test=key, time=clock.now())
    try:
        await agent.reset()
        for line in definition.script:
            if line.is_question:
                await agent.prime_answer(next(ideal_answers))
            reply = await _exchange(agent, line.text, line.is_question, key, clock, log, transcript)
            if line.is_question:
                responses.append(reply)
            if line.wait.get("time"):
                clock.advance(line.wait["time"])
                log.emit("clock_jump", test=key, seconds=line.wait["time"], time=clock.now())
        if definition.reset_message:
            await _exchange(agent, definition.reset_message, False, key, clock, log, transcript)
    except AgentError as exc:
        error = str(exc)
        log.emit("agent_error", test=key, error=error, time=clock.now())

    if error is None:
        score = get_scenario(definition.scenario).score(definition, responses, scoring)
    else:
        score = Score(0.0, (f"agent error: {error}",))
    log.emit("score", test=key, value=score.value, reasons=list(score.reasons))
    log.emit("test_end", test=key, time=clock.now())
    span = measure_span(transcript, counter)
    return TestOutcome(definition, responses, score, transcript, span, agent.usage - usage_before, error)


def measure_span(transcript: list[Turn], counter: TokenCounter) -> int:
    """Tokens of conversation from the first needle up to and including the last question."""
    questions = [i for i, turn in enumerate(transcript) if turn.is_question]
    if not questions:
        return 0
    last = questions[-1]
    return sum(counter.count(t.message) + counter.count(t.reply) for t in transcript[:last]) + counter.count(
        transcript[last].message
    )


async def _exchange(
    agent: AgentAdapter,
    text: str,
    is_question: bool,
    key: str,
    clock: SimulatedClock,
    log: EventLog,
    transcript: list[Turn],
) -> str:
    message = Message(text, clock.now())
    log.emit("message", test=key, text=text, is_question=is_question, time=message.timestamp)
    reply = await agent.reply(message)
    log.emit("reply", test=key, text=reply, time=clock.now())
    transcript.append(Turn(text, reply, message.timestamp.isoformat(), is_question))
    return reply
