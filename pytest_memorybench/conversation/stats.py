"""What a conversation is made of and what it cost: its scheduled tests and its statistics.

`ConversationStats` is what results.json lists per conversation (tokens, filler, clock jumps, the
agent's reply latencies, a memory system's spending by phase, a store's figures); a conversation's
share of what an agent spent is what it spent since the conversation began (`memory_snapshot`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import TestDefinition, Usage
from pytest_memorybench.core.timings import timing_summary

if TYPE_CHECKING:
    from pytest_memorybench.agents.stores.figures import StoreFigures


@dataclass(frozen=True)
class ScheduledTest:
    """A definition as one conversation schedules it."""

    key: str
    definition: TestDefinition


@dataclass
class ConversationStats:
    """What the conversation cost beyond the tests themselves, for results.json."""

    group: str
    span: int | None
    tokens: int = 0
    filler_messages: int = 0
    saved_filler_messages: int = 0
    filler_tokens: int = 0
    clock_jumps: int = 0
    overhead_usage: Usage = field(default_factory=Usage)  # intro and filler replies
    repetitions: int = 1
    error: str | None = None
    error_kind: str | None = None  # AgentError.kind of `error`
    reply_timing: JsonObject | None = None  # the agent's reply latencies here (core.timings), if it was asked
    memory_usage: dict[str, Usage] | None = None  # a memory system's spending here, by phase (write, read)
    store: JsonObject | None = None  # a memory store's ingest, search and context figures here
    write_timing: JsonObject | None = None  # a probe context's deliveries: seconds each (core.timings)
    written: JsonObject | None = None  # what the memory held at the end, against the evidence (written.py)

    def time_replies(self, agent: AgentAdapter | None, since: int, memory_since: MemorySnapshot) -> None:
        """Keep the latencies of the replies `agent` gave from its `since`-th reply on, and what a
        memory system spent by phase and a store measured since `memory_since` (`memory_snapshot`)."""
        seconds = agent.reply_seconds[since:] if agent is not None else []
        self.reply_timing = timing_summary(seconds) if seconds else None
        if agent is not None and agent.memory_usage is not None:
            before = memory_since.phases or {}
            self.memory_usage = {
                phase: usage - before.get(phase, Usage()) for phase, usage in agent.memory_usage.items()
            }
        if agent is not None and agent.store_figures is not None:
            self.store = agent.store_figures.since(memory_since.store)

    @property
    def span_ratio(self) -> float | None:
        """Total tokens / (repetitions × span): how much conversation the span cost (GoodAI: 1.26)."""
        return round(self.tokens / (self.repetitions * self.span), 4) if self.span else None


@dataclass(frozen=True)
class MemorySnapshot:
    """What a memory system had spent by phase, and a store had measured, when a conversation began."""

    phases: dict[str, Usage] | None = None
    store: StoreFigures | None = None


def memory_snapshot(agent: AgentAdapter | None) -> MemorySnapshot:
    """A copy of what a memory system has spent and a store measured so far, to count a conversation's
    share."""
    if agent is None:
        return MemorySnapshot()
    phases = agent.memory_usage
    figures = agent.store_figures
    return MemorySnapshot(
        {phase: dataclasses.replace(usage) for phase, usage in phases.items()}
        if phases is not None
        else None,
        figures.mark() if figures is not None else None,
    )
