"""Memory spans: how much conversation separates a test's first needle from its question."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from pytest_memorybench.core.errors import usage_error

_SPAN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")
_MULTIPLIER = {"": 1, "k": 1_000, "m": 1_000_000}
MAX_SPAN_TOKENS = 10_000_000  # BEAM's longest conversations; beyond it a run would build filler for days


@dataclass(frozen=True)
class Span:
    """A span in tokens, or `isolated`: each test its own conversation, no filler, no waits."""

    tokens: int | None

    @property
    def isolated(self) -> bool:
        return self.tokens is None

    def __str__(self) -> str:
        if self.tokens is None:
            return "isolated"
        for suffix, factor in (("M", 1_000_000), ("k", 1_000)):
            if self.tokens % factor == 0:
                return f"{self.tokens // factor}{suffix}"
        return str(self.tokens)


ISOLATED = Span(None)


def parse_span(text: str | int) -> Span:
    """Read `2k`, `32k`, `1M`, `500000` or `isolated`; anything else is a usage error."""
    if isinstance(text, int):
        text = str(text)
    if text.strip().lower() == "isolated":
        return ISOLATED
    match = _SPAN.match(text)
    tokens = int(Decimal(match.group(1)) * _MULTIPLIER[match.group(2).lower()]) if match else 0
    if tokens <= 0:
        raise usage_error(
            f"--span {text!r} is not a memory span: use a token count such as 2k, 32k, 120k, 1M "
            "or 500000, or 'isolated'"
        )
    if tokens > MAX_SPAN_TOKENS:
        raise usage_error(
            f"--span {text!r} is beyond the largest span supported, {Span(MAX_SPAN_TOKENS)} tokens"
        )
    return Span(tokens)
