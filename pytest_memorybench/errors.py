"""Errors that reach the user as one line.

`UsageError` is raised for bad command-line input, suite files, agent specs or data paths: pytest
prints it as a single `ERROR:` line and exits with code 4.  `AgentError` is raised when the agent
under test fails a turn (exception, timeout, retries exhausted); the item that needed the turn
fails with that line, and everything recorded before it is kept.
"""

from __future__ import annotations

import pytest


class UsageError(pytest.UsageError):
    """Bad input from the user; the message says what is wrong and what to do."""


class AgentError(Exception):
    """The agent under test could not produce a reply."""


def describe_exception(exc: BaseException) -> str:
    """`Type: message` on one line, for exceptions raised by user code we do not control."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
