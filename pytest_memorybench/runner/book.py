"""The outcome book: what each test and conversation of this process ended with.

Drivers write into it as conversations finish (also when something cuts one short); the pytest
face reads an item's outcome from it; results.json lists what it holds, including the outcomes of
tests pytest never got to report.  An outage that outlives its retries for several conversations
in a row stops the run here, where the outcomes are counted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from pytest_memorybench.conversation.probing import ProbeSession
from pytest_memorybench.conversation.scheduler import Conversation
from pytest_memorybench.conversation.stats import ConversationStats
from pytest_memorybench.core.errors import RunStopped
from pytest_memorybench.core.records import Score, TestOutcome, Usage
from pytest_memorybench.runner.loop import describe_interruption
from pytest_memorybench.runner.plan import PlannedTest

# Conversations in a row that an outage (a model provider or a memory store that still fails after
# its retries) ended: the run stops there, keeping what it has, instead of retrying a dead service
# for every conversation left.
OUTAGE_STOP = 3
OUTAGES = ("provider", "store")


class OutcomeBook:
    """Every outcome and conversation this process has, and which conversations were cut short."""

    def __init__(self, tests: Mapping[str, PlannedTest]) -> None:
        self.tests = tests
        self.conversations: dict[str, ConversationStats] = {}  # by conversation group
        self._outcomes: dict[str, TestOutcome] = {}
        self._cut: dict[str, str] = {}  # conversation group -> what cut its driving short
        self._outages: list[str] = []  # the errors of the conversations an outage ended, in a row

    def __contains__(self, key: str) -> bool:
        return key in self._outcomes

    def record(self, outcomes: Mapping[str, TestOutcome]) -> None:
        """The outcomes a group's driving gave its tests."""
        self._outcomes.update(outcomes)

    def keep_finished(self, group: str, conversation: Conversation | ProbeSession) -> None:
        """Keep what a conversation finished, also when something cut it short: what its unfinished
        tests were asked was paid for, and counts as the conversation's own spending."""
        for key, outcome in conversation.finished().items():
            self._outcomes.setdefault(key, outcome)
        for key, usage in conversation.spent_by_test().items():
            if key not in self._outcomes:
                conversation.stats.overhead_usage.add(usage)
        self.conversations[group] = conversation.stats
        self._count_outage(conversation.stats)

    def _count_outage(self, stats: ConversationStats) -> None:
        """Stop the run when the last OUTAGE_STOP conversations all ended in an outage."""
        if stats.error is None:
            self._outages = []
        elif stats.error_kind in OUTAGES:
            self._outages.append(stats.error)
            if len(self._outages) >= OUTAGE_STOP:
                raise RunStopped(
                    f"{len(self._outages)} conversations in a row failed after their retries, the last with:"
                    f" {self._outages[-1]}"
                )

    def mark_cut(self, group: str, exc: BaseException, cancelled_because: str) -> None:
        """Something cut `group`'s driving short: a cancellation (for `cancelled_because`), or `exc`."""
        reason = cancelled_because if isinstance(exc, asyncio.CancelledError) else describe_interruption(exc)
        self._cut.setdefault(group, reason)
        if group in self.conversations:
            self.conversations[group].error = f"cut short: {self._cut[group]}"

    def is_cut(self, group: str) -> bool:
        return group in self._cut

    def outcome(self, key: str) -> TestOutcome:
        """Test `key`'s outcome, or, when its conversation was cut short before it ended, an error
        saying so."""
        if key in self._outcomes:
            return self._outcomes[key]
        test = self.tests[key]
        error = (
            f"conversation {test.group} was cut short ({self._cut.get(test.group, 'interrupted')}) before"
            " this test ended, so it has no score; --mb-resume continues the conversation without asking"
            " again"
        )
        return TestOutcome(
            test.definition,
            [],
            Score(0.0, (error,)),
            [],
            0,
            Usage(),
            error=error,
            span_target=test.span.tokens,
            error_kind="interrupted",
        )

    def finished(self) -> dict[str, TestOutcome]:
        """Every outcome this process has, including those of tests pytest never got to report
        (an interruption, `-x`): a partial results.json lists them too."""
        return dict(self._outcomes)
