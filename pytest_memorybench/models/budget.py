"""What this process's agents have spent, and the check each agent call passes under `--mb-max-cost`.

Deciding before a conversation starts (`reports/spending.SpendingCap`) is not enough when
several run at once: four conversations starting together would each see the budget untouched.
So every agent call also asks first; once the budget is spent, the call is not made, and only the
calls already in flight can take the run past it.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_memorybench.core.errors import AgentError


class BudgetReached(AgentError):
    """The run's budget is spent: this conversation stops before its next agent call."""


class Budget:
    """What this process's agent calls have spent, and the check every call passes before it is made."""

    def __init__(self) -> None:
        self.agent_usd = 0.0  # every call through any adapter of the run, forks included
        self._reason_to_stop: Callable[[], str | None] = lambda: None

    def stop_when(self, reason_to_stop: Callable[[], str | None]) -> None:
        """What says the budget is spent (the cost cap, when there is one)."""
        self._reason_to_stop = reason_to_stop

    def charge(self, usd: float) -> None:
        self.agent_usd += usd

    def check(self) -> None:
        reason = self._reason_to_stop()
        if reason is not None:
            raise BudgetReached(reason)
