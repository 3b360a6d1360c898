"""Starting a benchmark session: the options read, the run planned, its judge and agent checked and
its folder claimed, before anything is collected (an xdist worker joins the controller's run)."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_memorybench.agents.supply import Source
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.judges.spec import DEFAULT_CACHE, check_judge_spec
from pytest_memorybench.pytest_integration import fixtures
from pytest_memorybench.pytest_integration.gating import check_exit_mode
from pytest_memorybench.pytest_integration.keys import PROGRESS_KEY, RUN_KEY
from pytest_memorybench.reports.progress import TerminalProgress
from pytest_memorybench.runner.context import new_run_id, open_run
from pytest_memorybench.runner.run import BenchmarkRun
from pytest_memorybench.runner.settings import Settings

if TYPE_CHECKING:
    pass

WORKER_RUN_ID = "memorybench_run_id"
WORKER_OUTPUT = "memorybench_output"
WORKER_CONVERSATIONS = "memorybench_conversations"
WORKER_JUDGE = "memorybench_judge"
WORKER_CONCURRENCY = "memorybench_concurrency"
WORKER_LOADGROUP = "memorybench_loadgroup"


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker (the controller writes the results)."""
    return hasattr(config, "workerinput")


def start(config: pytest.Config) -> None:
    """Read the options, plan the run, and check the agent, before anything is collected."""
    paths_given = config.args_source == pytest.Config.ArgsSource.ARGS
    settings = Settings.from_options(config.option, paths_given=paths_given)
    if config.getoption("mb_export", None):
        from pytest_memorybench.reports.exports import export_formats

        export_formats(config.getoption("mb_export"))  # a wrong name stops the run before it starts
    check_exit_mode(config, gate_asked=settings.gate.active)
    if is_worker(config):
        run = _worker_run(config, settings)
    else:
        run = _controller_run(config, settings)
        progress = TerminalProgress(
            config,
            total_tests=run.context.selected_count,
            in_flight=lambda: run.pool.in_flight,
            levels=run.providers.levels,
        )
        run.instruments.listeners.subscribe(progress)
        config.stash[PROGRESS_KEY] = progress
        if getattr(config.option, "dist", "no") in ("load", "worksteal"):
            # `-n` alone means xdist's "load", which ignores xdist_group, and "worksteal" moves
            # items between workers: two workers could each drive the same conversation.  Keep
            # every conversation on one worker ("loadscope" and "loadfile" already do: a suite
            # is one scope).
            config.option.dist = "loadgroup"
    if not paths_given:
        config.args = []  # collect the benchmark only
    config.stash[RUN_KEY] = run


def _worker_run(config: pytest.Config, settings: Settings) -> BenchmarkRun:
    """An xdist worker's part of the run the controller planned, in the controller's folder."""
    workerinput: dict[str, Any] = config.workerinput  # type: ignore[attr-defined]
    if workerinput.get(WORKER_LOADGROUP):
        # A worker parses the command line itself, so it still believes `-n` means "load" and
        # would not tag its items with their group: the controller's loadgroup would then see
        # one group per item and hand a conversation to several workers.
        config.option.loadgroup = True
    context = open_run(
        settings,
        workerinput[WORKER_RUN_ID],
        Path(workerinput[WORKER_OUTPUT]),
        worker=workerinput.get("workerid"),
        judge_cache=project_root(config) / DEFAULT_CACHE,
    )
    return BenchmarkRun(context, agent_fixtures(config))


def _controller_run(config: pytest.Config, settings: Settings) -> BenchmarkRun:
    """The run, its judge and agent checked and its folder claimed and planned (an estimate's aside)."""
    run_id = new_run_id()
    if settings.estimate is not None:  # an estimate leaves no run folder behind
        settings = dataclasses.replace(
            settings, output=Path(tempfile.mkdtemp(prefix="memorybench-estimate-"))
        )
    output = settings.output or project_root(config) / ".memorybench" / "runs" / run_id
    run = BenchmarkRun(
        open_run(settings, run_id, output.resolve(), judge_cache=project_root(config) / DEFAULT_CACHE),
        agent_fixtures(config),
    )
    try:
        _check_and_claim(config, run)
    except BaseException:
        run.close()  # its loop and provider pool end with the session that could not start
        if settings.estimate is not None:
            shutil.rmtree(output, ignore_errors=True)
        raise
    return run


def _check_and_claim(config: pytest.Config, run: BenchmarkRun) -> None:
    """The judge and the agent checked, then (unless only estimating) the run folder claimed and planned."""
    settings = run.context.settings
    jurors = settings.panel.jurors or (settings.judge,)
    if settings.estimate is None:
        for spec in jurors:
            check_judge_spec(spec)
    if any(spec.text != "local" for spec in jurors):  # the plain local judge cannot fail to build
        run.instruments.judge  # noqa: B018 - building it now turns a missing API key into a usage error
    if settings.estimate is None or settings.agent is None or not settings.agent.calls_a_model:
        run.agents.check()  # an estimate asks for no key or server; an agent that cannot load is an error
    if settings.estimate is not None:
        return
    if run.agents.source is Source.NONE and not run.context.agentless:
        raise usage_error(
            "--memorybench needs an agent: pass --agent=SPEC (e.g. --agent=recall, "
            "--agent=openai:gpt-4o-mini) or define a memorybench_agent fixture in conftest.py"
        )
    run.claim_folder()
    run.context.write_plan()


def project_root(config: pytest.Config) -> Path:
    """Where `.memorybench/` goes: pytest's rootdir, unless it came from one of our options' values.

    pytest settles its rootdir before plugins add their options, so the value of
    `--mb-rescore PATH` (written with a space) counts as a path to test, and the rootdir can become
    a published data folder; our run folders and judge cache do not belong there.
    """
    root = config.rootpath
    values = [getattr(config.option, name, None) for name in _PATH_OPTIONS]
    given = [Path(value).resolve() for value in values if isinstance(value, str)]
    if any(root == path or path in root.parents for path in given):
        return config.invocation_params.dir
    return root


_PATH_OPTIONS = ("mb_rescore", "mb_resume", "mb_replay", "mb_definitions", "mb_baseline", "mb_output")


def agent_fixtures(config: pytest.Config) -> list[str]:
    """The agent fixtures a conftest.py (or another plugin) defines over ours: with `--agent`, they
    decide where the run's conversations get their agents (`agents/supply.py`)."""
    names = [source.value for source in (Source.AGENT_FIXTURE, Source.FACTORY_FIXTURE)]
    plugins = config.pluginmanager.get_plugins()
    return [name for name in names if any(_defines(plugin, name) for plugin in plugins)]


def _defines(plugin: object, name: str) -> bool:
    ours = getattr(fixtures, name)
    return getattr(plugin, name, ours) is not ours


def worker_input(config: pytest.Config) -> dict[str, Any]:
    """What the controller hands each xdist worker: the run id, its folder, and how items are grouped."""
    run = config.stash[RUN_KEY]
    loadgroup = getattr(config.option, "dist", "no") == "loadgroup"
    return {
        WORKER_RUN_ID: run.context.run_id,
        WORKER_OUTPUT: str(run.context.output),
        WORKER_LOADGROUP: loadgroup,
    }
