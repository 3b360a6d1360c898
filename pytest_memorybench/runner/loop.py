"""The run's own event loop: every conversation, agent call and judge call of a process runs on it.

pytest calls items synchronously; agents and judges are async.  One long-lived loop (not
`asyncio.run` per call) keeps agents' HTTP clients usable across items.  What makes it delicate
is ending: an interruption (Ctrl-C, SIGTERM, pytest-timeout's signal) can arrive in the middle of
a conversation with tasks in flight (the filler prefetch, forked probes, an HTTP client's own), and
each of them must be ended before the loop closes, or Python prints "Task was destroyed but it is
pending!" and "Event loop is closed" over the user's terminal.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import signal
import threading
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import Any, TypeVar

from pytest_memorybench.core.errors import RunStopped, Terminated, describe_exception

T = TypeVar("T")


class RunLoop:
    """The event loop the run's conversations are driven on, in a thread of its own."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self.interruption: str | None = None  # what last stopped the loop from outside (a signal, a timeout)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine to its end on the run's loop.

        If the caller is itself inside a running loop (an async test), we never nest: the coroutine
        runs on our loop in a helper thread.  If something stops the loop (a signal, a timeout),
        the coroutine is cancelled before the exception goes on: left pending, it would go on
        driving its conversation the next time the loop runs, inside another test.  Ctrl-C or
        SIGTERM end the session, so then every task is cancelled, before any can run again: a task
        that resumed would find the interruption in what it awaited and raise it out of the loop
        once more.
        """
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._loop.set_exception_handler(_quiet_about_interruptions)
        loop = self._loop
        task = loop.create_task(coroutine)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            try:
                return loop.run_until_complete(task)
            except BaseException as exc:
                self.interruption = describe_interruption(exc)
                _finish_cancelled(loop, task, everything=isinstance(exc, (KeyboardInterrupt, SystemExit)))
                raise
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            future = pool.submit(loop.run_until_complete, task)
            try:
                return future.result()
            except BaseException:
                loop.call_soon_threadsafe(task.cancel)
                concurrent.futures.wait([future])
                raise

    def close(self) -> None:
        """End every task still in flight, then the loop (after an interruption, there are some)."""
        loop, self._loop = self._loop, None
        if loop is None or loop.is_closed():
            return
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
        except RuntimeError:  # a stop left over from an interruption: nothing is left to finish
            pass
        loop.close()


def _quiet_about_interruptions(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """A task that a signal stopped mid-step keeps the signal as its exception, and nobody awaits it
    any more: asyncio would report "Task exception was never retrieved" for what the session
    already reports in one line."""
    if isinstance(context.get("exception"), (KeyboardInterrupt, SystemExit, asyncio.CancelledError)):
        return
    loop.default_exception_handler(context)


def _finish_cancelled(
    loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any], *, everything: bool = False
) -> None:
    """Cancel `task` (or every task of the loop) and let it end: its `finally` blocks run now
    (programs closed, agents released, the outcomes it finished kept)."""
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()] if everything else [task]
    if task.done() and not task.cancelled():
        task.exception()  # retrieved: the caller re-raises what stopped the loop
    running = [t for t in tasks if not t.done()]
    if not running:
        return
    for each in running:
        each.cancel()
    try:
        loop.run_until_complete(asyncio.gather(*running, return_exceptions=True))
    except BaseException:  # noqa: BLE001, S110 - the cancellation, or what the cleanup raised: the first exception wins
        pass


def describe_interruption(exc: BaseException) -> str:
    """One line for what cut a conversation short: pytest-timeout's own message, a signal, or the error."""
    if isinstance(exc, RunStopped):
        return str(exc)
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted by Ctrl-C"
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled"
    text = str(exc).strip().splitlines()
    return text[0] if text and not isinstance(exc, Exception) else describe_exception(exc)


def stop_on_signals() -> Callable[[], None]:
    """Make SIGTERM stop the run as Ctrl-C does, and Ctrl-C stop it even where it was ignored;
    returns how to put the previous handlers back.

    Python's default for SIGTERM is to die at once: no results.json, no report, no line saying the
    run can be resumed.  And a process started in the background of a shell script (`pytest … &`,
    as CI runners and Makefiles start jobs) inherits SIGINT ignored, so Python never turns it into
    KeyboardInterrupt: Ctrl-C or `kill -INT` would leave a paid run going.  Only the main thread may
    set handlers; elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def terminate(signum: int, frame: FrameType | None) -> None:
        raise Terminated("terminated by SIGTERM")

    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, terminate)}
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return restore
