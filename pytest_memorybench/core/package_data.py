"""Data the package ships beside its code (word lists, fact tables), read from the installed package.

Long lists are data, not code: they live as JSON in a `data/` folder of the package that uses them
(declared nowhere else: the wheel takes every file under the package), each read once, when the
module that holds it is first imported, through `importlib.resources` so a zipped or installed
package reads the same.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def package_json(package: str, name: str) -> Any:
    """`name` (a path below `package`'s folder, e.g. "data/lists.json") read as JSON."""
    return json.loads(resources.files(package).joinpath(name).read_text(encoding="utf-8"))


def frozen(value: Any) -> Any:
    """`value` with every JSON array a tuple, at every depth (the lists were tuples, and stay so)."""
    if isinstance(value, list):
        return tuple(frozen(item) for item in value)
    if isinstance(value, dict):
        return {key: frozen(item) for key, item in value.items()}
    return value
