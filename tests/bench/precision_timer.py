"""A plugin for bench_precision.py: keeps what each evidence measure of a run was given.

Loaded with `-p precision_timer` (tests/bench on PYTHONPATH) into a real run; it wraps
`conversation.evidence._recall`, records its inputs as the run calls it, and at the end writes
them to the file named by MB_PRECISION_INPUTS, for the bench to time the measure with and without
precision on exactly the run's questions and memories.
"""

from __future__ import annotations

import json
import os
from typing import Any

from pytest_memorybench.conversation import evidence

_calls: list[list[Any]] = []
_measure = evidence._recall


def _recording(evidence_texts: Any, memories: Any, groups: Any) -> Any:
    _calls.append([list(evidence_texts), list(memories), None if groups is None else list(groups)])
    return _measure(evidence_texts, memories, groups)


evidence._recall = _recording  # type: ignore[assignment]


def pytest_unconfigure() -> None:
    with open(os.environ["MB_PRECISION_INPUTS"], "w", encoding="utf-8") as file:
        json.dump(_calls, file)
