"""A `memorybench_agent` fixture for your own agent: copy it into your project's root conftest.py.

The benchmark then talks to the agent your team ships, built the way your application builds it
(settings, memory store, clients) and closed when the session ends.  Put it in the conftest.py at
the root of your project: benchmark items hang from the session, not from a folder, so a fixture
in a subfolder's conftest.py (like this one) reaches only the tests in that folder.  Here it
serves the hand-written memory tests next to it:

    pytest --memorybench examples/test_my_agent_memory.py                # this fixture's agent

A fixture wins over `--agent`; this one steps aside when `--agent` is given, so the calibration
agents keep working in the same project (`--agent=oracle` must pass every item, `--agent=null`
fail them): it then returns the plugin's own fixture of the same name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from custom_agent import NewestMatchAgent  # pytest puts a conftest's folder (examples/) on sys.path


@pytest.fixture(scope="session")
def memorybench_agent(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.config.getoption("mb_agent"):
        yield request.getfixturevalue("memorybench_agent")  # the plugin's, built from --agent
        return
    agent = NewestMatchAgent()  # build yours here: read its settings, open its memory store
    yield agent
    agent.statements.clear()  # and close it here: flush the store, close its HTTP clients
