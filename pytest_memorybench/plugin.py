"""The pytest entry point of pytest-memorybench.

pytest loads this module in every run, so it imports nothing heavy: it declares `--memorybench`,
registers the parts of the plugin (each declares its own options, as pytest's own plugins do) and
the markers, and under `--memorybench` activates the benchmark: `hooks.activate` plans the run and
registers the hooks of an active session.  Without the flag a normal pytest run is untouched.
"""

from __future__ import annotations

import pytest

from pytest_memorybench.pytest_integration.keys import option_group
from pytest_memorybench.pytest_integration.markers import BENCHMARK_MARKER, SKILL_MARKERS

# The parts of the plugin, in the order `pytest --help` lists their options.
pytest_plugins = [
    "pytest_memorybench.pytest_integration.agent_options",
    "pytest_memorybench.pytest_integration.judge_options",
    "pytest_memorybench.pytest_integration.run_options",
    "pytest_memorybench.pytest_integration.gating",
    "pytest_memorybench.pytest_integration.comparing",
    "pytest_memorybench.pytest_integration.verifying",
    "pytest_memorybench.pytest_integration.fixtures",
]


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """The hooks a benchmark session calls, which its outputs and yours implement (`hookspecs.py`)."""
    from pytest_memorybench.pytest_integration import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--memorybench`, the flag that turns the benchmark on; the parts of the plugin add theirs."""
    option_group(parser).addoption(
        "--memorybench", action="store_true", help="run the memory benchmark; with no paths, only it"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> None:
    """Before any plugin is configured: a benchmark run sets aside the test plugins it has no use for."""
    options = early_config.known_args_namespace
    if getattr(options, "memorybench", False) or getattr(options, "mb_estimate", False):
        from pytest_memorybench.pytest_integration.compat import set_aside_test_plugins

        set_aside_test_plugins(early_config, args)


def pytest_cmdline_main(config: pytest.Config) -> None:
    """Before pytest configures its plugins: quiet pytest-asyncio's loop-scope warning for a benchmark run."""
    if config.getoption("memorybench") or config.getoption("mb_estimate"):
        from pytest_memorybench.pytest_integration.compat import quiet_asyncio_scope_warning

        quiet_asyncio_scope_warning(config)  # before pytest configures its plugins


def pytest_configure(config: pytest.Config) -> None:
    """The markers, and under `--memorybench` (or `--mb-estimate`) the benchmark session."""
    for name, description in (BENCHMARK_MARKER, *SKILL_MARKERS.items()):
        config.addinivalue_line("markers", f"{name}: {description}")
    if config.getoption("memorybench") or config.getoption("mb_estimate"):
        from pytest_memorybench.pytest_integration.hooks import activate

        activate(config)
