"""The pytest habits and plugins a user's project already has, on a benchmark run.

Each test runs pytest in a subprocess, as a user's project would, with the plugin under test
loaded from its entry point; a plugin that is not installed skips its test.  The claims: the same
scores as a plain run (pytest-randomly, pytest-rerunfailures, pytest-cov, pytest-asyncio), a
timeout that never cuts a conversation it allows per test (pytest-timeout), and pytest's own
selection (`--lf`, `--ff`, `--nf`, `--sw`, `--deselect`) planning the conversation from what it
selects.  CI runs this module on the oldest pytest we declare and on the newest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.runs import QUIET, results_in

pytestmark = pytest.mark.compat

TWO_SCENARIOS = ("--memorybench", "--span=2k", "-k", "colours or name_list")
SLOW_AGENT = """
import asyncio, os
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent

class SlowRecall(ExtractiveAgent):
    '''The recall baseline, answering after a pause (SLOW_AGENT_PAUSE seconds, 0.05 by default).'''
    async def reply(self, message):
        await asyncio.sleep(float(os.environ.get("SLOW_AGENT_PAUSE", "0.05")))
        return await super().reply(message)

def make():
    return SlowRecall()
"""


class Project:
    """A user's project: pytest runs in a subprocess, each run in a run folder of its own."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.runs = 0
        pytester.makeini("[pytest]\n")
        pytester.makepyfile(slowagent=SLOW_AGENT)

    def run(self, *args: str, agent: str = "--agent=recall") -> tuple[pytest.RunResult, Path]:
        self.runs += 1
        folder = self.pytester.path / f"run{self.runs}"
        result = self.pytester.runpytest_subprocess(*TWO_SCENARIOS, agent, f"--mb-output={folder}", *args)
        return result, folder


def scores(folder: Path) -> dict[str, tuple[float, bool]]:
    return {item["nodeid"]: (item["score"], item["passed"]) for item in results_in(folder)["items"]}


def planned(folder: Path) -> list[list[str]]:
    """The tests each conversation of the run was begun with, from its events."""
    return [event["tests"] for event in _events(folder) if event["kind"] == "conversation_begin"]


def _events(folder: Path) -> list[dict[str, Any]]:
    """The run's events, from every process that wrote some (xdist workers write their own file)."""
    return [
        json.loads(line)
        for path in sorted(folder.glob("events*.jsonl"))
        for line in path.read_text().splitlines()
    ]


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    return Project(pytester)


@pytest.fixture
def plain(project: Project) -> dict[str, tuple[float, bool]]:
    """The scores of a plain run, with the plugins that are optional for it turned off."""
    _, folder = project.run("-p", "no:randomly", "-p", "no:cacheprovider")
    return scores(folder)


# -- pytest-timeout ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["signal", "thread"])
def test_a_timeout_per_test_never_cuts_the_conversation_it_allows(project: Project, method: str) -> None:
    pytest.importorskip("pytest_timeout")
    _, folder = project.run("-p", "no:randomly", agent="--agent=slowagent:make")
    unlimited = scores(folder)
    # Each test takes well under a second; the conversation of six takes longer than one.
    result, limited = project.run(
        "-p", "no:randomly", "--timeout=1", f"--timeout-method={method}", agent="--agent=slowagent:make"
    )
    assert scores(limited) == unlimited, result.stdout.str()
    assert results_in(limited)["totals"]["agent_seconds"] > 1, (
        "the conversation took longer than one test's limit"
    )


def test_a_conversation_cut_by_a_timeout_is_not_driven_again(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("pytest_timeout")
    # The limit falls while the agent thinks, as a real cut does.  With short pauses it could fall
    # in the plugin's own work instead (its imports on a busy machine), where CPython 3.11 may turn
    # the signal's exception raised inside its AST constructor into "SystemError: AST constructor
    # recursion depth mismatch": 3 s is far past that work, and short of the agent's 6 s pause.
    monkeypatch.setenv("SLOW_AGENT_PAUSE", "6")
    result, folder = project.run("-p", "no:randomly", "--timeout=0.5", agent="--agent=slowagent:make")
    output = result.stdout.str()
    assert "Timeout (>3.0s) from pytest-timeout" in output, output  # six tests waited on: 6 × 0.5 s
    records = results_in(folder)["items"]
    assert len(records) == 6
    cut = [record for record in records if record["error"] and "was cut short" in record["error"]]
    assert cut, "the tests the cut left say so"
    assert all(
        record["score"] is None and record["error_kind"] == "interrupted" and not record["passed"]
        for record in cut
    )
    assert len(planned(folder)) == 1, "driven once: a re-drive would ask the agent again from the start"
    result.stdout.fnmatch_lines(
        ["*conversation ltm was cut short (Timeout (>3.0s) from pytest-timeout.)*--mb-resume*"]
    )


# -- selection: --lf, --ff, --nf, --sw, --deselect -------------------------------------------


def test_last_failed_runs_exactly_the_failed_items_in_one_conversation(project: Project) -> None:
    _, first = project.run("-p", "no:randomly")
    failed = sorted(key for key, (_, passed) in scores(first).items() if not passed)
    assert failed and len(failed) < 6, "the recall baseline fails some of these and passes others"
    result, again = project.run("-p", "no:randomly", "--lf")
    result.stdout.fnmatch_lines([f"run-last-failure: rerun previous {len(failed)} failure*"])
    assert sorted(scores(again)) == failed
    assert [sorted(tests) for tests in planned(again)] == [failed], "planned from the selected tests"


def test_failed_first_and_new_first_reorder_without_changing_a_score(
    project: Project, plain: dict[str, Any]
) -> None:
    project.run("-p", "no:randomly")  # fills the cache
    for option in ("--ff", "--nf"):
        result, folder = project.run("-p", "no:randomly", option)
        assert scores(folder) == plain, (option, result.stdout.str())


def test_stepwise_stops_at_the_first_failure_and_goes_on_from_it(
    project: Project, plain: dict[str, Any]
) -> None:
    order = list(plain)  # the plan's order, which is pytest's without shuffling
    first_failure = next(key for key in order if not plain[key][1])
    result, first = project.run("-p", "no:randomly", "--sw")
    assert result.parseoutcomes()["failed"] == 1 and first_failure in result.stdout.str()
    assert scores(first) == plain, "what the conversation finished is kept"
    result, second = project.run("-p", "no:randomly", "--sw")
    result.stdout.fnmatch_lines(["stepwise: skipping * already passed items*"])
    resumed = list(scores(second))
    assert resumed[0] == first_failure
    assert planned(second)[0][0] == first_failure, "the conversation is planned from the selected tests"


def test_deselect_leaves_the_item_out_of_the_conversation(project: Project) -> None:
    _, folder = project.run("-p", "no:randomly", "-p", "no:cacheprovider", "--deselect", "ltm::colours[rep2]")
    assert "ltm::colours[rep2]" not in scores(folder)
    assert "ltm::colours[rep2]" not in planned(folder)[0]
    assert len(planned(folder)[0]) == 5


# -- plugins that must not change a score -----------------------------------------------------


def test_rerunning_failures_rereports_without_asking_or_paying_again(
    project: Project, plain: dict[str, Any]
) -> None:
    pytest.importorskip("pytest_rerunfailures")
    _, once = project.run("-p", "no:randomly", "-p", "no:cacheprovider")
    result, rerun = project.run("-p", "no:randomly", "-p", "no:cacheprovider", "--reruns", "1")
    assert "rerun" in result.stdout.str()
    assert scores(rerun) == plain
    totals, rerun_totals = results_in(once)["totals"], results_in(rerun)["totals"]
    for name in ("agent_calls", "agent_tokens_in", "agent_tokens_out", "cost_usd"):
        assert rerun_totals[name] == totals[name], name


@pytest.mark.parametrize("seed", ["1", "2"])
def test_shuffled_order_gives_the_same_scores(project: Project, plain: dict[str, Any], seed: str) -> None:
    pytest.importorskip("pytest_randomly")
    result, folder = project.run("-p", "randomly", "-p", "no:cacheprovider", f"--randomly-seed={seed}")
    assert f"--randomly-seed={seed}" in result.stdout.str()
    assert scores(folder) == plain


def test_coverage_measurement_gives_the_same_scores(project: Project, plain: dict[str, Any]) -> None:
    pytest.importorskip("pytest_cov")
    result, folder = project.run(
        *QUIET,
        "--cov=pytest_memorybench.pytest_integration.items",
        "--cov-report=term",
    )
    assert "items.py" in result.stdout.str(), "coverage was measured"
    assert scores(folder) == plain


@pytest.mark.parametrize("dist", ["worksteal", "loadscope"])
def test_xdist_distribution_modes_keep_each_conversation_on_one_worker(project: Project, dist: str) -> None:
    _, serial = project.run("-p", "no:randomly", "-p", "no:cacheprovider", "--mb-conversations=2")
    result, spread = project.run(
        "-p", "no:randomly", "-p", "no:cacheprovider", "--mb-conversations=2", "-n", "2", "--dist", dist
    )
    assert scores(spread) == scores(serial), result.stdout.str()
    assert sorted(map(sorted, planned(spread))) == sorted(map(sorted, planned(serial))), (
        "each conversation driven once"
    )


# -- pytest-asyncio ---------------------------------------------------------------------------

ASYNC_AGENT_FIXTURE = """
import asyncio
import pytest
{decorator_import}
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent

class LoopAwareRecall(ExtractiveAgent):
    '''Made on pytest-asyncio's session loop, answering on the benchmark's.'''
    def __init__(self):
        super().__init__()
        self.lock = asyncio.Lock()
    async def reply(self, message):
        async with self.lock:
            return await super().reply(message)

{decorator}(scope="session")
async def memorybench_agent():
    yield LoopAwareRecall()
"""


@pytest.mark.parametrize("mode", ["strict", "auto"])
def test_a_session_scoped_async_agent_fixture_under_pytest_asyncio(
    project: Project, plain: dict[str, Any], mode: str
) -> None:
    decorator = (
        ("import pytest_asyncio", "@pytest_asyncio.fixture") if mode == "strict" else ("", "@pytest.fixture")
    )
    project.pytester.makeconftest(
        ASYNC_AGENT_FIXTURE.format(decorator_import=decorator[0], decorator=decorator[1])
    )
    options = ("-p", "no:randomly", "-p", "no:cacheprovider", f"--asyncio-mode={mode}")
    loop_scope = ("-o", "asyncio_default_fixture_loop_scope=session")
    result, folder = project.run(*options, *loop_scope, agent="--agent=recall")
    assert scores(folder) == plain, result.stdout.str()


# -- pytest-asyncio's warning -----------------------------------------------------------------


def test_a_project_without_asyncio_settings_sees_no_asyncio_warning(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")  # the project's own settings: nothing about asyncio
    pytester.makepyfile("def test_own(): pass")
    own = pytester.runpytest_subprocess("-p", "no:randomly")
    if "is unset" not in own.stdout.str() + own.stderr.str():
        pytest.skip("this pytest and pytest-asyncio do not show the unset-loop-scope warning")
    benchmark = pytester.runpytest_subprocess(
        "--memorybench", "--agent=recall", "--span=isolated", "-k", "colours"
    )
    assert benchmark.ret == 0
    assert "is unset" not in benchmark.stdout.str() + benchmark.stderr.str()
