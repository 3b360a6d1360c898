"""The agent protocol and the adapter that gives every kind of agent one async face.

Users hand us many shapes: an async object, a sync object, a plain `str -> str` function.  The
scheduler should not care, so `AgentAdapter` wraps them all, discovers the optional capabilities
by presence, measures latency, and turns any failure into an `AgentError` with one readable line.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from pytest_memorybench.agents.deadlines import HarnessTimeout, call_maybe_async, within
from pytest_memorybench.core.errors import AgentError, describe_exception
from pytest_memorybench.core.records import Message, Usage
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.models.concurrency import AdaptiveLimit

if TYPE_CHECKING:
    from pytest_memorybench.agents.stores.figures import StoreFigures
    from pytest_memorybench.models.budget import Budget

CAPABILITIES = ("observe", "reset", "retrieve", "context", "fork", "catch_up", "stored")
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_REPLY_CHARS = 100_000  # about 25k tokens: longer than any answer a memory test asks for
T = TypeVar("T")


@runtime_checkable
class Agent(Protocol):
    """The system under test.  Only `reply` is required.

    Optional methods, used when present (sync or async):
      observe(messages: list[Message]) -> None   ingest turns without replying (saves model calls)
      reset() -> None                            start a new conversation
      retrieve(query: str, k: int) -> list[str]  expose memory, for recall@k
      context() -> list[str]                     the memories the last reply's prompt held, for
                                                 context recall (each an item as it was shown)
      fork() -> Agent                            an independent copy sharing what was ingested
      edit(message: Message, workspace) -> str   act on a task's files through the workspace's
                                                 tools (read, list, grep, write, run_tests, log)
                                                 instead of answering with the file (sdebench)
    An agent may also keep a `usage: Usage` attribute; the harness then reports its tokens and
    cost instead of estimating them.
    """

    def reply(self, message: Message) -> Any: ...


class AgentAdapter:
    """Uniform async wrapper around a user's agent object or reply function."""

    def __init__(
        self, target: Any, name: str, *, timeout: float | None = None, budget: Budget | None = None
    ) -> None:
        if callable(target) and not hasattr(target, "reply"):
            function = target
            self._reply: Callable[..., Any] = lambda message: call_maybe_async(function, message.text)
        elif hasattr(target, "reply"):
            self._reply = lambda message: call_maybe_async(target.reply, message)
        else:
            raise AgentError(f"agent {name!r} has no reply() method and is not callable")
        self.target = target
        self.name = name
        self.timeout = timeout
        self.budget = budget  # the run's spending, checked before each call and charged after
        self.usage = Usage()
        self.reply_seconds: list[float] = []  # each reply's latency, for the run's p50 and p95
        # A memory system's spending by phase (write: taking a message in; read: answering), when
        # the agent keeps `phase_usage`; a fork adds to its parent's.
        self.memory_usage: dict[str, Usage] | None = (
            {phase: Usage() for phase in target.phase_usage}
            if isinstance(getattr(target, "phase_usage", None), dict)
            else None
        )
        # A memory store's ingest, search and context figures (agents/stores/figures.py); a fork
        # shares its parent's.
        self.store_figures: StoreFigures | None = getattr(target, "store_figures", None)
        self.last_reply_cut: int | None = None  # the length of the last reply, when it was cut
        self.limit: AdaptiveLimit | None = (
            None  # replies at once, measured (your agent under --mb-concurrency auto)
        )

    def supports(self, capability: str) -> bool:
        return callable(getattr(self.target, capability, None))

    @property
    def capabilities(self) -> list[str]:
        return [name for name in CAPABILITIES if self.supports(name)]

    async def reply(self, message: Message) -> str:
        return await self._answer(self._reply, message)

    async def edit(self, message: Message, workspace: Any) -> str:
        """Hand an agent that edits files a task's `workspace` with `message`; timed, budgeted and
        accounted as a reply is (the harness reads the edited files from the workspace after)."""
        return await self._answer(lambda said: call_maybe_async(self.target.edit, said, workspace), message)

    async def _answer(self, answering: Callable[[Message], Awaitable[Any]], message: Message) -> str:
        if self.budget is not None:
            self.budget.check()
        if self.limit is not None:
            await self.limit.acquire()
        before = _usage_snapshot(self.target)
        phases = self._phases()
        started = time.perf_counter()
        answered = False
        try:
            result = await within(answering(message), self.timeout)
            answered = True
        except AgentError:
            raise
        except HarnessTimeout:
            raise AgentError(f"agent {self.name} gave no reply within {self.timeout:g} s") from None
        except Exception as exc:  # noqa: BLE001 - user code may raise anything
            raise AgentError(f"agent {self.name} raised {describe_exception(exc)}") from exc
        finally:
            if self.limit is not None:
                self.limit.release(answered)
        elapsed = time.perf_counter() - started
        self.reply_seconds.append(elapsed)
        if not isinstance(result, str):
            raise AgentError(f"agent {self.name} returned {type(result).__name__}, expected str")
        result, self.last_reply_cut = bounded_reply(result)
        self._account(before, elapsed, message.text, result)
        self._count_phases(phases)
        return result

    async def observe(self, messages: Sequence[Message]) -> None:
        """Hand the agent messages to take in.  Costs the time it takes and what the agent reports
        in its `usage` (a memory that summarises with a model pays for it here); nothing is
        estimated, as observing is no model call unless the agent makes one.  Not a call: `calls`
        counts replies."""
        await self._take_in("observe", messages)

    async def catch_up(self, history: Sequence[Message]) -> None:
        """A resumed run's exchanges before the cut (user, then the agent's logged reply), for the
        agent to rebuild its state: its own `catch_up` when it has one (a memory system redoes
        what its replies changed), else `observe`.  Charged as observing is."""
        await self._take_in("catch_up" if self.supports("catch_up") else "observe", history)

    async def _take_in(self, method: str, messages: Sequence[Message]) -> None:
        if self.budget is not None:
            self.budget.check()
        before = _usage_snapshot(self.target)
        phases = self._phases()
        started = time.perf_counter()
        await self._optional(method, list(messages))
        spent = _reported(before, self.target) or Usage()
        spent.seconds = time.perf_counter() - started
        self._add(spent)
        self._count_phases(phases)

    async def reset(self) -> None:
        if self.supports("reset"):
            await self._optional("reset")

    async def take_stock(self) -> list[str] | None:
        """At a conversation's end, before its figures are kept: every memory the agent holds, where
        it can list them (`stored()`: a store's listing, which it also counts, or a mechanism's own
        memory); None for an agent that cannot."""
        if not self.supports("stored"):
            return None
        texts = await call_maybe_async(self.target.stored)
        return None if texts is None else [str(text) for text in texts]

    async def retrieve(self, query: str, k: int) -> list[str]:
        return list(await self._optional("retrieve", query, k))

    async def context(self) -> list[str]:
        """What the agent says its last reply was given: the memories its prompt held."""
        return [str(item) for item in await self._optional("context")]

    async def fork(self) -> AgentAdapter:
        twin = AgentAdapter(await self._optional("fork"), self.name, timeout=self.timeout, budget=self.budget)
        if self.memory_usage is not None and twin.memory_usage is not None:
            twin.memory_usage = self.memory_usage
        return twin

    async def prime_answer(self, ideal: str) -> None:
        """Tell a calibration agent (oracle) the ideal answer to the question about to be asked.

        Real agents never implement `prime_answer`; the harness calls it only when present.
        """
        if self.supports("prime_answer"):
            await call_maybe_async(self.target.prime_answer, ideal)

    async def prime_evidence(self, question: str, evidence: Sequence[str]) -> None:
        """Tell a store that answers with a question's labelled evidence (`gold`) what that is, before
        the question is searched for; real agents never implement it."""
        if evidence and self.supports("prime_evidence"):
            await call_maybe_async(self.target.prime_evidence, question, list(evidence))

    async def answer_for(self, suite: str, asked_at: datetime | None = None) -> None:
        """Tell an agent that answers with a suite's own prompt (a memory store, as the comparison
        harnesses do for LoCoMo and LongMemEval) which suite the next question is from, and when it
        is asked on the simulated clock (for a product that searches as of a date)."""
        if self.supports("answer_for"):
            await call_maybe_async(self.target.answer_for, suite, asked_at)

    async def aclose(self) -> None:
        close = getattr(self.target, "aclose", None) or getattr(self.target, "close", None)
        if callable(close):
            await call_maybe_async(close)

    async def _optional(self, capability: str, *args: Any) -> Any:
        if not self.supports(capability):
            raise AgentError(f"agent {self.name} does not implement {capability}()")
        try:
            return await within(call_maybe_async(getattr(self.target, capability), *args), self.timeout)
        except HarnessTimeout:
            raise AgentError(
                f"agent {self.name}: {capability}() took longer than {self.timeout:g} s"
            ) from None
        except AgentError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise AgentError(f"agent {self.name}: {capability}() raised {describe_exception(exc)}") from exc

    def _account(self, before: Usage | None, elapsed: float, sent: str, received: str) -> None:
        delta = _reported(before, self.target)
        if delta is None:
            counter = default_counter()
            delta = Usage(input_tokens=counter.count(sent), output_tokens=counter.count(received))
        delta.seconds = elapsed
        delta.calls = 1
        self._add(delta)

    def _phases(self) -> dict[str, Usage] | None:
        if self.memory_usage is None:
            return None
        return {phase: dataclasses.replace(usage) for phase, usage in self.target.phase_usage.items()}

    def _count_phases(self, before: dict[str, Usage] | None) -> None:
        if before is None or self.memory_usage is None:
            return
        for phase, usage in self.target.phase_usage.items():
            self.memory_usage.setdefault(phase, Usage()).add(usage - before.get(phase, Usage()))

    def _add(self, spent: Usage) -> None:
        self.usage.add(spent)
        if self.budget is not None:
            self.budget.charge(spent.cost_usd)


def bounded_reply(text: str) -> tuple[str, int | None]:
    """A reply the run can log, score and show: at most MAX_REPLY_CHARS, and valid Unicode.

    A runaway agent (a loop, a dumped buffer) may answer with megabytes: kept whole, three such
    replies would make a report of hundreds of megabytes.  The second value is the original length
    when the reply was cut.  Lone surrogates (bytes decoded with `surrogateescape`) cannot be
    written as UTF-8 and become U+FFFD.
    """
    cut = len(text) if len(text) > MAX_REPLY_CHARS else None
    if cut is not None:
        text = text[:MAX_REPLY_CHARS]
    if not text.isascii():
        text = _SURROGATE.sub("\ufffd", text)
    return text, cut


def _usage_snapshot(target: Any) -> Usage | None:
    usage = getattr(target, "usage", None)
    if isinstance(usage, Usage):
        return Usage(usage.input_tokens, usage.output_tokens, usage.seconds, usage.cost_usd, usage.calls)
    return None


def _reported(before: Usage | None, target: Any) -> Usage | None:
    """The tokens and cost the agent's own `usage` grew by since `before`; None if it keeps none."""
    after = _usage_snapshot(target)
    if before is None or after is None:
        return None
    return Usage(
        input_tokens=after.input_tokens - before.input_tokens,
        output_tokens=after.output_tokens - before.output_tokens,
        cost_usd=after.cost_usd - before.cost_usd,
    )
