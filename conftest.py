"""Repository-level conftest: pytest's `pytester` fixture, and how the project's own tests run.

`pytest` alone runs the fast tests, on every core (pytest-xdist's `-n auto`, unless `-n` is
given), in a few minutes; each slow group is a marker the default run leaves out, and its header
says so. Any `-m` on the command line decides instead (`-m slow` is every group, `-m real_model`
one), and naming a test file runs its slow tests too. A marker moves a test to another run; CI
(`.ci/run`) runs them all. A benchmark run started here (`pytest --memorybench ...`) is left as a
user's would be: one process, nothing deselected.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

pytest_plugins = [
    "pytester",
    "tests.support.llm_server",
    "tests.support.local_model",
    "tests.support.letta_service",
]

if sys.dont_write_bytecode:
    # Hundreds of tests start pytest in a subprocess, and pytest rewrites the asserts of every
    # plugin's package it imports (Faker's locales among them) unless it may cache the result:
    # about 4 s of each such run.  Where bytecode is not to be written beside the sources
    # (PYTHONDONTWRITEBYTECODE), it goes to a folder of its own instead, for this run and the
    # processes it starts.
    _PYCACHE = str(Path(tempfile.gettempdir(), "pytest-memorybench-pycache"))
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = _PYCACHE
    sys.dont_write_bytecode = False
    sys.pycache_prefix = _PYCACHE

SLOW_GROUPS = {
    "real_model": (
        "talks to SmolLM2 served by llama-cpp-python (needs the local-llm extra; skipped without it)"
    ),
    "browser": "renders report.html in headless Chromium (skipped without it)",
    "compat": "the plugin beside other pytest plugins, and on the oldest pytest we support",
    "fuzz": "long property-based fuzzing of every reader of users' files",
    "e2e": (
        "whole runs in subprocesses or on xdist workers, and the long sweeps (every published folder,"
        " every history size): killed and resumed, sharded CI workflows, failure drills"
    ),
    "docs": "every command the documentation shows, run as written",
}


def pytest_configure(config: pytest.Config) -> None:
    for name, description in SLOW_GROUPS.items():
        config.addinivalue_line("markers", f"{name}: slow group: {description}")
    config.addinivalue_line("markers", "slow: any slow group (added to every test of one)")
    config.addinivalue_line(
        "markers",
        "loaded_first(*modules): imported before the test's fixtures, where installed (tests/conftest.py)",
    )


def _benchmark(config: pytest.Config) -> bool:
    return any(config.getoption(name, False) for name in ("memorybench", "mb_estimate", "mb_judge_check"))


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads -n
def pytest_cmdline_main(config: pytest.Config) -> None:
    if getattr(config, "workerinput", None) is not None:
        return
    if config.pluginmanager.hasplugin("xdist") and config.option.numprocesses is None:
        if not _benchmark(config) and not config.option.collectonly:
            config.option.numprocesses = "auto"
            if config.option.dist == "no":
                config.option.dist = "loadgroup"  # the real-model modules keep to one worker (ONE_WORKER)


# Modules that start a SmolLM2 server of their own, which takes every core: one worker runs them,
# one after the other (two at once would each crawl).  xdist's `xdist_group` mark would say so, but
# from pytest 9.2 it silently stops grouping (pytest-xdist #1386), so the scheduler groups them by path.
# The scenario contract's module fixtures generate every built-in suite three times, twice in
# processes of their own: one worker, so that it is done once.  The check of every product's SDK
# imports each SDK (Vertex AI's alone takes seconds): one worker, so that each is imported once.
ONE_WORKER = {
    "tests/test_real_model.py": "real_model",
    "tests/test_real_model_memory.py": "real_model",
    "tests/scenarios/test_scenario_contract.py": "contract",
    "tests/agents/test_sdk_surface.py": "sdks",
    "tests/agents/test_stores_vertex.py": "sdks",
    # its module fixture runs LoCoMo's whole file twice (about 100 s): once, on one worker
    "tests/reports/test_browser_compare.py": "browser_compare",
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    if config.option.dist != "loadgroup" or _benchmark(config):
        return None  # a benchmark run started here is scheduled by the plugin, as a user's would be
    from xdist.scheduler import LoadGroupScheduling

    class ModuleGroups(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return ONE_WORKER.get(nodeid.split("::")[0]) or super()._split_scope(nodeid)

    return ModuleGroups(config, log)


def _chooses_itself(config: pytest.Config) -> bool:
    """A `-m`, or a test file named on the command line: then nothing is left out for being slow."""
    if config.getoption("markexpr") or _benchmark(config):
        return True
    whole = {config.rootpath, config.rootpath / "tests"}
    return any(
        (config.invocation_params.dir / arg.split("::")[0]).resolve() not in whole for arg in config.args
    )


def pytest_report_header(config: pytest.Config) -> str | None:
    if _chooses_itself(config):
        return None
    return (
        f"slow groups left out: {', '.join(SLOW_GROUPS)} (`pytest -m slow` runs them all, "
        "`pytest -m GROUP` one; CI runs them)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if any(item.get_closest_marker(group) for group in SLOW_GROUPS):
            item.add_marker("slow")
    if _chooses_itself(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
