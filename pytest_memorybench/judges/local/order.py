"""The `order` task: align predicted items with the ground truth, in order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_memorybench.judges.local.listed_items import same_item
from pytest_memorybench.judges.replies import OrderReply


def judge_order(payload: Mapping[str, Any]) -> OrderReply:
    """For each predicted item, the ground-truth item it matches, each used once."""
    predicted = [str(item) for item in payload["predicted"]]
    ground_truth = [str(item) for item in payload["ground_truth"]]
    used: set[int] = set()
    indexes = []
    for item in predicted:
        index = next(
            (i for i, truth in enumerate(ground_truth) if i not in used and same_item(item, truth)), -1
        )
        if index >= 0:
            used.add(index)
        indexes.append(index)
    return {
        "predicted_indexes": indexes,
        "reason": f"{len(used)} of {len(predicted)} predicted items aligned",
    }
