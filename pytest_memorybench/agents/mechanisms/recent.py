"""`recent:MODEL`: MemBench's RecentMemory, the last `turns` messages in the prompt.

The offline `recent-memory` agent puts the same window behind the extractive answerer;
this one puts it before a model.  The window is also cut to what fits the model's context.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_memorybench.agents.mechanisms.base import Entry
from pytest_memorybench.agents.mechanisms.full_context import FullContext
from pytest_memorybench.agents.mechanisms.settings import positive
from pytest_memorybench.agents.reference.memories import DEFAULT_RECENT_TURNS


@dataclass(frozen=True)
class RecentSettings:
    """How many of the last messages the prompt holds (MemBench's RecentMemory: 200)."""

    turns: int = DEFAULT_RECENT_TURNS

    def __post_init__(self) -> None:
        positive(turns=self.turns)


class Recent(FullContext):
    """`recent`: the last `turns` messages, as far as the model's window reaches."""

    name = "recent"
    settings_type = RecentSettings

    def kept(self) -> list[Entry]:
        return self.log[-self.settings.turns - 1 :]  # the message being answered and the `turns` before it
