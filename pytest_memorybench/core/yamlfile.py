"""YAML that remembers where things are, so errors in user files can name the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from pytest_memorybench.core.readers import Malformed, reading

MAX_YAML_BYTES = 10_000_000  # suites are short; a huge file is a wrong path, not a suite


class Located(dict):  # type: ignore[type-arg]
    """A mapping from a YAML file that knows its own line and the line of each key."""

    line: int = 0
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


class _Loader(yaml.SafeLoader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Located:
        mapping = Located(super().construct_mapping(node, deep=True))
        mapping.line = node.start_mark.line + 1
        mapping.key_lines = {str(key.value): key.start_mark.line + 1 for key, _ in node.value}
        return mapping


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _Loader.construct_mapping)


def load_located(path: Path) -> Any:
    """Parse `path`; a file that is no readable YAML becomes one line naming it (and the line at fault)."""
    with reading(f"suite file {path}", "fix it or give another file"):
        if path.stat().st_size > MAX_YAML_BYTES:
            raise Malformed(f"{path.stat().st_size:,} bytes; a suite file holds at most {MAX_YAML_BYTES:,}")
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
