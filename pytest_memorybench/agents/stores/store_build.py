"""Making the store a spec names, checking it works before any test, and the agent around it.

The health check runs before the first test, in a scratch namespace: add a sentence, wait, search
for it, clear.  A store that cannot do that (down, misconfigured, indexing nothing) stops the run
in one line naming the call that failed, instead of turning every item into a plausible zero.
"""

from __future__ import annotations

import inspect
import socket
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.loading import import_target, load_entry_point
from pytest_memorybench.agents.mechanisms.model import MemoryModel
from pytest_memorybench.agents.registry import MECHANISMS, STORES, listed, load_target
from pytest_memorybench.agents.spec import MEMORY_TOKENS
from pytest_memorybench.agents.store_spec import OWN_STORE, STORE_ENTRY_POINTS, VENDOR
from pytest_memorybench.agents.stores.memory import StoreMemory, StoreSettings, new_namespace
from pytest_memorybench.agents.stores.store_protocol import StoreClient, StoreError
from pytest_memorybench.agents.vendors import VENDORS
from pytest_memorybench.core.blocking import run_blocking
from pytest_memorybench.core.errors import describe_exception, usage_error
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.mechanisms.base import MemorySystem
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec
    from pytest_memorybench.models.llm import LLMChatAgent

HEALTH_SENTENCE = "The harbour lighthouse of Quillmere is painted teal and amber."
HEALTH_QUERY = "What colours is the Quillmere lighthouse painted?"
_HEALTH_WORD = "quillmere"


def make_store(spec: AgentSpec, options: AgentOptions) -> Any:
    """A new store object for `spec`: a built-in made from its settings, or the user's."""
    assert spec.store is not None
    name = spec.store.name
    if name in STORES:
        assert spec.model_spec is not None
        return STORES[name].load().make(spec.store.settings, options, spec.model_spec)
    if name == OWN_STORE:
        target = spec.store.settings.factory
        factory = import_target(target, spec.text, f"no module {target.partition(':')[0]!r} to import")
    else:
        factory = load_entry_point(
            STORE_ENTRY_POINTS,
            name,
            spec.text,
            f"{name!r} is not a built-in store ({listed(STORES)}), a mechanism ({listed(MECHANISMS)}) or"
            f" an installed '{STORE_ENTRY_POINTS}' entry point; your own: store(factory=pkg.mod:make):MODEL",
        )
    if not callable(factory) or (callable(getattr(factory, "search", None)) and not inspect.isclass(factory)):
        return factory  # a store object itself, not what makes one
    try:
        return factory()
    except Exception as exc:  # noqa: BLE001 - the user's code may raise anything
        raise usage_error(
            f"--agent {spec.text}: creating the store failed: {describe_exception(exc)}"
        ) from None


def store_client(spec: AgentSpec, options: AgentOptions) -> StoreClient:
    """The harness's client of a new store for `spec`; one line when the object is no store."""
    assert spec.store is not None
    store = make_store(spec, options)
    name = spec.store.settings.factory if spec.store.name == OWN_STORE else spec.store.name
    try:
        return StoreClient(store, name, timeout=options.timeout)
    except StoreError as exc:
        raise usage_error(f"--agent {spec.text}: {exc}") from None


def build_store_memory(spec: AgentSpec, options: AgentOptions, answerer: LLMChatAgent) -> MemorySystem:
    """The agent: a new store, in a namespace of its own, answered by `answerer` (the spec's model);
    or the store's own agent where its settings ask for one (MCP's agent mode)."""
    assert spec.store is not None
    model = MemoryModel(answerer)
    kind = STORES[spec.store.name].load() if spec.store.name in STORES else None
    if kind is not None and kind.agent is not None and getattr(spec.store.settings, "mode", "") == "agent":
        agent: MemorySystem = load_target(kind.agent)(model, make_store(spec, options), spec.store.settings)
        return agent
    return StoreMemory(model, store_client(spec, options), store_terms(spec, options))


def store_terms(spec: AgentSpec, options: AgentOptions) -> StoreSettings:
    """The equal terms (`--mb-k`, `--mb-context-tokens`), or the vendor's harness's k and context
    where the spec asks for `profile=vendor` (a cap given on the command line caps it too)."""
    assert spec.store is not None
    if spec.store.profile != VENDOR:
        return StoreSettings(k=options.k, memory_tokens=options.memory_tokens or MEMORY_TOKENS)
    vendor = VENDORS[spec.store.name]
    return StoreSettings(
        k=vendor.k or options.k,
        memory_tokens=options.memory_tokens or vendor.memory_tokens or MEMORY_TOKENS,
        profile=VENDOR,
    )


def check_store(spec: AgentSpec, options: AgentOptions) -> None:
    """The health check: add, wait, search, clear in a scratch namespace; one line if any fails."""
    client = store_client(spec, options)
    # A store whose search covers only what it chose to keep (Letta's agent with ingest=messages)
    # says so with `keeps_every_message = False`.
    remembers = spec.target != "none" and getattr(client.store, "keeps_every_message", True)
    problem = run_blocking(_health(client, remembers=remembers))
    if problem:
        raise usage_error(f"--agent {spec.text}: the store failed its check before the run: {problem}")


UNREACHABLE = "is its server running there? start it, or give the store its url=… (docs/stores.md)"


def unreachable(error: BaseException) -> bool:
    """Whether a connection was refused or a host not found somewhere in `error`'s chain: each SDK
    wraps the socket's own error its own way (httpx, aiohttp as a cause; requests in its arguments,
    whose context a retry's re-raise replaces)."""
    seen: set[int] = set()
    waiting: list[BaseException] = [error]
    while waiting:
        current = waiting.pop()
        if id(current) in seen:
            continue
        if isinstance(current, (ConnectionError, socket.gaierror)):
            return True
        seen.add(id(current))
        linked = [current.__cause__, current.__context__, *current.args, getattr(current, "reason", None)]
        waiting += [each for each in linked if isinstance(each, BaseException)]
    return False


async def _health(client: StoreClient, *, remembers: bool) -> str | None:
    namespace = f"{new_namespace()}-check"
    message = Message(HEALTH_SENTENCE, datetime.now(), "user", 0)
    try:
        await client.clear(namespace)
        await client.add([message], namespace)
        await client.wait(namespace)
        hits = await client.search(HEALTH_QUERY, namespace, 10)
        await client.clear(namespace)
    except StoreError as exc:
        return f"{exc}; {UNREACHABLE}" if unreachable(exc) else str(exc)
    finally:
        try:
            await client.close()
        except Exception as exc:  # noqa: BLE001
            return f"close() raised {describe_exception(exc)}"
    if remembers and not any(_HEALTH_WORD in hit.text.lower() for hit in hits):
        found = f"{len(hits)} hits, none about it" if hits else "nothing"
        return (
            f"search() found {found} for a sentence just added ({HEALTH_SENTENCE!r}); check that it indexes"
            " what add() is given, and that wait() returns once it has"
        )
    return None
