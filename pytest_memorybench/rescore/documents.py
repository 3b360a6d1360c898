"""Reading a published output whatever its packing: JSON, gzipped JSON, or JSON lines.

Kept apart from the readers of each layout so that telling a layout from a file imports none of
the benchmark families (a run that re-scores nothing imports no LoCoMo or LongMemEval code).
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any

from pytest_memorybench.core.readers import Malformed


def load_document(file: Path) -> Any:
    """A JSON file (gzipped when its name ends in .gz, as AMB publishes its outputs), or JSON lines
    (a hypothesis file) as the list of their values."""
    raw = file.read_bytes()
    if file.name.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (EOFError, zlib.error):
            raise Malformed("not a whole gzip file (cut short or damaged)") from None
    text = raw.decode("utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) < 2:
            raise
        return [json.loads(line) for line in lines]


__all__ = ["load_document"]
