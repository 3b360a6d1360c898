"""Living with the pytest plugins a user's project already has.

A benchmark run happens inside the user's pytest, next to whatever plugins their project
installs; this module keeps those plugins' behaviour on our items what the user meant by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

from pytest_memorybench.pytest_integration.keys import PLANNED_KEY

if TYPE_CHECKING:
    from pytest_memorybench.runner.run import BenchmarkRun

_ASYNCIO_SCOPE_UNSET = 'The configuration option "asyncio_default_fixture_loop_scope" is unset'


def quiet_asyncio_scope_warning(config: pytest.Config) -> None:
    """pytest-asyncio warns on every run of a project that has not set its fixture loop scope.

    It is installed as our dependency, so a project that never uses it sees the warning because
    of us, on a run with no async fixture of its own.  Filtered for the benchmark's run only, as
    the project's own `filterwarnings` would (its `-W` options still win); it must be added
    before pytest configures its plugins, which is when pytest-asyncio warns.
    """
    config.addinivalue_line(
        "filterwarnings", f"ignore:{_ASYNCIO_SCOPE_UNSET}:pytest.PytestDeprecationWarning"
    )


# Plugins a project installs for its own tests (our `test` extra brings them all) that have no part
# in a benchmark run: pytest-benchmark and pytest-randomly each add a line to its header, randomly
# reorders what the plan ordered, and hypothesis looks at every item.  Entry-point name, and the
# prefix of their options: a user who gives one, or `-p NAME`, wants the plugin and keeps it.
TEST_PLUGINS = {"benchmark": "--benchmark-", "randomly": "--randomly-", "hypothesispytest": "--hypothesis-"}


def set_aside_test_plugins(config: pytest.Config, args: Sequence[str]) -> list[str]:
    """Unregister the test plugins a benchmark run has no use for, unless the user asked for them.

    Called before pytest configures any plugin (`pytest_load_initial_conftests`), when the entry
    points are loaded and their options known: blocked now, a plugin's `pytest_configure`, header
    and hooks never run, while its options still parse.  Only a run that collects the benchmark
    alone: with paths, the user's own tests may need them.  Returns the names set aside.
    """
    namespace = config.known_args_namespace
    if getattr(namespace, "file_or_dir", None):
        return []
    asked = {plugin.strip() for plugin in getattr(namespace, "plugins", None) or ()}
    aside = []
    for name, prefix in TEST_PLUGINS.items():
        given = name in asked or any(arg.startswith(prefix) for arg in args)
        if not given and config.pluginmanager.get_plugin(name) is not None:
            config.pluginmanager.set_blocked(name)
            aside.append(name)
    return aside


class TimeoutPerTest:
    """pytest-timeout's limit is per test: an item that drives a conversation gets it per test driven.

    The first item of a conversation to run does the whole conversation's work and the others read
    their outcomes, so a per-item limit would cut the conversation at the first item and charge
    nothing to the rest.  Through pytest-timeout's own `pytest_timeout_set_timer` hook, that item's
    limit becomes the configured one (option, ini, env or marker) times the tests it waits on; the
    others keep the configured limit.  A conversation cut anyway is never driven again: its
    unfinished tests fail saying so (`BenchmarkRun.outcome`).
    """

    def __init__(self, run: BenchmarkRun) -> None:
        self.run = run

    @pytest.hookimpl(tryfirst=True)
    def pytest_timeout_set_timer(self, item: pytest.Item, settings: Any) -> bool | None:
        planned = item.stash.get(PLANNED_KEY, None)
        if planned is None:
            return None  # not a benchmark item
        tests = self.run.tests_waited_on(planned.key)
        if tests == 1:
            return None
        theirs = item.config.pluginmanager.subset_hook_caller(
            "pytest_timeout_set_timer", remove_plugins=[self]
        )
        handled: bool | None = theirs(
            item=item, settings=settings._replace(timeout=round(settings.timeout * tests, 3))
        )
        return handled
