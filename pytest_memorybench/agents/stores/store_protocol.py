"""The memory-store protocol: a memory product or your own store behind a handful of calls.

    add(messages, namespace)       take messages in; each a `Message` (text, role, simulated
                                   timestamp, id, session); one call never holds two sessions
    search(query, namespace, k)    a list of texts, or of hits (text, optional score, timestamp and
                                   validity), or one `Context` (a product that answers with a
                                   packed text, Memobase's profile and events); a store whose
                                   search takes `asked_at` gets the question's simulated time
    clear(namespace)               forget everything in the namespace
    wait(namespace)                optional: return once what was added can be found (indexing
                                   that finishes later); its time counts as ingest time
    answer(question, namespace)    optional: the store answers itself (an agent framework), and
                                   the harness does not answer for it; an `answer` that takes
                                   `instructions` gets what the harness's prompt would tell a
                                   model: the question's simulated date and the suite's instructions
    answer_aside(question, ns)     optional, with `answer`: answer a probe's question so that it
                                   leaves no trace (the product's own fork of the conversation),
                                   for suites whose questions must not see each other
    stored(namespace)              optional: the texts of every memory the namespace holds (the
                                   product's list or dump call), counted, and its duplicates, at a
                                   conversation's end, and matched against each question's evidence
                                   (never stored / stored but not found, `conversation/written.py`);
                                   None where this store cannot list them
    messages_per_add               optional attribute, the most messages one `add` may carry
                                   (the product's limit, or 1 for a product that takes one at a time)
    keeps_every_message            optional attribute, False where search holds only what the
                                   store chose to keep (the health check then finds nothing amiss
                                   in an empty search)
    server_version                 optional attribute, the version the product's service says it
                                   runs (an MCP server's initialisation), recorded with the run

Methods may be sync or async.  `StoreClient` makes the calls for the harness: a sync method runs in
a thread so a slow store never blocks the run, each call is bounded by `--mb-timeout`, a failure
is retried a few times (stores fail transiently: a busy index, a dropped connection), and what
still fails is a `StoreError`, which makes the item an ERROR with no score: an indexing or search
failure must never read as a low score.

The harness, not the store, cuts what it adds into calls: one session a call (products date an add
by one time, and their own harnesses add a session at a time), at most `messages_per_add` messages
a call.  Each call is retried on its own, so a failure part-way through re-sends only the part that
failed, never what the store already holds; a store loops inside an `add` at its peril.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_exponential

from pytest_memorybench.agents.deadlines import HarnessTimeout, call_maybe_async, within
from pytest_memorybench.agents.stores.dates import sessions
from pytest_memorybench.core.errors import AgentError, describe_exception
from pytest_memorybench.core.records import Message
from pytest_memorybench.models.http import retry_after

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

# A store's own bugs, and a refused key (a product's adapter raises PermissionError), which no
# retry mends: fail at once.
_PERMANENT = (TypeError, AttributeError, NameError, NotImplementedError, ImportError, PermissionError)


class StoreError(AgentError):
    """A store's add, wait, search or clear failed after its retries: the item errors, unscored."""

    kind = "store"


_STAMPED = re.compile(r"\[\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}")
_WORDS = re.compile(r"\w")


@dataclass(frozen=True)
class Validity:
    """When a fact held, as a product that tracks facts over time says (Zep's and Graphiti's edges):
    from `since`, until `until`, which is None while it still holds."""

    since: datetime | None = None
    until: datetime | None = None

    def __str__(self) -> str:
        since = f"{self.since:%Y-%m-%d}" if self.since else "?"
        return f"valid {since} → {self.until:%Y-%m-%d}" if self.until else f"valid {since} → present"


@dataclass(frozen=True)
class Hit:
    """One memory a search found: its text, and the score, time and validity the store gives, if any.
    `timestamp` is when the memory was said; `about`, the date of the event it tells of, where the
    product resolved one (Supermemory's `eventDate`): not the same, and never printed as the same."""

    text: str
    score: float | None = None
    timestamp: datetime | None = None
    validity: Validity | None = None
    # A line of a `Context` the store answered with: the harness keeps a context's lines in order
    # within the token cap, never cuts them to k, and counts the context as one search result.
    context: bool = False
    about: datetime | None = None

    @property
    def line(self) -> str:
        """The hit as the answering prompt shows it, in one bracket before the text: the time it was
        said (unlabelled: the prompts resolve "yesterday" against it), the date of its event labelled
        `about`, and for a fact the time it held (`valid … → …`: a superseded fact must not read as
        current).  A text that comes stamped already (a product storing `[time] role: text` lines)
        keeps its own stamp."""
        stamped = self.timestamp and not _STAMPED.match(self.text)
        stamp = [f"{self.timestamp:%Y-%m-%d %H:%M}"] if stamped else []
        stamp += [f"about {self.about:%Y-%m-%d}"] if self.about else []
        stamp += [str(self.validity)] if self.validity else []
        return f"[{'; '.join(stamp)}] {self.text}" if stamp else self.text


@dataclass(frozen=True)
class Context:
    """A search answered with one text rather than hits: a product that packs its memories into a
    context of its own (Memobase's profile and events, already sized by its own token budget).
    The harness shows it as the product wrote it, a line of the prompt a line of it, and caps it
    by tokens as it caps hits (its first lines kept); k does not cut it."""

    text: str

    def hits(self) -> list[Hit]:
        """Its lines that say something (a rule `---` or an empty list's `- ` says nothing)."""
        return [Hit(line, context=True) for line in self.text.splitlines() if _WORDS.search(line)]


@runtime_checkable
class MemoryStore(Protocol):
    """What a store implements (sync or async); `wait` and `answer` are optional."""

    def add(self, messages: list[Message], namespace: str) -> Any: ...

    def search(self, query: str, namespace: str, k: int) -> Any: ...

    def clear(self, namespace: str) -> Any: ...


@dataclass(frozen=True)
class BuiltinStore:
    """A store the registry names: its settings (`STORE(SETTING=VALUE):MODEL`) and how to make one
    from them, the run's agent options (its embedder) and the answering model's spec (a product
    with a model of its own is pointed at the same one)."""

    settings_type: type
    make: Callable[[Any, AgentOptions, AgentSpec], Any]
    # The agent to run instead of the harness's answering when the settings say `mode=agent` (MCP's
    # agent mode): "module:attribute" below pytest_memorybench.agents, as the registry names
    # classes, of a MemorySystem made from (model, store, settings).
    agent: str | None = None


_TEXT_KEYS = ("text", "memory", "content", "document", "page_content")


def server_asked_wait(failure: BaseException | None) -> float | None:
    """Seconds a refusal asked the client to wait: an HTTP `Retry-After` on the error's response, or
    the `retry_after` an SDK keeps in its error (Mem0's `debug_info`)."""
    asked = retry_after(failure)
    info = getattr(failure, "debug_info", None)
    if asked is None and isinstance(info, dict) and isinstance(info.get("retry_after"), int | float):
        asked = float(info["retry_after"])
    return asked


def as_hit(found: Any) -> Hit:
    """A search result as a `Hit`: a text, a Hit, a mapping or an object with one of the usual text
    fields (`text`, `memory` as Mem0 names it, `content`, …) and optionally `score` / `timestamp`."""
    if isinstance(found, Hit):
        return found
    if isinstance(found, str):
        return Hit(found)

    def get(key: str) -> Any:
        return found.get(key) if isinstance(found, dict) else getattr(found, key, None)

    text = next((value for value in map(get, _TEXT_KEYS) if isinstance(value, str)), None)
    if text is None:
        raise TypeError(f"a search result needs a text ({', '.join(_TEXT_KEYS)}); got {found!r:.80}")
    score, timestamp = get("score"), get("timestamp")
    return Hit(
        text,
        float(score) if isinstance(score, int | float) else None,
        timestamp if isinstance(timestamp, datetime) else None,
    )


class StoreClient:
    """The harness's side of a store: one async face, bounded calls, retries and one-line errors."""

    def __init__(
        self, store: Any, name: str, *, timeout: float | None = 600.0, attempts: int = 3, backoff: float = 0.5
    ) -> None:
        missing = [
            method for method in ("add", "search", "clear") if not callable(getattr(store, method, None))
        ]
        if missing:
            lacks = ", ".join(f"{method}()" for method in missing)
            raise StoreError(
                f"store {name} has no {lacks}: a store implements add(messages, namespace),"
                " search(query, namespace, k) and clear(namespace)"
            )
        self.store = store
        self.name = name
        self._takes_question_time = "asked_at" in inspect.signature(store.search).parameters
        self._answering: dict[str, asyncio.Lock] = {}
        self.timeout = timeout
        self.attempts = attempts
        self.backoff = backoff

    def has(self, method: str) -> bool:
        """Whether the store implements an optional method (`wait`, `answer`)."""
        return callable(getattr(self.store, method, None))

    @property
    def answers(self) -> bool:
        """Whether the store answers questions itself."""
        return self.has("answer")

    async def add(self, messages: Sequence[Message], namespace: str) -> None:
        """The messages a session at a time, in parts of at most the store's `messages_per_add`."""
        most = getattr(self.store, "messages_per_add", None) or len(messages) or 1
        for session in sessions(messages):
            for start in range(0, len(session), most):
                await self._call("add", session[start : start + most], namespace)

    async def wait(self, namespace: str) -> None:
        if self.has("wait"):
            await self._call("wait", namespace)

    async def search(self, query: str, namespace: str, k: int, asked_at: datetime | None = None) -> list[Hit]:
        dated = asked_at is not None and self._takes_question_time
        found = await (
            self._call("search", query, namespace, k, asked_at=asked_at)
            if dated
            else self._call("search", query, namespace, k)
        )
        if isinstance(found, Context):
            return found.hits()
        if isinstance(found, dict) and isinstance(found.get("results"), list):
            found = found["results"]  # {"results": [...]}, as Mem0 and several products answer
        if found is None:
            return []
        try:
            return [as_hit(item) for item in found]
        except TypeError as exc:
            raise StoreError(
                f"store {self.name}: search() returned what is not a list of hits: {exc}"
            ) from None

    async def answer(
        self, question: str, namespace: str, *, aside: bool = False, instructions: str = ""
    ) -> str:
        """The store's own answer; `aside`, a probe's, which must leave no trace where the store can
        answer aside; `instructions` (the question's date, the suite's instructions) to a store whose
        method takes them.  Never two at once to one namespace: an agent product refuses a second send
        while it answers the first (Letta's 409)."""
        method = "answer_aside" if aside and self.has("answer_aside") else "answer"
        told = "instructions" in inspect.signature(getattr(self.store, method)).parameters
        lock = self._answering.setdefault(namespace, asyncio.Lock())
        async with lock:
            reply = await (
                self._call(method, question, namespace, instructions=instructions)
                if told
                else self._call(method, question, namespace)
            )
        if not isinstance(reply, str):
            raise StoreError(f"store {self.name}: answer() returned {type(reply).__name__}, expected str")
        return reply

    async def stored(self, namespace: str) -> list[str] | None:
        """The texts of every memory the store holds in `namespace` (a store with `stored`); None
        where it cannot list them."""
        found = await self._call("stored", namespace)
        return None if found is None else [as_hit(item).text for item in found]

    async def clear(self, namespace: str) -> None:
        await self._call("clear", namespace)

    async def close(self) -> None:
        close = getattr(self.store, "aclose", None) or getattr(self.store, "close", None)
        if callable(close):
            await call_maybe_async(close)

    def _pause(self, state: RetryCallState) -> float:
        """How long to wait before the next try: what the server asked for (`Retry-After`, Mem0's
        `retry_after`), up to `--mb-timeout`; else a short exponential backoff."""
        failure = state.outcome.exception() if state.outcome else None
        asked = server_asked_wait(failure)
        if asked is None:
            return float(wait_exponential(self.backoff, max=10)(state))
        return min(asked, self.timeout) if self.timeout else asked

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(self.attempts),
                wait=self._pause,
                retry=retry_if_exception(lambda exc: not isinstance(exc, (*_PERMANENT, HarnessTimeout))),
                reraise=True,
            ):
                with attempt:
                    call = (
                        partial(getattr(self.store, method), **kwargs)
                        if kwargs
                        else getattr(self.store, method)
                    )
                    return await within(call_maybe_async(call, *args), self.timeout)
        except HarnessTimeout:
            raise StoreError(
                f"store {self.name}: {method}() took longer than {self.timeout:g} s (--mb-timeout)"
            ) from None
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - a store may raise anything
            tries = (
                f" ({self.attempts} tries, {time.perf_counter() - started:.1f} s)"
                if self.attempts > 1
                else ""
            )
            raise StoreError(
                f"store {self.name}: {method}() raised {describe_exception(exc)}{tries}"
            ) from exc
