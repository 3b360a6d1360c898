"""What an agent answers with, for a run's record: the versions of its answering prompts and of the
memory product's packages.

The same model scores differently under another prompt, so a run records a hash of each prompt
its agent answers with, as it records the judge's (`judges/prompts.py`): the first 12 hex digits
of the sha256 of the text, by name.  The prompts are the chat adapters' system prompt
(`models/llm.py`), a memory store's answering prompts (`stores/memory.py`: one per suite that has
its own, and the heading its memories go under) and a memory mechanism's: every upper-case string
constant of its module and of `mechanisms/model.py` (the memory work's system prompt), which is
where each of them keeps its prompts.  An offline agent and your own code answer with no prompt of
ours: they record none.

A product's version is what `importlib.metadata` says of the distributions its registry entry
names (`registry.STORES`), or of the distribution named like your own store's or agent's top-level
package when one is installed, and of the answering model's SDK; the version its service
reports, where it reports one, is the store's (`server_version`, read by the run's figures).
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from types import ModuleType

from pytest_memorybench.agents.registry import STORES, load_target
from pytest_memorybench.agents.spec import LLM_PROVIDERS, AgentSpec
from pytest_memorybench.agents.store_spec import OWN_STORE
from pytest_memorybench.core.environment import distribution_version

_MECHANISMS = "pytest_memorybench.agents.mechanisms"


def text_hash(text: str) -> str:
    """The version of a prompt: the first 12 hex digits of its text's sha256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def answering_prompts(spec: AgentSpec | None) -> dict[str, str]:
    """name → hash of each prompt `spec`'s agent answers with (none for offline agents and your own)."""
    if spec is None or spec.model.kind not in LLM_PROVIDERS:
        return {}
    from pytest_memorybench.models.llm import SYSTEM_PROMPT

    texts = {"system": SYSTEM_PROMPT}
    if spec.kind == "memory" and spec.memory is not None:
        from pytest_memorybench.agents.mechanism_spec import mechanism_class

        texts.update(_constants(sys.modules[mechanism_class(spec.memory.mechanism).__module__]))
        texts.update(_constants(importlib.import_module(f"{_MECHANISMS}.model")))
    elif spec.kind == "store" and spec.store is not None:
        texts.update(_store_prompts(spec))
    return {name: text_hash(text) for name, text in sorted(texts.items())}


def _store_prompts(spec: AgentSpec) -> dict[str, str]:
    """A store's answering prompts: the harness's (`StoreMemory`), or its own agent's (MCP's agent mode)."""
    assert spec.store is not None
    kind = STORES[spec.store.name].load() if spec.store.name in STORES else None
    agent = getattr(kind, "agent", None)
    if agent is not None and getattr(spec.store.settings, "mode", "") == "agent":
        return _constants(sys.modules[load_target(agent).__module__])
    from pytest_memorybench.agents.stores import memory

    prompts = {f"store.answer.{suite}": text for suite, text in memory.ANSWER_PROMPTS.items()}
    # What a store that answers itself (Letta) is told before a question, for the same suites.
    told = {f"store.told.{suite}": text for suite, text in memory.STORE_ANSWER_PROMPTS.items()}
    return {**prompts, **told, "store.MEMORIES_HEADING": memory.MEMORIES_HEADING}


def _constants(module: ModuleType) -> dict[str, str]:
    """The upper-case string constants of a module, by `module.NAME`: where a mechanism keeps its prompts."""
    short = module.__name__.rpartition(".")[2]
    return {
        f"{short}.{name}": value
        for name, value in vars(module).items()
        if name.isupper() and not name.startswith("_") and isinstance(value, str)
    }


def product_versions(spec: AgentSpec | None) -> dict[str, str | None]:
    """distribution → installed version of what `spec`'s agent runs on: the memory product's
    packages and the answering model's SDK (None: not installed)."""
    if spec is None:
        return {}
    names: list[str] = []
    if spec.kind == "store" and spec.store is not None:
        if spec.store.name in STORES:
            names += STORES[spec.store.name].packages
        elif spec.store.name == OWN_STORE:
            names += _distributions_of(str(getattr(spec.store.settings, "factory", "")))
    elif spec.kind in ("import", "entry_point") and ":" in spec.target:
        names += _distributions_of(spec.target)
    if spec.model.kind in LLM_PROVIDERS:
        names.append(spec.model.kind)  # the openai and anthropic SDKs are distributions of those names
    return {name: distribution_version(name) for name in dict.fromkeys(names)}


def _distributions_of(target: str) -> list[str]:
    """The distribution named like the top-level package of "pkg.module:attribute", when one is
    installed (a user's own store or agent installed as a package); asking every installed
    distribution what it provides would cost a second."""
    top = target.partition(":")[0].partition(".")[0]
    return [top] if top and distribution_version(top) is not None else []
