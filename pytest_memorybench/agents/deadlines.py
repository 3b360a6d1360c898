"""Calling what a user hands us, sync or async, within a deadline: the agent's and the store's calls.

A sync call runs in a daemon thread, so a slow agent or store never blocks the run's loop and one
that never returns is abandoned at exit rather than waited for.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class HarnessTimeout(Exception):
    """Our deadline passed; distinct from a TimeoutError the agent raises itself."""


def sdk_timeout(seconds: float | None) -> float:
    """The per-request timeout to give a store's SDK: a second past our deadline (`--mb-timeout`,
    600 s where it is off), so ours is the bound that fires.  An SDK that gave up first (Letta's and
    Supermemory's after 60 s, the Redis server's client after 30) would cut a slow server short of
    what the user allowed, and its retry, or ours, would send again a write the server was still
    making: a step in an agent's history twice."""
    return (seconds or 600) + 1


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """The awaitable's result, or HarnessTimeout once `seconds` pass (None: no deadline)."""
    if seconds is None:  # no deadline: no task to watch (a task costs turns of the loop per call)
        return await awaitable
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
        raise HarnessTimeout
    return task.result()


async def call_maybe_async(func: Callable[..., Any], *args: Any) -> Any:
    """Await coroutine functions; run sync ones in a thread so a slow agent cannot block the loop."""
    if inspect.iscoroutinefunction(func):
        return await func(*args)
    result = await _in_daemon_thread(func, *args)
    if inspect.isawaitable(result):
        result = await result
    return result


async def _in_daemon_thread(func: Callable[..., Any], *args: Any) -> Any:
    """`asyncio.to_thread`, but in a daemon thread: a sync agent that never returns (past
    `--mb-timeout`, or when the run is interrupted) is abandoned, where the loop's default executor
    would make Python wait for it at exit, for ever."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return  # the wait was given up (timeout, cancellation)
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        result, error = None, None
        try:
            result = context.run(func, *args)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            error = exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:
            pass  # the loop closed while the agent worked: nobody waits for this reply any more

    threading.Thread(target=work, name="memorybench-agent", daemon=True).start()
    return await future
