"""Loading what a spec names from the user's code: an installed entry point, or `pkg.module:attribute`.

Agents and memory stores are both found so; each failure is one line naming the spec and what to do.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib.metadata import entry_points
from typing import Any

from pytest_memorybench.core.errors import describe_exception, usage_error


def load_entry_point(group: str, name: str, text: str, missing: str) -> Any:
    """The object entry point `name` of `group` names; `missing` says what to do when none does."""
    found = [ep for ep in entry_points(group=group) if ep.name == name]
    if not found:
        raise usage_error(f"--agent {text!r}: {missing}")
    try:
        return found[0].load()
    except Exception as exc:  # noqa: BLE001
        raise usage_error(
            f"--agent {text}: loading its entry point failed: {describe_exception(exc)}"
        ) from None


def import_target(target: str, text: str, no_module: str) -> Any:
    """Import `module:attribute`, finding modules in the current directory as `python -m` does;
    `no_module` is the line for a one-word module that does not exist (likely a misspelt name)."""
    module_name, _, attribute = target.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001
        if isinstance(exc, ModuleNotFoundError) and exc.name == module_name and "." not in module_name:
            raise usage_error(f"--agent {text!r}: {no_module}") from None
        raise usage_error(
            f"--agent {text}: cannot import {module_name!r} ({describe_exception(exc)}); "
            "check the module path and that it is importable from the current directory"
        ) from None
    obj: Any = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise usage_error(f"--agent {text}: module {module_name!r} has no attribute {attribute!r}")
        obj = getattr(obj, part)
    return obj
