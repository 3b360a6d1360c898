"""Shared test set-up."""

from __future__ import annotations

import pytest


@pytest.fixture
def pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """Inner runs get an ini file setting pytest-asyncio's loop scope, as ours does: without one,
    pytest-asyncio warns in every inner run, and pytest 9.2 shows those warnings in ours.  They
    also leave out hypothesis's plugin (our fuzz tests need hypothesis, the inner runs do not): it
    imports hypothesis in every session's summary, 0.6 s for each inner run in a subprocess."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\naddopts = -p no:hypothesispytest\n")
    return pytester
