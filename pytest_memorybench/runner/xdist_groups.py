"""Keeping each conversation on one xdist worker, whatever pytest's node ids look like.

xdist's `loadgroup` learns an item's group from a `@group` suffix its workers append to the node
id.  From pytest 9.2, node ids are structured and that suffix no longer takes (pytest-xdist
issue #1386): grouping silently stops, and two workers would each drive, and pay for, the same
conversation.  The controller plans every benchmark test itself, so it knows each one's group
without asking the node id; this scheduler uses that, and xdist's own rule for anything else.

It also keeps each worker supplied with as many conversations as `--mb-concurrency` lets it drive
at once (xdist's own rule tops a worker up only when two tests are left): a worker can overlap
only the conversations it has been given.  `worker_queue` is the worker's side: what it was given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from xdist.scheduler import LoadGroupScheduling

AUTO_SCOPES_PER_WORKER = 8


class ConversationScheduling(LoadGroupScheduling):
    """`loadgroup`, with benchmark items grouped by their conversation."""

    def __init__(
        self, config: pytest.Config, log: Any, groups: Mapping[str, str], concurrency: int | None = 1
    ) -> None:
        super().__init__(config, log)
        self.groups = dict(groups)  # node id (without a group suffix) -> conversation group
        # Scopes a worker holds at once (xdist's rule: about 2); under auto, room for its level to rise.
        self.per_worker = max(2, concurrency or AUTO_SCOPES_PER_WORKER)

    def _reschedule(self, node: Any) -> None:
        """Top the worker up to `per_worker` unfinished scopes (xdist: when 2 tests are left)."""
        if node.shutting_down:
            return
        if not self.workqueue:
            node.shutdown()
            return
        while self.workqueue and self._unfinished_scopes(node) < self.per_worker:
            self._assign_work_unit(node)

    def _unfinished_scopes(self, node: Any) -> int:
        return sum(not all(unit.values()) for unit in self.assigned_work.get(node, {}).values())

    def _split_scope(self, nodeid: str) -> str:
        plain = nodeid[: nodeid.rfind("@")] if nodeid.rfind("@") > nodeid.rfind("]") else nodeid
        group = self.groups.get(plain)
        return f"memorybench:{group}" if group is not None else super()._split_scope(nodeid)


def worker_queue(config: pytest.Config, items: list[pytest.Item]) -> Iterable[pytest.Item] | None:
    """The items an xdist worker has been given and not run yet, in order; None if it cannot tell.

    xdist keeps them in its `WorkerInteractor` (not a public API: the next item it took out, then
    its queue); an xdist whose interactor looks different gives None, and the worker then drives
    only the conversation of the item it runs.
    """
    interactor = next(
        (p for p in config.pluginmanager.get_plugins() if type(p).__name__ == "WorkerInteractor"), None
    )
    queue = getattr(interactor, "torun", None)
    lock = getattr(queue, "lock", None)
    if lock is None:
        return None
    with lock() as pending:
        indices = [getattr(interactor, "nextitem_index", None), *pending]
    return [items[i] for i in indices if isinstance(i, int) and 0 <= i < len(items)]
