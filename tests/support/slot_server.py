"""Simulated providers for the concurrency controller: so many slots, a service time, a rate limit.

Each `serve()` is one request: it waits for a slot (a server with one slot queues the rest, and
with `contention` each waiting request slows the one being served, as requests competing for the
same cores do) and takes `service` seconds.  A server with a `rate` answers "too fast" (a 429)
above so many requests a second.  `drive` plays clients against one, through an `AdaptiveLimit`
or a fixed number at once, and returns the seconds it took: on simulated time (`VirtualTime`, the
clock the limit was given), so what the controller decides follows from the server's model alone,
never from how busy the machine is.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field

from pytest_memorybench.models.concurrency import AdaptiveLimit
from tests.support.virtual_time import VirtualTime

RATE_WINDOW = 0.2  # seconds over which a rate limit counts: a burst of a fifth of a second's worth


class TooFast(Exception):
    """The simulated 429."""


@dataclass
class SlotServer:
    slots: int | None  # None: any number at once
    service: float = 0.02
    contention: float = 0.0  # extra service time per request waiting, as a share of `service`
    rate: float | None = None  # requests a second allowed; above it, TooFast
    served: int = 0
    refused: int = 0
    most_at_once: int = 0
    _busy: int = 0
    _waiting: int = 0
    _recent: deque[float] = field(default_factory=deque)
    _door: asyncio.Semaphore | None = None

    async def serve(self) -> None:
        if self.rate is not None:
            now = asyncio.get_running_loop().time()
            while self._recent and now - self._recent[0] > RATE_WINDOW:
                self._recent.popleft()
            if len(self._recent) >= self.rate * RATE_WINDOW:
                self.refused += 1
                raise TooFast
            self._recent.append(now)
        if self.slots is not None and self._door is None:
            self._door = asyncio.Semaphore(self.slots)
        self._waiting += 1
        if self._door is not None:
            await self._door.acquire()
        self._waiting -= 1
        self._busy += 1
        self.most_at_once = max(self.most_at_once, self._busy)
        try:
            await asyncio.sleep(self.service * (1 + self.contention * self._waiting))
        finally:
            self._busy -= 1
            if self._door is not None:
                self._door.release()
        self.served += 1


async def _drive(
    server: SlotServer, requests: int, clients: int, limit: AdaptiveLimit | None, fixed: int
) -> float:
    left = requests
    gate = asyncio.Semaphore(fixed)

    async def client() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            while True:
                if limit is not None:
                    await limit.acquire()
                else:
                    await gate.acquire()
                try:
                    await server.serve()
                except TooFast:
                    if limit is not None:
                        limit.release(False)
                        limit.push_back()
                    else:
                        gate.release()
                    await asyncio.sleep(0.05)
                    continue
                if limit is not None:
                    limit.release(True)
                else:
                    gate.release()
                break

    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.gather(*(client() for _ in range(clients)))
    return loop.time() - started


def drive(
    server: SlotServer,
    requests: int,
    *,
    clock: VirtualTime,
    clients: int = 32,
    limit: AdaptiveLimit | None = None,
    fixed: int = 1,
) -> float:
    """Simulated seconds for `requests` through `limit` (or `fixed` at once) by `clients` callers,
    on `clock` (the one `limit` was made with)."""
    return clock.run(_drive(server, requests, clients, limit, fixed))


class SlottedRoute:
    """A chat-completions route for `LLMServer` that serves `slots` requests at once (None: any
    number), each taking `service` seconds (longer by `contention` x `service` for each request
    queued behind it), and answers with the message it was sent.  It counts what it was sent at
    once (`most_at_once`, served or queued): what a client's limit let through, as the server saw it."""

    def __init__(self, slots: int | None, service: float, contention: float = 0.0) -> None:
        import threading

        self.service, self.contention = service, contention
        self.door = threading.Semaphore(slots) if slots else None
        self.queued = self.at_once = self.most_at_once = 0
        self._count = threading.Lock()

    def __call__(self, request, text):  # noqa: ANN001, ANN204 - an LLMServer route
        from tests.support.llm_server import chat_completion, last_user_text

        with self._count:
            self.queued += 1
            self.at_once += 1
            self.most_at_once = max(self.most_at_once, self.at_once)
        if self.door is not None:
            self.door.acquire()
        with self._count:
            self.queued -= 1
        try:
            time.sleep(self.service * (1 + self.contention * self.queued))
        finally:
            if self.door is not None:
                self.door.release()
            with self._count:
                self.at_once -= 1
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        return chat_completion("model", "Noted: " + last_user_text(request.body)[:60], usage)
