"""`--agent STORE[(SETTING=VALUE,...)]:MODEL_SPEC`: which memory store, set how, answered by which model.

    bm25:openai:gpt-4o-mini                    a built-in store (`agents/registry.py`)
    mcp(command=npx -y @modelcontextprotocol/server-memory):openai:NAME@URL
    mystore:anthropic:claude-haiku-4-5         a store installed under the `memorybench.stores`
                                               entry-point group
    store(factory=pkg.module:make):openai:gpt-4o-mini
                                               your own: a class or zero-argument factory

A store spec always ends in a model spec (`openai:…`, `anthropic:…`, a compatible URL): that model
answers every question, so no other agent spec has this shape.  `pkg.module:factory` alone stays
an agent, and is refused with this form when it names a store.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from pytest_memorybench.agents.mechanism_spec import parse_settings
from pytest_memorybench.agents.mechanisms.settings import require
from pytest_memorybench.agents.registry import (
    MECHANISMS,
    MODEL_PREFIXES,
    REFERENCE_AGENTS,
    STORES,
    unknown_prefix,
)
from pytest_memorybench.agents.vendors import VENDORS
from pytest_memorybench.core.errors import usage_error

STORE_ENTRY_POINTS = "memorybench.stores"
EQUAL_TERMS, VENDOR = "equal", "vendor"
OWN_STORE = "store"
_STORE = re.compile(r"^(?P<name>[A-Za-z][\w.-]*)(?:\((?P<settings>[^)]*)\))?:(?P<model>.+)$")
_MODEL = (*(f"{prefix}:" for prefix in MODEL_PREFIXES), "http://", "https://")
_FACTORY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


@dataclass(frozen=True)
class OwnStoreSettings:
    """Your own store: the class or zero-argument factory that makes one, as pkg.module:attribute."""

    factory: str = ""

    def __post_init__(self) -> None:
        require(
            bool(_FACTORY.match(self.factory)),
            f"give the class or factory that makes your store: store(factory=pkg.module:attribute), got"
            f" {self.factory!r}",
        )


@dataclass(frozen=True)
class StoreSpec:
    """A store's part of an agent spec: the store, its settings, the answering model's spec, and
    whether the store runs on equal terms or as its vendor's harness runs it (`profile`)."""

    name: str  # a built-in store, an entry point, or OWN_STORE
    settings: Any  # the built-in's settings dataclass, OwnStoreSettings, or None for an entry point
    model: str
    profile: str = EQUAL_TERMS


def _builtin(name: str, settings_text: str, model: str, text: str) -> StoreSpec:
    """A built-in store's spec; `profile=vendor` takes the vendor's harness settings for every
    setting the spec does not give itself."""
    kind = STORES[name].load()
    parts = [part.strip() for part in settings_text.split(",") if part.strip()]
    asked = [part.partition("=")[2].strip() for part in parts if part.partition("=")[0].strip() == "profile"]
    profile = asked[-1] if asked else EQUAL_TERMS
    if profile not in (EQUAL_TERMS, VENDOR):
        raise usage_error(
            f"--agent {text!r}: {name}: profile must be {EQUAL_TERMS} or {VENDOR}, got {profile!r}"
        )
    if profile == VENDOR and name not in VENDORS:
        raise usage_error(
            f"--agent {text!r}: {name} has no published harness to reproduce; drop profile=vendor"
            " (it runs on the equal terms)"
        )
    rest = [part for part in parts if part.partition("=")[0].strip() != "profile"]
    settings = parse_settings(name, kind.settings_type, ",".join(rest), text)
    if profile == VENDOR:
        given = {part.partition("=")[0].strip() for part in rest}
        vendor = {key: value for key, value in VENDORS[name].settings.items() if key not in given}
        try:
            settings = dataclasses.replace(settings, **vendor)
        except ValueError as exc:
            raise usage_error(f"--agent {text!r}: {name}(profile=vendor): {exc}") from None
    return StoreSpec(name, settings, model, profile)


def parse_store_spec(text: str) -> StoreSpec | None:
    """The store, its settings and its model's spec when `text` names a store, else None."""
    match = _STORE.match(text)
    if match is None or not match["model"].startswith(_MODEL):
        return None
    name, settings_text, model = match["name"], match["settings"] or "", match["model"]
    if name in MODEL_PREFIXES or name in MECHANISMS or name in REFERENCE_AGENTS:
        return None  # their own parsers say what is wrong
    if name == OWN_STORE:
        return StoreSpec(name, parse_settings(name, OwnStoreSettings, settings_text, text), model)
    if name in STORES:
        return _builtin(name, settings_text, model, text)
    installed = [entry.name for entry in entry_points(group=STORE_ENTRY_POINTS)]
    if name not in installed:
        raise usage_error(f"--agent {text!r}: {unknown_prefix(name, installed)}")
    if settings_text:
        raise usage_error(
            f"--agent {text!r}: {name} is an installed store and takes no settings here; your own store's"
            " settings are its factory's"
        )
    return StoreSpec(name, None, model)
