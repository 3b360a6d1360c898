"""One token counter for the whole run.

GoodAI measures spans with tiktoken's `cl100k_base`.  tiktoken downloads that encoding on first
use, so on a machine without network (CI, air-gapped labs) it may be missing; then we fall back to
an approximation that counts words and punctuation the way BPE tokenizers roughly do (about 1.3
tokens per English word).  The counter's `name` says which one ran and is recorded in results.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

_PIECES = re.compile(r"\w+|[^\w\s]", re.UNICODE)


class TokenCounter(Protocol):
    name: str

    def count(self, text: str) -> int: ...


class TiktokenCounter:
    def __init__(self, encoding: object, name: str) -> None:
        self._encoding = encoding
        self.name = f"tiktoken:{name}"

    def count(self, text: str) -> int:
        return len(self._encoding.encode(text, disallowed_special=()))  # type: ignore[attr-defined]


class ApproximateCounter:
    """Counts word pieces: long words count as several tokens, as BPE splits them."""

    name = "approximate:words"

    def count(self, text: str) -> int:
        total = 0
        for piece in _PIECES.findall(text):
            total += 1 + (len(piece) - 1) // 6 if piece[0].isalnum() else 1
        return total


@lru_cache(maxsize=None)
def default_counter() -> TokenCounter:
    try:
        import tiktoken

        return TiktokenCounter(tiktoken.get_encoding("cl100k_base"), "cl100k_base")
    except Exception:  # noqa: BLE001 - any failure to load means: no offline encoding here
        return ApproximateCounter()
