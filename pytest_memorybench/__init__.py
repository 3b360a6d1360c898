"""pytest-memorybench: long-term-memory benchmarks for conversational agents, as pytest suites.

The plugin module (`pytest_memorybench.plugin`) is loaded by pytest for every run but does nothing
unless `--memorybench` is given; this package's public names are what users import in their own
tests and agents.
"""

from pytest_memorybench.records import Message, Score, TestDefinition

__version__ = "0.1.0"

__all__ = ["Message", "Score", "TestDefinition", "__version__"]
