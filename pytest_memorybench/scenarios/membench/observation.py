"""`membench.observation`: the agent only records the user's messages (MemBench's "third agent" data).

A stream of the user's messages, each with its time and place, and no replies (§3.2): the agent
observes and is asked later.  Every question type except the two about the assistant's own
recommendations, as in the released observation data.
"""

from __future__ import annotations

from pytest_memorybench.scenarios.membench.benchmark import MemBenchScenario

SCENARIO = MemBenchScenario("membench.observation", dialogue=False)
