"""Keeping each conversation on one xdist worker, whatever pytest's node ids look like.

xdist's `loadgroup` learns an item's group from a `@group` suffix its workers append to the node
id.  From pytest 9.2, node ids are structured and that suffix no longer takes (pytest-xdist
issue #1386): grouping silently stops, and two workers would each drive, and pay for, the same
conversation.  The controller plans every benchmark test itself, so it knows each one's group
without asking the node id; this scheduler uses that, and xdist's own rule for anything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from xdist.scheduler import LoadGroupScheduling


class ConversationScheduling(LoadGroupScheduling):
    """`loadgroup`, with benchmark items grouped by their conversation."""

    def __init__(self, config: pytest.Config, log: Any, groups: Mapping[str, str]) -> None:
        super().__init__(config, log)
        self.groups = dict(groups)  # node id (without a group suffix) -> conversation group

    def _split_scope(self, nodeid: str) -> str:
        plain = nodeid[: nodeid.rfind("@")] if nodeid.rfind("@") > nodeid.rfind("]") else nodeid
        group = self.groups.get(plain)
        return f"memorybench:{group}" if group is not None else super()._split_scope(nodeid)
