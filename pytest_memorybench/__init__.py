"""pytest-memorybench: long-term-memory benchmarks for conversational agents, as pytest suites.

The plugin module (`pytest_memorybench.plugin`) is loaded by pytest for every run but does nothing
unless `--memorybench` is given; this package's public names are what users import in their own
tests and agents.
"""

import pytest

# The asserts are meant for users' tests: let pytest rewrite them like test code.
pytest.register_assert_rewrite("pytest_memorybench.scoring.asserts")

from pytest_memorybench.core.records import Message, Score, TestDefinition  # noqa: E402

_ASSERTS = (
    "assert_choice",
    "assert_items_f1",
    "assert_kendall_tau",
    "assert_nuggets",
    "assert_regex",
    "assert_rouge_l",
)


def __getattr__(name: str) -> object:
    # The asserts pull in scipy and rouge-score, the agent protocol the token counter: import them
    # on first use, so that loading the plugin (which pytest does in every run) stays cheap.
    if name in _ASSERTS:
        from pytest_memorybench.scoring import asserts

        return getattr(asserts, name)
    if name == "Agent":
        from pytest_memorybench.agents.protocol import Agent

        return Agent
    raise AttributeError(f"module 'pytest_memorybench' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = [
    "Agent",
    "Message",
    "Score",
    "TestDefinition",
    "__version__",
    "assert_choice",
    "assert_items_f1",
    "assert_kendall_tau",
    "assert_nuggets",
    "assert_regex",
    "assert_rouge_l",
]
