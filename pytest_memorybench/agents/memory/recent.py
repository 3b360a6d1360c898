"""`recent-memory:MODEL`: MemBench's RecentMemory, the last `turns` messages in the prompt.

The offline `recent-memory` agent puts the same window behind the extractive `recall` answerer;
this one puts it before a model.  The window is also cut to what fits the model's context.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_memorybench.agents.memory.base import Entry
from pytest_memorybench.agents.memory.full_context import FullContext
from pytest_memorybench.agents.memory.reference import DEFAULT_RECENT_TURNS
from pytest_memorybench.agents.memory.systems import positive


@dataclass(frozen=True)
class RecentSettings:
    turns: int = DEFAULT_RECENT_TURNS

    def __post_init__(self) -> None:
        positive(turns=self.turns)


class RecentMemorySystem(FullContext):
    name = "recent-memory"
    settings_type = RecentSettings

    def kept(self) -> list[Entry]:
        return self.log[-self.settings.turns - 1 :]  # the message being answered and the `turns` before it
