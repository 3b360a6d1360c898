"""`--agent MECHANISM[(SETTING=VALUE,...)]:MODEL_SPEC`: which memory system, set how, over which model.

    light:openai:gpt-4.1-nano
    rag(k=10,chunk=message):openai:smollm2@http://127.0.0.1:8765/v1
    memorybank(forget_below=0.1):anthropic:claude-haiku-4-5

MODEL_SPEC is any model spec `--agent` takes (`openai:…`, `anthropic:…`, a compatible URL).  Each
mechanism's settings are a dataclass whose defaults are its paper's values; a setting's type is its
default's, and a value the mechanism refuses is one line before any test runs.  Without a model,
the registry's reference agents (`full-memory`, …) stay offline.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.registry import MECHANISMS, MODEL_PREFIXES, REFERENCE_AGENTS
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.names import suggest

if TYPE_CHECKING:
    from pytest_memorybench.agents.mechanisms.base import MemorySystem


@dataclass(frozen=True)
class MemorySpec:
    """A memory system's part of an agent spec: the mechanism and its settings; the model is the rest."""

    mechanism: str
    settings: Any
    model: str  # the model spec, parsed by agents/spec.py


def mechanism_class(name: str) -> type[MemorySystem]:
    """The mechanism registered under `name`."""
    cls: type[MemorySystem] = MECHANISMS[name].load()
    return cls


def split_memory_spec(text: str) -> tuple[str, str, str] | None:
    """(mechanism, settings text, model spec) when `text` starts with a mechanism's name, else None."""
    for name in sorted(MECHANISMS, key=len, reverse=True):
        if not text.startswith(name):
            continue
        rest = text[len(name) :]
        settings = ""
        if rest.startswith("("):
            close = rest.find(")")
            if close < 0:
                raise usage_error(
                    f"--agent {text!r}: the settings of {name} have no closing ')': {name}(k=10):MODEL"
                )
            settings, rest = rest[1:close], rest[close + 1 :]
        if rest.startswith(":") and len(rest) > 1:
            return name, settings, rest[1:]
        if rest == "" or rest == ":":
            raise usage_error(
                f"--agent {text!r}: {name} needs a model to answer: {name}:openai:MODEL,"
                f" {name}:anthropic:MODEL or {name}:openai:MODEL@URL"
            )
    _refuse_offline_with_a_model(text)
    return None


# an offline agent given a model: the mechanism over a model that keeps the same kind of memory
_LIKE = {"full-memory": "full-context", "recent-memory": "recent", "retrieval-memory": "rag"}


def _refuse_offline_with_a_model(text: str) -> None:
    name, _, model = text.partition(":")
    name = name.split("(", 1)[0]
    given_a_model = model.startswith((*MODEL_PREFIXES, "http:", "https:"))
    if name in REFERENCE_AGENTS and (given_a_model or text.startswith(f"{name}(")):
        like = _LIKE.get(name)
        over = f"; the same memory over a model is {like}:MODEL_SPEC" if like else ""
        raise usage_error(
            f"--agent {text!r}: {name} is an offline agent and takes no model or settings{over}"
        )


def parse_memory_spec(text: str) -> MemorySpec | None:
    """The mechanism, its settings and its model's spec when `text` names a mechanism, else None."""
    parts = split_memory_spec(text)
    if parts is None:
        return None
    name, settings_text, model = parts
    return MemorySpec(
        name, parse_settings(name, mechanism_class(name).settings_type, settings_text, text), model
    )


def parse_settings(name: str, settings_type: type, text: str, spec: str) -> Any:
    """`SETTING=VALUE,...` as the mechanism's settings dataclass, each value of its default's type."""
    fields = {field.name: field for field in dataclasses.fields(settings_type)}
    values: dict[str, object] = {}  # each of its default's type
    for part in filter(None, (part.strip() for part in text.split(","))):
        key, equals, raw = (piece.strip() for piece in part.partition("="))
        if not equals or key not in fields:
            known = ", ".join(f"{field}={_default(fields[field])}" for field in fields) or "none"
            hint = suggest(key, list(fields), where=f"its settings: {known}")
            raise usage_error(f"--agent {spec!r}: {name} has no setting {key!r}; {hint}")
        values[key] = _convert(raw, _default(fields[key]), name, key, spec)
    try:
        return settings_type(**values)
    except ValueError as exc:
        raise usage_error(f"--agent {spec!r}: {name}: {exc}") from None


def _default(field: dataclasses.Field[Any]) -> Any:
    return field.default


def _convert(raw: str, default: Any, name: str, key: str, spec: str) -> Any:
    try:
        if isinstance(default, bool):
            if raw.lower() not in ("true", "false", "yes", "no", "1", "0"):
                raise ValueError
            return raw.lower() in ("true", "yes", "1")
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError:
        raise usage_error(
            f"--agent {spec!r}: {name}({key}={raw}): expected {type(default).__name__}, like {key}={default}"
        ) from None
    return raw
