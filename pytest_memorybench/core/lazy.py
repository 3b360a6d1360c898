"""Names a package exports but imports only when first used, so importing the package stays cheap.

pytest imports the plugin in every run, and naming one agent should not load every other's
libraries (numpy, an SDK, a tokenizer); a package lists its public names with the module each comes
from, and its `__getattr__` imports that module the first time the name is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package` that finds each name of `modules` in its module."""

    def __getattr__(name: str) -> Any:
        if name in modules:
            return getattr(importlib.import_module(modules[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
