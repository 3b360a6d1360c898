"""Heavy third-party modules, imported on first use and by one thread at a time.

rouge-score (which pulls in nltk and scipy.stats) and scipy.stats take a second or more to
import, so they are imported when first needed, and a run warms them up in a thread beside its
conversations.  Two threads importing one package at once can trip Python's import-lock deadlock
detection and leave a half-initialised module behind ("partially initialized module 'nltk'"),
which would turn scores into errors; every such import goes through one lock instead.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType

_LOCK = threading.RLock()


def heavy_import(name: str) -> ModuleType:
    """`importlib.import_module(name)`, never alongside another thread's heavy import."""
    with _LOCK:
        return importlib.import_module(name)
