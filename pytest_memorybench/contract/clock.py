"""The simulated clock: every message carries its time; time waits move it, not the system clock."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone


class SimulatedClock:
    """The benchmark's simulated time: it moves only when the conversation waits or jumps."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = (start or datetime.now(timezone.utc)).replace(microsecond=0)

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the simulated clock only moves forward")
        self._now += timedelta(seconds=seconds)
