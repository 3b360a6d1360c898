"""Starting and finishing a benchmark session: the logic behind the plugin's hooks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench import fixtures
from pytest_memorybench.agents.spec import check_agent_spec
from pytest_memorybench.judges.spec import DEFAULT_CACHE, check_judge_spec
from pytest_memorybench.errors import UsageError
from pytest_memorybench.keys import RUN_KEY
from pytest_memorybench.reports.results import build_results, conversation_record, write_results
from pytest_memorybench.reports.progress import TerminalProgress
from pytest_memorybench.reports.summary import summary_lines
from pytest_memorybench.run import BenchmarkRun, new_run_id
from pytest_memorybench.settings import Settings

RESULTS_KEY = pytest.StashKey[tuple[dict[str, Any], Path]]()
WORKER_RUN_ID = "memorybench_run_id"
WORKER_OUTPUT = "memorybench_output"
WORKER_CONVERSATIONS = "memorybench_conversations"
WORKER_JUDGE = "memorybench_judge"


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def start(config: pytest.Config) -> None:
    """Read the options, plan the run, and check the agent, before anything is collected."""
    paths_given = config.args_source == pytest.Config.ArgsSource.ARGS
    settings = Settings.from_options(config.option, paths_given=paths_given)
    if is_worker(config):
        workerinput: dict[str, Any] = config.workerinput  # type: ignore[attr-defined]
        run = BenchmarkRun(
            settings,
            workerinput[WORKER_RUN_ID],
            Path(workerinput[WORKER_OUTPUT]),
            worker=workerinput.get("workerid"),
            judge_cache=config.rootpath / DEFAULT_CACHE,
        )
    else:
        run_id = new_run_id()
        output = settings.output or config.rootpath / ".memorybench" / "runs" / run_id
        run = BenchmarkRun(settings, run_id, output.resolve(), judge_cache=config.rootpath / DEFAULT_CACHE)
        check_judge_spec(settings.judge)
        run.judge  # noqa: B018 - building it now turns a missing API key into a usage error
        if settings.agent is not None:
            check_agent_spec(settings.agent)
        elif not run.replay_only and not _user_defines_agent_fixture(config):
            raise UsageError(
                "--memorybench needs an agent: pass --agent=SPEC (e.g. --agent=recall, "
                "--agent=openai:gpt-4o-mini) or define a memorybench_agent fixture in conftest.py"
            )
        run.write_plan()
    if not is_worker(config):
        run.progress = TerminalProgress(config, total_tests=len(run.tests))
        if getattr(config.option, "dist", "no") == "load":
            # `-n` alone means xdist's "load", which ignores xdist_group: two workers could each
            # drive the same conversation.  Keep every conversation on one worker.
            config.option.dist = "loadgroup"
    if not paths_given:
        config.args = []  # collect the benchmark only
    config.stash[RUN_KEY] = run


def _user_defines_agent_fixture(config: pytest.Config) -> bool:
    return any(
        getattr(plugin, "memorybench_agent", fixtures.memorybench_agent) is not fixtures.memorybench_agent
        for plugin in config.pluginmanager.get_plugins()
    )


def worker_input(config: pytest.Config) -> dict[str, str]:
    run = config.stash[RUN_KEY]
    return {WORKER_RUN_ID: run.run_id, WORKER_OUTPUT: str(run.output)}


def junit_properties(record: dict[str, Any]) -> list[tuple[str, object]]:
    properties: list[tuple[str, object]] = [
        (name, record[name]) for name in ("score", "threshold", "scenario", "span_tokens")
    ]
    return properties + [("skills", " ".join(record["skills"]))]


def conversation_records(config: pytest.Config) -> list[dict[str, Any]]:
    """This process's conversations, as results.json lists them."""
    return [conversation_record(stats) for stats in config.stash[RUN_KEY].conversations.values()]


def finish(
    config: pytest.Config,
    records: list[dict[str, Any]],
    conversations: list[dict[str, Any]],
    judge_stats: list[dict[str, Any]],
) -> None:
    """Write results.json on the controller (or the only process) once every report is in.

    A worker hands its conversations and judge statistics to the controller instead
    (`workeroutput`), which adds them to its own.
    """
    run = config.stash[RUN_KEY]
    if is_worker(config):
        config.workeroutput[WORKER_CONVERSATIONS] = conversation_records(config)  # type: ignore[attr-defined]
        config.workeroutput[WORKER_JUDGE] = run.judge_stats()  # type: ignore[attr-defined]
        return
    if not records:
        return
    if run.replay_only:
        agent = f"replay of {run.settings.replay}"
    else:
        agent = run.settings.agent.display if run.settings.agent else "fixture:memorybench_agent"
    results = build_results(run, records, conversations + conversation_records(config), judge_stats + [run.judge_stats()], agent)
    path = run.output / "results.json"
    write_results(path, results)
    config.stash[RESULTS_KEY] = (results, path)


def summary(config: pytest.Config) -> list[str]:
    stored = config.stash.get(RESULTS_KEY, None)
    if stored is None:
        return []
    results, path = stored
    return summary_lines(results, _relative(path, config.invocation_params.dir))


def header(config: pytest.Config) -> str:
    run = config.stash[RUN_KEY]
    settings = run.settings
    if run.replay_only:
        agent = f"none (replaying {settings.replay})"
    else:
        agent = settings.agent.display if settings.agent else "memorybench_agent fixture"
    spans = ", ".join(f"{name}={span}" for name, span in run.spans.items()) or "- (no suite: your own tests only)"
    resumed = " (resumed)" if settings.resume else ""
    return (
        f"memorybench: agent {agent} | judge {settings.judge.display} | span {spans} | seed {settings.seed} "
        f"| profile {settings.profile} "
        f"| run folder {_relative(run.output, config.invocation_params.dir)}{resumed}"
    )


def _relative(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)
