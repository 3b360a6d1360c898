"""The providers a run calls, owned by the run: their measured limits, their endpoints' gates, prices.

Every agent and judge that calls one endpoint shares one gate (its rate limits, its pauses after
a 429) and, under `--mb-concurrency auto`, one measured limit.  A run makes its own pool, serves
it while it runs, and closes it: nothing one run measured or registered outlives it (a test may
run several in one process), and the next starts from the levels its folder remembers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_memorybench.core.errors import mask_credentials
from pytest_memorybench.models import prices
from pytest_memorybench.models.concurrency import AUTO_CEILING, AdaptiveLimit, auto_conversations
from pytest_memorybench.models.limits import ProviderGate, RateLimits
from pytest_memorybench.models.prices import Price


class ProviderPool:
    """The limits and gates of the providers one run calls, and who hears of a change of level."""

    def __init__(
        self, remembered: Mapping[str, int] | None = None, prices: Mapping[str, Price] | None = None
    ) -> None:
        self._remembered = dict(remembered or {})  # provider -> the level an earlier run ended at
        self._prices = dict(prices or {})  # --mb-price: this run's, beside the known table
        self._limits: dict[str, AdaptiveLimit] = {}
        self._gates: dict[tuple[str, RateLimits], ProviderGate] = {}
        self._listeners: list[Callable[[], None]] = []
        self._served: dict[str, set[str]] = {}  # "provider:model" asked -> the models that answered

    def limit_for(self, name: str, ceiling: int = AUTO_CEILING) -> AdaptiveLimit:
        """The limit of one provider, made on first use: every caller shares it."""
        limit = self._limits.get(name)
        if limit is None:
            start = self._remembered.get(name, 1)
            limit = self._limits[name] = AdaptiveLimit(
                name, ceiling=ceiling, start=start, on_change=self._changed
            )
        return limit

    def gate_for(self, provider: str, base_url: str | None, limits: RateLimits) -> ProviderGate:
        """The gate of one endpoint, shared by every agent and judge that calls it."""
        name = mask_credentials(f"{provider}@{base_url or 'default'}")
        gate = self._gates.get((name, limits))
        if gate is None:
            gate = self._gates[(name, limits)] = ProviderGate(limits, name, self)
        return gate

    def price_for(self, model: str | None) -> Price | None:
        """What `model` costs in this run: its `--mb-price`, else the known table's."""
        return prices.price_for(model, self._prices)

    def note_model(self, asked: str, answered: str | None) -> None:
        """A reply to `asked` ("openai:gpt-4o-mini") came from `answered`, as the response named it."""
        if answered:
            self._served.setdefault(asked, set()).add(answered)

    def served_models(self) -> dict[str, list[str]]:
        """Each model asked for ("provider:model") and the models the responses said answered."""
        return {asked: sorted(answered) for asked, answered in sorted(self._served.items())}

    def levels(self) -> list[int]:
        return [limit.level for limit in self._limits.values()]

    def on_level_change(self, listener: Callable[[], None]) -> None:
        """Call `listener` (on the event loop) whenever a provider's level changes."""
        self._listeners.append(listener)

    def conversations(self) -> int:
        """Conversations to drive at once under auto (`concurrency.auto_conversations`)."""
        return auto_conversations(self.levels(), list(self._remembered.values()))

    def record(self, fixed: int | None) -> dict[str, Any]:
        """How many requests this process sent at once (`--mb-concurrency N`), or (auto) what each
        provider's limit did; and the models that answered (`served_models`)."""
        models = self.served_models()
        if fixed is not None:
            return {"mode": "fixed", "conversations": fixed, "providers": [], "models": models}
        return {
            "mode": "auto",
            "providers": [limit.record() for limit in self._limits.values()],
            "models": models,
        }

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()

    def close(self) -> None:
        self._listeners.clear()


_serving = ProviderPool()  # outside a run (an adapter a test builds): the process's own


def serving() -> ProviderPool:
    """The pool of the run in progress, or the process's own outside one."""
    return _serving


def price_for(model: str | None) -> Price | None:
    """What `model` costs to the run in progress (or to the process, outside one)."""
    return _serving.price_for(model)


def serve(pool: ProviderPool) -> Callable[[], None]:
    """Make `pool` the one new adapters and judges use; returns what puts the previous one back."""
    global _serving
    previous, _serving = _serving, pool

    def restore() -> None:
        global _serving
        _serving = previous

    return restore
