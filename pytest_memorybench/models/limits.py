"""What a provider allows: requests in flight, requests and tokens a minute, and a pause after a 429.

Concurrent conversations all call the same API with the same key, so the provider's limits are
the run's, not a conversation's: one `ProviderGate` per provider endpoint is shared by every agent
and judge that calls it.  When the server answers 429 with Retry-After, the pause applies to every
caller at once: each conversation finding the limit by itself would make N failed requests where
one suffices.  The rates are leaky buckets (aiolimiter); tokens a minute count the request's input
as we measure it, since what the reply will cost is known only after the request was let through.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from aiolimiter import AsyncLimiter

from pytest_memorybench.models.concurrency import AUTO_CEILING, AdaptiveLimit


@dataclass(frozen=True)
class RateLimits:
    """`--mb-max-requests`, `--mb-rpm` and `--mb-tpm`; None: no limit of that kind."""

    max_in_flight: int | None = None
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    adaptive: bool = False  # --mb-concurrency auto: requests in flight follow measured throughput

    @property
    def active(self) -> bool:
        return any(
            value is not None
            for value in (self.max_in_flight, self.requests_per_minute, self.tokens_per_minute)
        )


class LimitSource(Protocol):
    """Where a gate finds its endpoint's measured limit: the run's provider pool."""

    def limit_for(self, name: str, ceiling: int = AUTO_CEILING) -> AdaptiveLimit: ...


class ProviderGate:
    """The door every request to one provider endpoint passes."""

    def __init__(
        self,
        limits: RateLimits,
        name: str = "provider",
        pool: LimitSource | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits
        self.name = name
        self._pool = pool
        self._clock = clock  # the pause's clock (a test runs the gate on simulated time)
        self._requests = AsyncLimiter(limits.requests_per_minute, 60) if limits.requests_per_minute else None
        self._tokens = AsyncLimiter(limits.tokens_per_minute, 60) if limits.tokens_per_minute else None
        self._slots: asyncio.Semaphore | None = None
        self._slots_loop: asyncio.AbstractEventLoop | None = None
        self._paused_until = 0.0  # clock time before which nobody sends
        self.in_flight = 0
        self.most_in_flight = 0  # the highest `in_flight` seen: what a test checks the limit by

    @asynccontextmanager
    async def request(self, tokens: int) -> AsyncIterator[None]:
        """Hold a place for one request of about `tokens` input tokens, while it is sent and answered."""
        await self._wait_out_pause()
        adaptive = self.adaptive
        if adaptive is not None:
            await adaptive.acquire()
        answered = False
        try:
            async with self._semaphore():
                if self._requests is not None:
                    await self._requests.acquire()
                if self._tokens is not None:
                    await self._tokens.acquire(min(float(max(tokens, 1)), self._tokens.max_rate))
                await self._wait_out_pause()  # a 429 may have come while we queued
                self.in_flight += 1
                self.most_in_flight = max(self.most_in_flight, self.in_flight)
                try:
                    yield
                    answered = True
                finally:
                    self.in_flight -= 1
        finally:
            if adaptive is not None:
                adaptive.release(answered)

    @property
    def adaptive(self) -> AdaptiveLimit | None:
        """The endpoint's measured limit under `--mb-concurrency auto` (its pool's, made on first use)."""
        if not self.limits.adaptive or self._pool is None:
            return None
        return self._pool.limit_for(self.name, self.limits.max_in_flight or AUTO_CEILING)

    def push_back(self) -> None:
        """The endpoint is overloaded (a timeout, a 503): fewer requests at once, when that is ours to set."""
        limit = self.adaptive
        if limit is not None:
            limit.push_back()

    def pause(self, seconds: float) -> None:
        """The server asked for a pause (429 + Retry-After): nobody sends before it is over, and
        under `--mb-concurrency auto` fewer are sent at once after it."""
        self._paused_until = max(self._paused_until, self._clock() + seconds)
        self.push_back()

    async def _wait_out_pause(self) -> None:
        while (remaining := self._paused_until - self._clock()) > 0:
            await asyncio.sleep(remaining)

    def _semaphore(self) -> asyncio.Semaphore | _NoLimit:
        """The running loop's semaphore (a test may run several loops in one process)."""
        if self.limits.max_in_flight is None:
            return _NO_LIMIT
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots_loop is not loop:
            self._slots, self._slots_loop = asyncio.Semaphore(self.limits.max_in_flight), loop
        return self._slots


class _NoLimit:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


_NO_LIMIT = _NoLimit()
