"""JSON as a type: what a record holds where its shape is open, checked to be JSON and nothing else.

Most records have a known shape and are dataclasses or TypedDicts.  Some parts are open by design:
a scenario's own figures in an item's `details`, a family's `metrics`, a scenario's `params`, a
store's settings, a JSON Schema.  They are typed as JSON values rather than `Any`, so mypy still
checks that whatever is put in is something `json.dumps` writes, and a reader narrows what it takes
out (`isinstance`) instead of trusting it.

The containers are read-only (`Sequence`, `Mapping`) inside a value: a `list[float]` or a
`dict[str, int]` a scenario made is a JSON value as it is.  `JsonObject`, the top level, is a
`dict` its maker fills.  A tuple passes as a sequence and is written as a list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JsonScalar: TypeAlias = str | int | float | bool | None
JsonValue: TypeAlias = JsonScalar | Sequence["JsonValue"] | Mapping[str, "JsonValue"]
JsonObject: TypeAlias = dict[str, JsonValue]  # an object a record's maker fills, written as JSON
JsonMapping: TypeAlias = Mapping[str, JsonValue]  # an object only read (a record, a row of a file)
