"""pytest-memorybench: long-term-memory benchmarks for conversational agents, as pytest suites.

The plugin module (`pytest_memorybench.plugin`) is loaded by pytest for every run but does nothing
unless `--memorybench` is given; this package's public names are what users import in their own
tests and agents.
"""

import pytest

# The asserts are meant for users' tests: let pytest rewrite them like test code.
pytest.register_assert_rewrite("pytest_memorybench.scoring.asserts")

from pytest_memorybench.core.lazy import lazy_exports  # noqa: E402
from pytest_memorybench.core.records import Message, Score, TestDefinition  # noqa: E402

__all__ = [
    "Agent",
    "Message",
    "Score",
    "TestDefinition",
    "__version__",
    "assert_choice",
    "assert_forgotten",
    "assert_isolated",
    "assert_items_f1",
    "assert_kendall_tau",
    "assert_not_returned",
    "assert_not_stale",
    "assert_nuggets",
    "assert_regex",
    "assert_rouge_l",
]
_ASSERTS = [name for name in __all__ if name.startswith("assert_")]


# The asserts pull in scipy and rouge-score, the agent protocol the token counter: import them
# on first use, so that loading the plugin (which pytest does in every run) stays cheap.
__getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(_ASSERTS, "pytest_memorybench.scoring.asserts"),
        "Agent": "pytest_memorybench.agents.agent_protocol",
    },
)


__version__ = "0.1.0"
