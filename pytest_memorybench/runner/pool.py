"""Driving several conversation groups at once on the run's one event loop.

A run waits on its agent: a model answers in seconds and uses none of our CPU.  So when pytest
asks for an item whose conversation nobody has driven yet, the pool drives that conversation and,
beside it, the next ones this process will be asked for, up to `limit` at once, each as its own
task.  Items still report in pytest's order: a later item finds its outcome waiting, or waits for
its own conversation, which has had a head start.  Inside a conversation nothing changes: its
turns are sequential, as the suite's rules need.

Tasks run only while the loop does, i.e. while some item waits; between items (pytest reporting)
they pause for the milliseconds that takes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

Starter = Callable[[str], Coroutine[Any, Any, None]]


class ConversationPool:
    """Conversations driven at once, up to a limit that auto concurrency may move."""

    def __init__(
        self, starter: Starter, upcoming: Callable[[], Iterable[str]], limit: int | Callable[[], int]
    ) -> None:
        self.starter = starter  # the coroutine that drives one group to its end
        self.upcoming = upcoming  # groups this process will be asked for next, best first
        self._limit = limit  # a number, or what the measured providers allow now (--mb-concurrency auto)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._raised: set[str] = set()  # groups whose interruption was raised already

    @property
    def limit(self) -> int:
        return self._limit() if callable(self._limit) else self._limit

    @limit.setter
    def limit(self, value: int) -> None:
        self._limit = value

    @property
    def in_flight(self) -> int:
        return sum(not task.done() for task in self._tasks.values())

    def started(self, group: str) -> bool:
        return group in self._tasks

    async def drive(self, group: str, starter: Starter | None = None) -> None:
        """Drive `group` to its end (started by `starter`, or the pool's), others beside it.

        An interruption that reached another conversation's task (a signal lands in whichever
        task the loop was running) is raised here: it was meant for the item waiting now.
        """
        while group not in self._tasks and self.in_flight >= self.limit:
            await self._next_end()  # the place that frees first is this group's: it is waited for now
        task = self._start(group, starter or self.starter)
        self._fill()
        while not task.done():
            await self._next_end()
            self._fill()
        self._fill()  # freed places start the next conversations, which run while the next item waits
        task.result()

    async def _next_end(self) -> None:
        await asyncio.wait(
            [t for t in self._tasks.values() if not t.done()], return_when=asyncio.FIRST_COMPLETED
        )
        self._raise_interruption()

    def level_changed(self) -> None:
        """A measured limit moved (`--mb-concurrency auto`): start what it now allows."""
        if self._tasks:  # only while a conversation runs: the loop is ours then
            self._fill()

    async def cancel(self, groups: Iterable[str] | None = None) -> None:
        """Stop the unfinished conversations (all of them by default) and let them end cleanly."""
        chosen = self._tasks if groups is None else {g: self._tasks[g] for g in groups if g in self._tasks}
        running = [task for task in chosen.values() if not task.done()]
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    def _start(self, group: str, starter: Starter) -> asyncio.Task[None]:
        if group not in self._tasks:
            self._tasks[group] = asyncio.get_running_loop().create_task(
                starter(group), name=f"memorybench:{group}"
            )
        return self._tasks[group]

    def _fill(self) -> None:
        if self.limit <= 1:
            return  # one at a time: a conversation starts when its item asks, as without a pool
        for group in self.upcoming():
            if self.in_flight >= self.limit:
                return
            self._start(group, self.starter)

    def _raise_interruption(self) -> None:
        for group, task in self._tasks.items():
            if group in self._raised or not task.done() or task.cancelled():
                continue
            error = task.exception()
            if error is not None and not isinstance(error, Exception):
                self._raised.add(group)
                raise error
