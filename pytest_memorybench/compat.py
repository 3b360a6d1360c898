"""Living with the pytest plugins a user's project already has.

A benchmark run happens inside the user's pytest, next to whatever plugins their project
installs; this module keeps those plugins' behaviour on our items what the user meant by it.
"""

from __future__ import annotations

import pytest

_ASYNCIO_SCOPE_UNSET = 'The configuration option "asyncio_default_fixture_loop_scope" is unset'


def quiet_asyncio_scope_warning(config: pytest.Config) -> None:
    """pytest-asyncio warns on every run of a project that has not set its fixture loop scope.

    It is installed as our dependency, so a project that never uses it sees the warning because
    of us, on a run with no async fixture of its own.  Filtered for the benchmark's run only, as
    the project's own `filterwarnings` would (its `-W` options still win); it must be added
    before pytest configures its plugins, which is when pytest-asyncio warns.
    """
    config.addinivalue_line("filterwarnings", f"ignore:{_ASYNCIO_SCOPE_UNSET}:pytest.PytestDeprecationWarning")
