"""A `memorybench_agent_factory` fixture for your own agent: copy it into your project's root conftest.py.

The benchmark then talks to the agent your team ships, built the way your application builds it
(settings, memory store, clients).  A factory rather than one agent: the run makes a new agent for
each conversation, so conversations can run at once (`--mb-concurrency`, 4 by default) without
their memories mixing, and closes each (its `aclose()` or `close()`) when its conversation ends.
If your agent can exist only once, define a `memorybench_agent` fixture that returns it instead:
its conversations then take turns.

Put it in the conftest.py at the root of your project: benchmark items hang from the session, not
from a folder, so a fixture in a subfolder's conftest.py (like this one) reaches only the tests in
that folder.  Here it serves the hand-written memory tests next to it:

    pytest --memorybench examples/test_my_agent_memory.py                # this factory's agent

It steps aside when `--agent` is given, so the calibration agents keep working in the same project
(`--agent=oracle` must pass every item, `--agent=null` fail them): it then returns the plugin's
own factory, built from `--agent`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from custom_agent import NewestMatchAgent  # pytest puts a conftest's folder (examples/) on sys.path


@pytest.fixture(scope="session")
def memorybench_agent_factory(request: pytest.FixtureRequest) -> Callable[[], Any] | None:
    if request.config.getoption("mb_agent"):
        return request.getfixturevalue("memorybench_agent_factory")  # the plugin's, from --agent
    # Read your settings and open what agents share (a connection pool) here, once; the function
    # returned makes one agent per conversation.
    return NewestMatchAgent
