"""Concurrency that finds its own level: `--mb-concurrency auto`.

Whether sending more requests at once makes a run faster depends on what serves them, which users
rarely know: a llama.cpp server computes one request at a time (more only queue, and compete for
the same cores), vLLM or a hosted API serve many, a rate-limited key serves as many as its limit.
So the level is measured, per provider (an endpoint, or a Python agent): `AdaptiveLimit` lets at
most `level` requests through at once and watches the throughput they achieve (replies a second).

It starts at one and doubles the level after every round of replies while each doubling brings
at least `SLOW_START_GAIN` more replies a second (TCP's slow start: the climb to 32 takes seven
replies' time, most of a short run's), then raises it one at a time; a raise that does not bring a
quarter of its ideal gain (8 → 9: about 3 %) is taken back and the level settles, to be probed
again one step up every few windows.  The first reply, which pays for opening the connection,
measures nothing.  A run starts each provider at the level the run before it ended at (its
`ProviderPool` remembers them from the run folder's `levels.json`), probing one step at a time from there.
A push back from the provider (429, a timeout, an overloaded 503) halves it at once: the
additive-increase / multiplicative-decrease rule TCP made standard.  A window whose requests did
not fill the level (too few conversations, an agent busy with its own work) decides nothing.  The
level never exceeds `ceiling` (`--mb-max-requests`, else `AUTO_CEILING`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

AUTO_CEILING = 32  # requests in flight auto mode tries at most, without --mb-max-requests
# Replies a window needs before it decides: in slow start one per request in flight and at least
# SLOW_START_SAMPLES (a doubling costs about one reply's time: the climb to 32 takes seven), then two
# per request in flight and at least MIN_SAMPLES, so a settled level is not moved on noise.
SLOW_START_SAMPLES = 1
MIN_SAMPLES = 4
SLOW_START_GAIN = 0.1  # more replies a second a doubling must bring to be kept
GAIN_SHARE = 0.25  # of the ideal gain a raise by one must bring to be kept (8 -> 9: 3 %)
UTILISED = 0.7  # share of the level the requests in flight must fill for a window to count
PROBE_EVERY = 4  # windows at a settled level before trying one more
RECORDED_CHANGES = 500  # the latest changes results.json keeps (a day-long run probes thousands of times)
UNMEASURED_CONVERSATIONS = 4  # conversations at once under auto while no provider is measured


@dataclass(frozen=True)
class LevelChange:
    """One step of the controller, for results.json: when, to what level, on what measurement."""

    seconds: float  # since the limit was made
    level: int
    throughput: float | None  # replies a second measured at the level left behind
    why: str

    def as_list(self) -> list[object]:
        return [
            round(self.seconds, 3),
            self.level,
            None if self.throughput is None else round(self.throughput, 4),
            self.why,
        ]


class AdaptiveLimit:
    """At most `level` requests at once to one provider, the level set by measured throughput."""

    def __init__(
        self,
        name: str,
        *,
        ceiling: int = AUTO_CEILING,
        start: int = 1,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.name = name
        self._on_change = on_change  # the run's conversation pool, told of every change of level
        self.ceiling = max(1, ceiling)
        self.level = max(1, min(start, self.ceiling))
        self.in_flight = 0
        self.most_in_flight = 0
        self.settled = False
        self._clock = clock
        self._born = clock()
        self.changes: list[LevelChange] = [
            LevelChange(0.0, self.level, None, "start" if self.level == 1 else "remembered")
        ]
        self._measured: dict[int, float] = {}  # level -> throughput last measured there
        self._raised_from: int | None = None  # the level the current one was raised from, on trial
        self._slow_start = self.level == 1  # a remembered level is probed one step at a time
        self._warmed = False
        self._settled_windows = 0
        self._calm_after = 0.0  # clock time before which a push back repeats the last one
        self._latency = 0.0  # a request's mean time in flight, from the last window (Little's law)
        self._waiters: list[asyncio.Future[None]] = []
        self._new_window()

    # -- the door ---------------------------------------------------------------------------------

    async def acquire(self) -> None:
        while self.in_flight >= self.level:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except BaseException:
                self._waiters.remove(waiter)
                self._wake()  # a place it was woken for goes to the next in line
                raise
            self._waiters.remove(waiter)
        self._account()
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def release(self, answered: bool) -> None:
        """A request is over; `answered`: it brought a reply (failures measure nothing)."""
        self._account()
        self.in_flight -= 1
        if answered and not self._warmed:
            self._warmed = True  # the first reply carries the connection's set-up: it measures nothing
            self._new_window()
        elif answered:
            self._done += 1
            if self._done >= (
                max(SLOW_START_SAMPLES, self.level) if self._slow_start else max(MIN_SAMPLES, 2 * self.level)
            ):
                self._decide()
        self._wake()

    def push_back(self) -> None:
        """The provider refused the pace (429, timeout, overload): halve the level at once."""
        now = self._clock()
        if now < self._calm_after:
            return  # the requests in flight when it came say the same thing again
        self._calm_after = now + 2 * self._latency
        self._slow_start = False
        self._raised_from = None
        self._change(max(1, self.level // 2), None, "pushed back")

    # -- measuring --------------------------------------------------------------------------------

    def _new_window(self) -> None:
        self._start = self._last = self._clock()
        self._done = 0
        self._busy = 0.0  # integral of requests in flight over the window's time

    def _account(self) -> None:
        now = self._clock()
        self._busy += self.in_flight * (now - self._last)
        self._last = now

    def _decide(self) -> None:
        elapsed = max(self._clock() - self._start, 1e-9)
        throughput = self._done / elapsed
        self._latency = self._busy / self._done
        if self._busy / (elapsed * self.level) < UTILISED:
            self._new_window()  # demand did not fill the level: nothing learnt about it
            return
        level, before = self.level, self._raised_from
        self._measured[level] = throughput
        self._raised_from = None
        if before is not None:  # a raise on trial: kept if it paid
            wanted = SLOW_START_GAIN if self._slow_start else GAIN_SHARE * (level / before - 1)
            if throughput < self._measured[before] * (1 + wanted):
                self._slow_start, self.settled, self._settled_windows = False, True, 0
                self._change(before, throughput, "no gain")
                return
            self.settled = False
        elif self.settled:
            self._settled_windows += 1
            if self._settled_windows < PROBE_EVERY:
                self._new_window()
                return
            self._settled_windows = 0
        if level >= self.ceiling:
            self.settled = True
            self._new_window()
            return
        self._raised_from = level
        self._change(
            min(self.ceiling, level * 2 if self._slow_start else level + 1),
            throughput,
            "probing" if self.settled else "gain",
        )

    def _change(self, level: int, throughput: float | None, why: str) -> None:
        if level != self.level:
            self.changes.append(LevelChange(self._clock() - self._born, level, throughput, why))
        self.level = level
        self._new_window()
        self._wake()
        self._on_change()

    def _wake(self) -> None:
        for waiter in self._waiters[: max(0, self.level - self.in_flight)]:
            if not waiter.done():
                waiter.set_result(None)

    # -- reporting --------------------------------------------------------------------------------

    def record(self) -> dict[str, object]:
        return {
            "provider": self.name,
            "level": self.level,
            "settled": self.settled,
            "most_in_flight": self.most_in_flight,
            "changes": [
                change.as_list() for change in self.changes[:1] + self.changes[1:][-RECORDED_CHANGES:]
            ],
        }


def auto_conversations(measured: list[int], remembered: list[int]) -> int:
    """Conversations to drive at once under auto: twice the level of the busiest measured provider
    (so a raise finds callers to fill it), before the first request the level an earlier run
    ended at, or `UNMEASURED_CONVERSATIONS` while none is measured (a built-in agent and the local
    judge call no provider)."""
    levels = measured or remembered
    return max(2, 2 * max(levels)) if levels else UNMEASURED_CONVERSATIONS
