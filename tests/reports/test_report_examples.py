"""The CI and conftest examples: their commands must be ones the plugin accepts, and they must run."""

from __future__ import annotations

import shlex
import shutil

import pytest
import yaml

from pytest_memorybench.runner.settings import Settings
from tests.support.paths import EXAMPLES


def test_the_github_workflow_runs_a_command_the_plugin_accepts(pytester: pytest.Pytester) -> None:
    workflow = yaml.safe_load((EXAMPLES / "github-actions.yml").read_text())
    steps = {step.get("name"): step for step in workflow["jobs"]["memorybench"]["steps"]}
    command = shlex.split(
        steps["Benchmark"]["run"].replace('"$AGENT"', "oracle").replace('"$JUDGE"', "local")
    )
    assert command[:2] == ["pytest", "--memorybench"]
    baseline = next(arg.split("=", 1)[1] for arg in command if arg.startswith("--mb-baseline="))
    (pytester.path / baseline).parent.mkdir(parents=True)
    (pytester.path / baseline).write_text(
        '{"schema": "memorybench.results/1", "totals": {"score": 1, "max": 1}}'
    )
    config = pytester.parseconfig(*command[1:])  # unknown options or bad types fail here
    settings = Settings.from_options(config.option)  # and bad values (prices, gate, cost) here
    assert settings.gate.baseline is not None and settings.gate.max_drop == 0.05 and settings.max_cost == 5
    assert config.getoption("mb_exit") == "gate", "the gate's verdict is the job's exit, not the items"
    assert settings.prices and config.getoption("htmlpath") and config.getoption("xmlpath")
    assert (
        steps["Upload reports"]["with"]["path"] == "memorybench-run/"
        and steps["Upload reports"]["if"] == "always()"
    )


def test_the_example_conftest_agent_serves_the_tests_next_to_it(pytester: pytest.Pytester) -> None:
    folder = pytester.mkdir("examples")
    for name in ("conftest.py", "custom_agent.py", "test_my_agent_memory.py"):
        shutil.copy(EXAMPLES / name, folder / name)
    own = pytester.runpytest("--memorybench", "examples/test_my_agent_memory.py", "-p", "no:cacheprovider")
    own.assert_outcomes(passed=2)
    own.stdout.fnmatch_lines(["memorybench: agent memorybench_agent fixture *"])
    floor = pytester.runpytest(
        "--memorybench", "--agent=null", "examples/test_my_agent_memory.py", "-p", "no:cacheprovider"
    )
    floor.assert_outcomes(failed=2)  # --agent given: the fixture steps aside for the calibration floor
