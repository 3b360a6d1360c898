"""`--agent MECHANISM[(SETTING=VALUE,...)]:MODEL_SPEC`: which memory system, set how, over which model.

    light:openai:gpt-4.1-nano
    rag(k=10,chunk=message):openai:smollm2@http://127.0.0.1:8765/v1
    memorybank(forget_below=0.1):anthropic:claude-haiku-4-5

MODEL_SPEC is any model spec `--agent` takes (`openai:…`, `anthropic:…`, a compatible URL).  Each
mechanism's settings are a dataclass whose defaults are its paper's values; a setting's type is its
default's, and a value the mechanism refuses is one line before any test runs.  Without a model,
`full-memory`, `recent-memory` and `retrieval-memory` stay the offline reference agents.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.core.errors import UsageError

# name -> "module:class" in this package, imported when used
MECHANISMS: dict[str, str] = {
    "full-context": "full_context:FullContext",
    "recent-memory": "recent:RecentMemorySystem",
    "rag": "rag:Rag",
    "light": "light:Light",
    "ltm-agent": "ltm_agent:LtmAgent",
    "memorybank": "memorybank:MemoryBank",
    "generative-agents": "generative_agents:GenerativeAgents",
    "memgpt": "memgpt:MemGPT",
    "scm": "scm:SelfControlledMemory",
}


@dataclass(frozen=True)
class MemorySpec:
    """A memory system's part of an agent spec: the mechanism and its settings; the model is the rest."""

    mechanism: str
    settings: Any
    model: str  # the model spec, parsed by agents/spec.py


def mechanism_class(name: str) -> type:
    module, _, attribute = MECHANISMS[name].partition(":")
    return getattr(importlib.import_module(f"pytest_memorybench.agents.memory.{module}"), attribute)


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
                raise UsageError(
                    f"--agent {text!r}: the settings of {name} have no closing ')': {name}(k=10):MODEL"
                )
            settings, rest = rest[1:close], rest[close + 1 :]
        if rest.startswith(":") and len(rest) > 1:
            return name, settings, rest[1:]
        if rest == "" or rest == ":":
            raise UsageError(
                f"--agent {text!r}: {name} needs a model to answer: {name}:openai:MODEL,"
                f" {name}:anthropic:MODEL or {name}:openai:MODEL@URL"
            )
    return None


def parse_memory_spec(text: str) -> MemorySpec | None:
    parts = split_memory_spec(text)
    if parts is None:
        return None
    name, settings_text, model = parts
    return MemorySpec(
        name, parse_settings(name, mechanism_class(name).settings_type, settings_text, text), model
    )


def parse_settings(name: str, settings_type: type, text: str, spec: str) -> Any:
    fields = {field.name: field for field in dataclasses.fields(settings_type)}
    values: dict[str, Any] = {}
    for part in filter(None, (part.strip() for part in text.split(","))):
        key, equals, raw = (piece.strip() for piece in part.partition("="))
        if not equals or key not in fields:
            known = ", ".join(f"{field}={_default(fields[field])}" for field in fields) or "none"
            raise UsageError(f"--agent {spec!r}: {name} has no setting {key!r} (its settings: {known})")
        values[key] = _convert(raw, _default(fields[key]), name, key, spec)
    try:
        return settings_type(**values)
    except ValueError as exc:
        raise UsageError(f"--agent {spec!r}: {name}: {exc}") from None


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
        raise UsageError(
            f"--agent {spec!r}: {name}({key}={raw}): expected {type(default).__name__}, like {key}={default}"
        ) from None
    return raw


def require(condition: bool, message: str) -> None:
    """For settings' `__post_init__`: a refused value, said in terms of the setting."""
    if not condition:
        raise ValueError(message)


def positive(**values: float) -> None:
    for key, value in values.items():
        require(value > 0, f"{key} must be above 0, got {value:g}")


def one_of(key: str, value: str, choices: tuple[str, ...]) -> None:
    require(value in choices, f"{key} must be one of {', '.join(choices)}, got {value!r}")
