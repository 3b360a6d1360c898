"""`--mb-verify FOLDER`: check a finished run's folder, calling no agent, instead of a test session.

Its files against its manifest.json, its verdicts re-scored from its logged replies, its means
against its items (`runner/verify.py`); one line says whether it holds.  Exit 0 when it holds, 1
when it does not, 4 for a folder that is no run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from pytest_memorybench.pytest_integration.keys import option_group


def pytest_addoption(parser: pytest.Parser) -> None:
    """The verification's option, in the plugin's group."""
    option_group(parser).addoption(
        "--mb-verify",
        dest="mb_verify",
        metavar="FOLDER",
        help=(
            "check a finished run's folder, calling no agent: its files unchanged (manifest.json), its"
            " verdicts the same when its logged replies are re-scored, its means its items'"
        ),
    )


# The options of the run a verification replays that come from the folder, or are not the run's own.
_CLEARED = (
    "mb_agent", "mb_resume", "mb_replay", "mb_rescore", "mb_merge", "mb_shard", "mb_definitions", "mb_suite",
    "mb_data", "mb_span", "mb_profile", "mb_threshold", "mb_baseline", "mb_max_drop", "mb_max_scenario_drop",
    "mb_min_score", "mb_max_errors", "mb_max_cost", "mb_markdown",
)  # fmt: skip


def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """`--mb-verify`: verify the folder and exit with the verdict, instead of a test session."""
    given = config.getoption("mb_verify")
    if not given:
        return None
    from pytest_memorybench.judges.spec import DEFAULT_CACHE, check_judge_spec
    from pytest_memorybench.pytest_integration.starting import project_root
    from pytest_memorybench.runner.settings import Settings
    from pytest_memorybench.runner.verify import read_run, verify

    recorded = read_run(Path(given).resolve())
    options = {
        **vars(config.option),
        **dict.fromkeys(_CLEARED),
        **recorded.replay_options(),
        "mb_conversations": 1,
        "mb_allow_drift": True,  # what changed since the run is one thing verification reports
        "mb_estimate": False,
    }

    def replay(scratch: Path) -> Settings:
        settings = Settings.from_options(argparse.Namespace(**{**options, "mb_output": str(scratch)}))
        for spec in settings.panel.jurors or (settings.judge,):
            check_judge_spec(spec)
        return settings

    verification = verify(recorded, replay, project_root(config) / DEFAULT_CACHE)
    print(verification.line)
    return pytest.ExitCode.OK if verification.holds else pytest.ExitCode.TESTS_FAILED
