"""The pytest plugins a user's project already has, on a benchmark run."""

from __future__ import annotations

import pytest

import pytest_memorybench.agents.recall  # noqa: F401  (numpy must load outside pytester's inner runs)

BENCHMARK = ("--memorybench", "--agent=recall", "--span=isolated", "-k", "colours", "-p", "no:randomly")


def test_a_project_without_asyncio_settings_sees_no_asyncio_warning(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")  # the project's own settings: nothing about asyncio
    pytester.makepyfile("def test_own(): pass")
    plain = pytester.runpytest_subprocess("-p", "no:randomly")
    if "is unset" not in plain.stdout.str() + plain.stderr.str():
        pytest.skip("this pytest-asyncio does not warn about its unset fixture loop scope")
    benchmark = pytester.runpytest_subprocess(*BENCHMARK)
    assert benchmark.ret == 0
    assert "is unset" not in benchmark.stdout.str() + benchmark.stderr.str()
