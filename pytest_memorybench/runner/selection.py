"""Which planned tests this process runs, and which of them a conversation's driving takes along.

pytest selects items (`-k`, `-m`, `--lf`, an xdist worker's share); a conversation is driven once,
for the selected tests of its group only. Four things narrow that further: a resumed run runs the
tests the run it continues selected, a conversation the run folder had begun keeps the tests it was
planned with (its log can only be continued by the same conversation), a shard runs only the groups
dealt to it, and a merge only the tests its shards recorded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from pytest_memorybench.runner.plan import PlannedTest

if TYPE_CHECKING:
    from pytest_memorybench.conversation.log_reader import ConversationLog


class Selection:
    """Which planned tests this process runs: pytest's selection, an earlier run's, a shard's part."""

    def __init__(
        self,
        tests: Mapping[str, PlannedTest],
        by_group: Mapping[str, list[PlannedTest]],
        logged: Mapping[str, ConversationLog],
        *,
        shard_groups: set[str] | None = None,
        merged_keys: Iterable[str] | None = None,
        resumed_keys: Iterable[str] | None = None,
    ) -> None:
        self.tests = tests
        self.by_group = by_group
        self.logged = logged
        self.shard_groups = shard_groups  # None: not a shard
        self.merged_keys = set(merged_keys) if merged_keys is not None else None  # None: not a merge
        # the tests the run a resume continues selected; None: not a resume (or it did not say)
        self.resumed_keys = set(resumed_keys) if resumed_keys is not None else None
        self.keys: set[str] = set(tests)
        self.order: list[str] = list(tests)  # the selected tests, in pytest's order

    def select(self, keys: Iterable[str]) -> None:
        """Remember which tests pytest will run, in its order."""
        ordered = [key for key in keys if key in self.tests and not self.outside_logged_plan(key)]
        selected = set(ordered)
        for log in self.logged.values():
            selected |= set(log.tests or ()) & set(self.tests)
        self.keys = selected
        self.order = ordered

    def outside_logged_plan(self, key: str) -> bool:
        """Test `key` belongs to a conversation the run folder began without it (resume, replay)."""
        log = self.logged.get(self.tests[key].group)
        return log is not None and log.tests is not None and key not in log.tests

    def outside_this_run(self, key: str) -> bool:
        """Test `key` is not this process's to run: another shard's, one no merged shard ran, one the
        resumed run did not select, or outside a resumed conversation's plan."""
        test = self.tests[key]
        if self.shard_groups is not None and test.group not in self.shard_groups:
            return True
        if self.resumed_keys is not None and key not in self.resumed_keys:
            return True
        if self.merged_keys is not None and key not in self.merged_keys and not test.definition.skip_reason:
            return True  # (a test skipped up front has no record, and is skipped here too)
        return self.outside_logged_plan(key)

    def group_tests(self, group: str, also: str | None = None) -> list[PlannedTest]:
        """The tests driving `group` runs: its selected ones (and `also`), less those skipped up front."""
        return [
            test for test in self.by_group.get(group, ())
            if (test.key in self.keys or test.key == also) and not test.definition.skip_reason
        ]  # fmt: skip

    def members(self, key: str) -> list[PlannedTest]:
        """The tests that driving `key`'s conversation runs: the selected ones of its group, and it."""
        return self.group_tests(self.tests[key].group, also=key)
