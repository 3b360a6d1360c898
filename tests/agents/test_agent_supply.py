"""Where a run's conversations get their agents, decided once when the session starts: one agent
built per conversation (or the one object shared), and none that nothing uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.runs import run_benchmark

pytest_plugins = ["pytester"]

# The recall baseline, each construction written down (a line in built.txt), so a run's agents can
# be counted whichever process or import made them (a fork is a copy: not built).
COUNTED_AGENT = """
from pathlib import Path
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent

class Counted(ExtractiveAgent):
    def __init__(self):
        if not hasattr(self, "counted"):  # reset() starts over by calling __init__ again
            with open(Path(__file__).parent / "built.txt", "a") as built:
                built.write("built\\n")
        super().__init__()
        self.counted = True
"""
FACTORY_CONFTEST = """
import pytest
from counted import Counted

@pytest.fixture(scope="session")
def memorybench_agent_factory():
    return Counted
"""
AGENT_CONFTEST = """
import pytest
from counted import Counted

@pytest.fixture(scope="session")
def memorybench_agent():
    return Counted()
"""
COLOURS = ("--span=isolated", "-k", "colours", "--mb-concurrency=1")


def built(pytester: pytest.Pytester) -> int:
    path = Path(pytester.path / "built.txt")
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.fixture
def counted(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(counted=COUNTED_AGENT)
    monkeypatch.syspath_prepend(pytester.path)
    return pytester


@pytest.mark.parametrize(
    ("conftest", "agent"),
    [(None, "--agent=counted:Counted"), (FACTORY_CONFTEST, None), (FACTORY_CONFTEST, "--agent=recall")],
    ids=["agent-class", "factory-fixture", "factory-fixture-over-agent"],
)
def test_one_agent_is_built_per_conversation_and_none_besides(
    counted: pytest.Pytester, conftest: str | None, agent: str | None
) -> None:
    if conftest is not None:
        counted.makeconftest(conftest)
    run = run_benchmark(counted, *COLOURS, *([agent] if agent else []))
    conversations = {item["conversation"] for item in run.results["items"]}
    assert len(conversations) == 3, "isolated: each colours test is a conversation of its own"
    assert built(counted) == 3, "an agent per conversation, and no agent that no conversation used"


def test_an_agent_fixture_is_the_one_agent_every_conversation_shares(counted: pytest.Pytester) -> None:
    counted.makeconftest(AGENT_CONFTEST)
    run = run_benchmark(counted, *COLOURS, "--agent=recall")
    assert len({item["conversation"] for item in run.results["items"]}) == 3
    assert built(counted) == 1, "the fixture wins over --agent, which builds nothing"
    run.outcome.stdout.fnmatch_lines(["memorybench: agent recall | * | concurrency 1 | *"])


def test_a_hand_written_test_has_the_agent_fixture_and_the_conversations_their_own(
    counted: pytest.Pytester,
) -> None:
    counted.makepyfile(
        test_mine="""
        def test_colours_of_my_cat(memorybench_conversation):
            memorybench_conversation.say("My cat is called Pixel.")
            assert "Pixel" in memorybench_conversation.ask("What is my cat called?")
        """
    )
    run = run_benchmark(counted, *COLOURS, "--mb-suite=ltm", "--agent=counted:Counted", "test_mine.py")
    run.outcome.assert_outcomes(passed=4)
    assert built(counted) == 3 + 1, "three conversations, and the one agent of the test written by hand"
