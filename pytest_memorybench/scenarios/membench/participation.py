"""`membench.participation`: the agent took part in the dialogue (MemBench's "first agent" data).

Sessions of user messages with the assistant's replies, recorded in advance so that no other part
of the agent shapes what it has to remember (§3.2); the agent must remember both sides, since two
question types ask what the assistant itself recommended.  All ten question types.
"""

from __future__ import annotations

from pytest_memorybench.scenarios.membench.benchmark import MemBenchScenario

SCENARIO = MemBenchScenario("membench.participation", dialogue=True)
