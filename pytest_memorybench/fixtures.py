"""Fixtures the plugin provides.  A user's conftest.py may define `memorybench_agent` to override it.

Imported by the entry-point module on every pytest run, so it imports the heavy parts lazily.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from pytest_memorybench.keys import RUN_KEY

if TYPE_CHECKING:
    from pytest_memorybench.agents.protocol import AgentAdapter
    from pytest_memorybench.conversation.interactive import MemoryConversation


@pytest.fixture(scope="session")
def memorybench_agent(pytestconfig: pytest.Config) -> Iterator[AgentAdapter | None]:
    """The agent under test, built from `--agent`."""
    run = pytestconfig.stash.get(RUN_KEY, None)
    if run is None:
        pytest.fail("memorybench_agent needs pytest --memorybench --agent=SPEC", pytrace=False)
    if run.agentless:
        yield None  # replies come from a replayed run's log or from published results
        return
    if run.settings.agent is None:
        pytest.fail(
            "no agent: pass --agent=SPEC (e.g. --agent=recall) or define a memorybench_agent "
            "fixture in conftest.py",
            pytrace=False,
        )
    from pytest_memorybench.agents.spec import build_agent

    agent = build_agent(run.settings.agent, run.settings.agent_options)
    yield agent
    run.run_sync(agent.aclose())


@pytest.fixture
def memorybench_conversation(
    memorybench_agent: Any, pytestconfig: pytest.Config, request: pytest.FixtureRequest
) -> MemoryConversation:
    """A fresh conversation with the agent under test, for memory tests written by hand."""
    run = pytestconfig.stash.get(RUN_KEY, None)
    if run is None:
        pytest.fail("memorybench_conversation needs pytest --memorybench --agent=SPEC", pytrace=False)
    return run.conversation_for(request.node.nodeid, memorybench_agent)
