"""Under pytest-xdist: the controller hands each worker the run, groups items by conversation, and
takes back what each worker's conversations and judge did (`workeroutput`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_memorybench.pytest_integration.starting import (
    WORKER_CONCURRENCY,
    WORKER_CONVERSATIONS,
    WORKER_JUDGE,
    worker_input,
)

if TYPE_CHECKING:
    from pytest_memorybench.pytest_integration.finishing import Tally
    from pytest_memorybench.runner.run import BenchmarkRun


class XdistControllerHooks:
    """Hands the run id and folder to every xdist worker, and takes its conversations back."""

    def __init__(self, run: BenchmarkRun, tally: Tally) -> None:
        self.run = run
        self.tally = tally
        self.recorded = False  # the selection, in the run folder

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput.update(worker_input(node.config))

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Under `loadgroup` (which `-n` alone becomes, see starting.start), group benchmark items
        by conversation from the plan, not from node ids (pytest >= 9.2 drops xdist's suffix)."""
        if config.getvalue("dist") != "loadgroup":
            return None
        from pytest_memorybench.runner.xdist_groups import ConversationScheduling

        run = self.run
        return ConversationScheduling(
            config,
            log,
            {key: test.group for key, test in run.context.tests.items()},
            run.context.settings.concurrency,
        )

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """The controller collects nothing itself: what its workers selected is what the run selected."""
        tests = self.run.context.tests
        keys = [
            nodeid if nodeid in tests else nodeid.rpartition("@")[0] for nodeid in ids
        ]  # loadgroup adds @group
        if not self.recorded:  # every worker selects the same tests
            self.run.context.record_selection(keys)
            self.recorded = True
        self.tally.selected = max(self.tally.selected, sum(key in tests for key in keys))
        scoreable = sum(key in tests and not tests[key].definition.skip_reason for key in keys)
        self.tally.scoreable = max(self.tally.scoreable, scoreable)

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {})
        self.tally.worker_conversations += output.get(WORKER_CONVERSATIONS, [])
        if WORKER_JUDGE in output:
            self.tally.worker_judge_stats.append(output[WORKER_JUDGE])
        if WORKER_CONCURRENCY in output:
            self.tally.worker_concurrency.append(output[WORKER_CONCURRENCY])
