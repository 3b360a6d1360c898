"""Fixtures the plugin provides.  A user's conftest.py may define `memorybench_agent` to override it.

Imported by the entry-point module on every pytest run, so it imports the heavy parts lazily.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from pytest_memorybench.pytest_integration.keys import RUN_KEY

if TYPE_CHECKING:
    from pytest_memorybench.agents.agent_protocol import AgentAdapter
    from pytest_memorybench.conversation.interactive import MemoryConversation


@pytest.fixture(scope="session")
def memorybench_agent_factory(pytestconfig: pytest.Config) -> Callable[[], Any] | None:
    """Makes a new agent for each conversation, so conversations can run at once (`--mb-concurrency`).

    From `--agent` here; override it in conftest.py with a fixture returning a zero-argument
    callable that returns a new agent each time.  None: the agent exists once, and its
    conversations take turns.
    """
    run = pytestconfig.stash.get(RUN_KEY, None)
    if run is None or run.context.agentless:
        return None
    return run.agents.spec_factory()


@pytest.fixture(scope="session")
def memorybench_agent(
    pytestconfig: pytest.Config, memorybench_agent_factory: Callable[[], Any] | None
) -> Iterator[AgentAdapter | None]:
    """The agent under test, built from `--agent` (or by a `memorybench_agent_factory` of yours).

    Benchmark conversations get agents of their own from the factory when there is one, and never
    ask for this one: it serves tests written by hand (`memorybench_conversation`).  When `--agent`
    names one object, it is that object, which the conversations share.
    """
    run = pytestconfig.stash.get(RUN_KEY, None)
    if run is None:
        pytest.fail("memorybench_agent needs pytest --memorybench --agent=SPEC", pytrace=False)
    if run.context.agentless:
        yield None  # replies come from a replayed run's log or from published results
        return
    if run.agents.spec is not None:
        yield run.agents.one()  # built once, closed with the run
        return
    if memorybench_agent_factory is None:
        pytest.fail(
            "no agent: pass --agent=SPEC (e.g. --agent=recall) or define a memorybench_agent "
            "fixture in conftest.py",
            pytrace=False,
        )
    agent = run.agents.adapt(memorybench_agent_factory(), "memorybench_agent_factory")
    yield agent
    if agent is not None:
        run.run_sync(agent.aclose())


@pytest.fixture
def memorybench_conversation(
    memorybench_agent: Any, pytestconfig: pytest.Config, request: pytest.FixtureRequest
) -> MemoryConversation:
    """A fresh conversation with the agent under test, for memory tests written by hand."""
    run = pytestconfig.stash.get(RUN_KEY, None)
    if run is None:
        pytest.fail("memorybench_conversation needs pytest --memorybench --agent=SPEC", pytrace=False)
    from pytest_memorybench.runner.run import conversation_for

    return conversation_for(run, request.node.nodeid, memorybench_agent)
