"""Published prices and context windows of well-known models, for cost reports and trimming.

Prices are USD per million tokens as listed on openai.com/api/pricing and
docs.anthropic.com/en/docs/about-claude/pricing (checked early 2026; the o-series after OpenAI's
June 2025 o3 price cut); they change, so reported costs are estimates.  Reasoning models bill their
hidden reasoning as output tokens, and the adapters count it so.  A name matches its dated snapshots and
variants ("gpt-4o-mini-2024-07-18"), the longest name winning, but not other generations ("gpt-5.5" is
not "gpt-5").  Unknown models cost 0: a local server is free, and a guess would be worse than none.

The table is meant to be extended: a model it lacks (a fine-tune, a hosted open model, a newer
snapshot) gets its price from `--mb-price MODEL=INPUT,OUTPUT` (that run's alone: its provider
pool holds it) or from `register_price` in a conftest.py (the process's), and then agents and
judges count its cost like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

DEFAULT_CONTEXT_WINDOW = 128_000

T = TypeVar("T")


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens of one model."""

    input_per_million: float
    output_per_million: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_million + output_tokens * self.output_per_million) / 1e6


_SONNET = Price(3.00, 15.00)
_OPUS_4 = Price(15.00, 75.00)
_OPUS_4_5 = Price(5.00, 25.00)

PRICES: dict[str, Price] = {
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-5": Price(1.25, 10.00),
    "gpt-5-mini": Price(0.25, 2.00),
    "gpt-5-nano": Price(0.05, 0.40),
    "o1": Price(15.00, 60.00),
    "o1-mini": Price(1.10, 4.40),
    "o3": Price(2.00, 8.00),
    "o3-mini": Price(1.10, 4.40),
    "o3-pro": Price(20.00, 80.00),
    "o4-mini": Price(1.10, 4.40),
    "claude-3-5-haiku": Price(0.80, 4.00),
    "claude-haiku-4-5": Price(1.00, 5.00),
    "claude-3-7-sonnet": _SONNET,
    "claude-sonnet-4-0": _SONNET,
    "claude-sonnet-4-20250514": _SONNET,
    "claude-sonnet-4-5": _SONNET,
    "claude-sonnet-4-6": _SONNET,
    "claude-opus-4-0": _OPUS_4,
    "claude-opus-4-20250514": _OPUS_4,
    "claude-opus-4-1": _OPUS_4,
    "claude-opus-4-5": _OPUS_4_5,
    "claude-opus-4-6": _OPUS_4_5,
}

CONTEXT_WINDOWS: dict[str, int] = {
    "gpt-4o": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-5": 400_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "claude": 200_000,  # the window every Claude model has without beta headers
}


def _lookup(table: dict[str, T], model: str | None) -> T | None:
    if not model:
        return None
    matches = [name for name in table if model == name or model.startswith(f"{name}-")]
    return table[max(matches, key=len)] if matches else None


def register_price(model: str, price: Price) -> None:
    """Add or replace a model's price; its dated snapshots (`MODEL-2025-01-01`) match it too."""
    if not model:
        raise ValueError("a price needs a model name")
    PRICES[model] = price


def price_for(model: str | None, given: dict[str, Price] | None = None) -> Price | None:
    """The price of `model` (its dated snapshots and variants included): from `given` (a run's
    `--mb-price`) when it is there, else the table; None when unknown: it then costs 0.  A run's
    agents and judges ask through its provider pool (`providers.price_for`), which gives its own."""
    return _lookup(given or {}, model) or _lookup(PRICES, model)


def context_window_for(model: str | None) -> int:
    """The context window of `model` in tokens, or the default for a model the table does not know."""
    return _lookup(CONTEXT_WINDOWS, model) or DEFAULT_CONTEXT_WINDOW
