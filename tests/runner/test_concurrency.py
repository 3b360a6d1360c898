"""Concurrent conversations in one process (`--mb-concurrency`): agents of their own, the results of a
serial run, the limit kept, and a killed concurrent run resumed to the same scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.runs import results_in

pytestmark = pytest.mark.e2e

pytest_plugins = ["pytester"]

# The recall baseline with a little latency, counting (in module globals, shared by every instance)
# the replies given and the most conversations answered at once; each instance keeps what it was
# sent, and the session writes it all to agents.json.  MB_STOP_AT=N kills the process at reply N.
RECORDING_AGENT = """
import asyncio, json, os, signal
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent

FLIGHT = {"now": 0, "most": 0, "replies": 0}
AGENTS = []

class Recording(ExtractiveAgent):
    def __init__(self):
        super().__init__()
        self.sent = []
        if self not in AGENTS:  # reset() starts over by calling __init__
            AGENTS.append(self)

    async def reply(self, message):
        FLIGHT["now"] += 1
        FLIGHT["most"] = max(FLIGHT["most"], FLIGHT["now"])
        FLIGHT["replies"] += 1
        if FLIGHT["replies"] == int(os.environ.get("MB_STOP_AT", "0")):
            os.kill(os.getpid(), signal.SIGKILL)
        try:
            await asyncio.sleep(0.02)
            self.sent.append(message.text)
            return await super().reply(message)
        finally:
            FLIGHT["now"] -= 1

def save():
    with open("agents.json", "w") as out:
        json.dump({"most": FLIGHT["most"], "sent": [agent.sent for agent in AGENTS if agent.sent]}, out)
"""
FACTORY_CONFTEST = """
import pytest
from recording import Recording, save

@pytest.fixture(scope="session")
def memorybench_agent_factory():
    yield Recording
    save()
"""
FIXTURE_CONFTEST = """
import pytest
from recording import Recording, save

@pytest.fixture(scope="session")
def memorybench_agent():
    yield Recording()
    save()
"""
SAME_AGENT_CONFTEST = """
import pytest
from recording import Recording

ONE = Recording()

@pytest.fixture(scope="session")
def memorybench_agent_factory():
    return lambda: ONE
"""
RUN = ("-p", "no:randomly", "-p", "no:cacheprovider", "--memorybench", "-k", "not chapterbreak")


@pytest.fixture
def recording(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(recording=RECORDING_AGENT)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=":")
    return pytester


def scores(folder: Path) -> dict[str, float]:
    return {item["nodeid"]: item["score"] for item in results_in(folder)["items"]}


def sent_by_group(folder: Path) -> dict[str, list[str]]:
    """What each conversation of a run said to its agent, in order, from its event logs."""
    said: dict[str, list[str]] = {}
    for log in sorted(folder.glob("events*.jsonl")):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event["kind"] == "message" and "text" in event:
                said.setdefault(event["group"], []).append(event["text"])
    return said


def test_concurrent_conversations_each_have_their_own_agent_and_score_as_a_serial_run(
    recording: pytest.Pytester,
) -> None:
    recording.makeconftest(FACTORY_CONFTEST)
    serial = recording.runpytest_subprocess(
        *RUN, "--span=isolated", "--mb-concurrency=1", "--mb-output=serial"
    )
    serial_most = json.loads((recording.path / "agents.json").read_text())["most"]
    result = recording.runpytest_subprocess(
        *RUN, "--span=isolated", "--mb-concurrency=4", "--mb-output=concurrent"
    )
    assert result.ret == serial.ret == pytest.ExitCode.TESTS_FAILED, "the recall baseline fails some items"
    result.stdout.fnmatch_lines(["memorybench: agent memorybench_agent fixture | * | concurrency 4 | *"])
    agents = json.loads((recording.path / "agents.json").read_text())
    assert serial_most == 1 and agents["most"] == 4, "four conversations at once, never more"
    said = sent_by_group(recording.path / "concurrent")
    assert len(said) == 30 == len(agents["sent"]), "one agent per conversation"
    logged = {text for texts in said.values() for text in texts}  # filler is logged by reference, not text
    heard = [[text for text in sent if text in logged] for sent in agents["sent"]]
    assert sorted(heard) == sorted(said.values()), (
        "each agent heard exactly one conversation, nothing of another"
    )
    assert scores(recording.path / "concurrent") == scores(recording.path / "serial")
    assert sent_by_group(recording.path / "concurrent") == sent_by_group(recording.path / "serial")


def test_split_conversations_overlap_with_a_spec_agent_and_under_xdist(pytester: pytest.Pytester) -> None:
    """`--mb-conversations K`: K interleaved conversations, from an `--agent` spec (a new agent per
    conversation), in one process and on two xdist workers: the scores of a serial run."""
    common = (*RUN, "--agent=recall", "--span=2k", "--mb-conversations=3")
    pytester.runpytest_subprocess(*common, "--mb-concurrency=1", "--mb-output=serial")
    pytester.runpytest_subprocess(*common, "--mb-output=concurrent")
    pytester.runpytest_subprocess(*common, "-n", "2", "--mb-output=workers")
    expected = scores(pytester.path / "serial")
    assert len(expected) == 30
    assert scores(pytester.path / "concurrent") == expected
    assert scores(pytester.path / "workers") == expected
    assert sent_by_group(pytester.path / "workers") == sent_by_group(pytester.path / "serial")


def test_one_agent_fixture_runs_its_conversations_one_at_a_time_and_says_why(
    recording: pytest.Pytester,
) -> None:
    recording.makeconftest(FIXTURE_CONFTEST)
    result = recording.runpytest_subprocess(*RUN, "--span=isolated", "-k", "colours")
    result.stdout.fnmatch_lines(
        [
            "memorybench: agent memorybench_agent fixture | * | concurrency 1 | *",
            (
                "memorybench: your memorybench_agent fixture is one agent, so its conversations take turns; a"
                " memorybench_agent_factory fixture that makes a new agent per call lets several run at once"
            ),
        ]
    )
    assert json.loads((recording.path / "agents.json").read_text())["most"] == 1


def test_a_factory_that_hands_out_one_agent_twice_is_one_clear_line(recording: pytest.Pytester) -> None:
    recording.makeconftest(SAME_AGENT_CONFTEST)
    result = recording.runpytest_subprocess(*RUN, "--span=isolated", "-k", "colours")
    result.stdout.fnmatch_lines(
        [
            "*memorybench_agent_factory returned an agent that another conversation is using; it must make a"
            " new one at each call (or run with --mb-concurrency 1)*"
        ]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_concurrent_run_killed_resumes_and_replays_to_a_serial_runs_scores(
    recording: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording.makeconftest(FACTORY_CONFTEST)
    common = (*RUN, "--span=isolated", "-k", "colours or name_list or shopping")
    recording.runpytest_subprocess(*common, "--mb-concurrency=1", "--mb-output=serial")
    monkeypatch.setenv("MB_STOP_AT", "25")
    killed = recording.runpytest_subprocess(*common, "--mb-output=run")
    assert killed.ret == -9
    monkeypatch.delenv("MB_STOP_AT")
    begun = {group for group in sent_by_group(recording.path / "run")}
    assert len(begun) >= 4, "several conversations were in flight when it was killed"
    recording.runpytest_subprocess(*common, "--mb-resume=run")
    assert scores(recording.path / "run") == scores(recording.path / "serial")
    recording.runpytest_subprocess(*common, "--mb-replay=run", "--mb-output=replayed")
    assert scores(recording.path / "replayed") == scores(recording.path / "serial")
