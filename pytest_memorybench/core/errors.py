"""Errors that reach the user as one line.

`usage_error` makes the error raised for bad command-line input, suite files, agent specs or data paths:
pytest prints it as a single `ERROR:` line and exits with code 4.  `AgentError` is raised when the agent
under test fails a turn (exception, timeout, retries exhausted); the item that needed the turn
fails with that line, and everything recorded before it is kept.
"""

from __future__ import annotations

import re

import pytest

# Bad input from the user: pytest prints it as one `ERROR:` line and exits with code 4.
UsageError = pytest.UsageError


def usage_error(message: object) -> pytest.UsageError:
    """The error for bad input, its message on one line (a message that quotes the input, a key
    with a newline in it, stays one line); the message says what is wrong and what to do."""
    return pytest.UsageError(" ".join(str(message).splitlines()))


class AgentError(Exception):
    """The agent under test could not produce a reply.

    `kind` says whose fault it is, for the reports: "agent" (the user's agent raised, hung or
    returned nonsense) or "provider" (a model API failed a call after its retries).
    """

    kind = "agent"


class ProviderError(AgentError):
    """A model provider failed a call after every retry: an outage, not a memory failure."""

    kind = "provider"


class ProviderRefused(ProviderError):
    """A provider refused a request in a way no retry mends (a rejected key, an unknown model, a
    malformed request).  Every later call would be refused too: a run that meets one stops
    before more is spent (`RunStopped`), where a caller of the adapter gets a plain error."""


def describe_exception(exc: BaseException) -> str:
    """`Type: message` on one line, for exceptions raised by user code we do not control."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class RunStopped(KeyboardInterrupt):
    """A reason the whole run must stop now, raised where it is found (a signal handler, a write).

    A KeyboardInterrupt, so that nothing between here and pytest mistakes it for an error of one
    item: pytest ends the session as it does on Ctrl-C, and what finished is written.  The message
    is the reason, shown in the line that says how to resume.
    """


class Terminated(RunStopped):
    """SIGTERM, which is how CI cancels a job."""


class RunFolderUnwritable(RunStopped):
    """The disk is full, or the folder became read-only: no more can be logged, so nothing more is asked."""


def stop_on_refusal(exc: AgentError) -> None:
    """A provider's refusal ends the whole run, not one conversation: every other call would be refused
    too."""
    if isinstance(exc, ProviderRefused):
        raise RunStopped(f"{exc} (a refusal no retry mends)") from None


_CREDENTIALS = re.compile(r"(https?://)[^/@\s]+@")


def mask_credentials(text: str) -> str:
    """`https://user:secret@host` → `https://***@host`, for anything shown or logged."""
    return _CREDENTIALS.sub(r"\1***@", text)
