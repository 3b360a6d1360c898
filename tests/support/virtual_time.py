"""An asyncio event loop on simulated time: whenever nothing is ready to run, the clock jumps to the
next timer instead of waiting for it.

A test that plays requests against a simulated server (`asyncio.sleep` for a service time) then
decides from the order of events its own model fixes, never from how fast a busy machine got
through them: the same run gives the same level changes and the same "wall" seconds every time,
and a minute of simulated traffic takes milliseconds.  Code under test that keeps its own clock
(`AdaptiveLimit(clock=...)`) is given `VirtualTime.now`, the loop's time.

Only for code that waits on timers alone: a loop with real I/O to wait on (a socket, a thread's
`call_soon_threadsafe`) still polls it, but its waiting takes no simulated time.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _NoWait(selectors.BaseSelector):
    """The loop's selector, asked never to block: the time it would have waited passes at once."""

    def __init__(self, inner: selectors.BaseSelector, clock: VirtualTime) -> None:
        self._inner = inner
        self._clock = clock

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self._inner.select(0)
        if not ready and timeout:
            self._clock.advance(timeout)
        return ready

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._inner.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.modify(fileobj, events, data)

    def close(self) -> None:
        self._inner.close()

    def get_map(self) -> Any:
        return self._inner.get_map()


class VirtualTime:
    """Simulated seconds, starting at 0, and an event loop that runs on them (`run`)."""

    def __init__(self) -> None:
        self._now = 0.0

    def now(self) -> float:
        return self._now

    __call__ = now  # a clock for code that takes a `time.monotonic`-like callable

    def advance(self, seconds: float) -> None:
        self._now += max(0.0, seconds)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """`asyncio.run(coroutine)`, with every wait taking simulated time only."""
        loop = asyncio.SelectorEventLoop()
        loop._selector = _NoWait(loop._selector, self)  # type: ignore[attr-defined]
        loop.time = self.now  # type: ignore[method-assign]
        try:
            return loop.run_until_complete(coroutine)
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
