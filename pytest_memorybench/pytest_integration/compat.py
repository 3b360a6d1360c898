"""Living with the pytest plugins a user's project already has.

A benchmark run happens inside the user's pytest, next to whatever plugins their project
installs; this module keeps those plugins' behaviour on our items what the user meant by it.
"""

from __future__ import annotations

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
