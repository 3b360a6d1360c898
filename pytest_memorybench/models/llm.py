"""Shared machinery of the LLM chat adapters: transcript, context trimming, retries, accounting
(the wire under them, TLS and a server's errors, is `http`).

A subclass only knows its SDK: how to build the client and send (system prompt, turns).  What a
benchmark result depends on lives here so it is the same for every provider: temperature 0, one
trimming rule, one retry policy (tenacity; the SDKs' own retries are disabled, otherwise the two
multiply), and failures reported as one line that never contains the API key.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from typing_extensions import TypedDict

from pytest_memorybench.core.errors import (
    AgentError,
    ProviderError,
    ProviderRefused,
    describe_exception,
    usage_error,
)
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Message, Usage
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.models.http import error_code, error_message, retry_after, status_phrase
from pytest_memorybench.models.limits import RateLimits
from pytest_memorybench.models.prices import context_window_for
from pytest_memorybench.models.provider_pool import price_for, serving

SYSTEM_PROMPT = "You are a helpful assistant."
LOCAL_API_KEY = "not-needed"  # compatible local servers ignore the key, but the SDKs insist on one
MESSAGE_OVERHEAD = 4  # tokens a message costs beyond its text (role, separators)
DEFAULT_OUTPUT_TOKENS = 1024  # the room for a reply, kept free of transcript when trimming

log = logging.getLogger(__name__)

Turn = dict[str, str]  # {"role": "user" | "assistant", "content": text}, the shape both APIs take

# Statuses worth another try: a timeout, a conflict, too early, a rate limit; and every 5xx.
TRANSIENT_STATUSES = frozenset({408, 409, 425, 429})


class MalformedReply(Exception):
    """A 200 that is no answer (no choices, no content, another shape): retried like an outage."""


class ToolFunction(TypedDict):
    """A function offered to a model as a tool: its name, what it does, its parameters' JSON Schema."""

    name: str
    description: str
    parameters: JsonObject


@dataclass(frozen=True)
class ToolCall:
    """A function the model asked to call (OpenAI tool calls, Anthropic tool use), its arguments
    parsed; `arguments` is None when they were not a JSON object."""

    name: str
    arguments: JsonObject | None


@dataclass(frozen=True)
class Completion:
    """One model reply; token counts are None when the server did not report usage."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    model: str | None = None  # the model the server says answered (a dated snapshot of the one asked)


@dataclass(frozen=True)
class SdkErrors:
    """The exception types of a model's SDK.  OpenAI's and Anthropic's SDKs are generated alike and
    name them alike, so `of` reads them off either module."""

    status: type[Exception]  # the server answered with an error status
    connection: type[Exception]  # no answer; in both SDKs a timeout is a kind of connection error
    timeout: type[Exception]
    validation: type[Exception]  # a 200 whose body the SDK cannot read as its type

    @classmethod
    def of(cls, sdk: ModuleType) -> SdkErrors:
        return cls(
            sdk.APIStatusError, sdk.APIConnectionError, sdk.APITimeoutError, sdk.APIResponseValidationError
        )


class LLMChatAgent(ABC):
    """A chat model as an agent: everything said so far is its memory, within its context window."""

    provider: ClassVar[str]
    api_key_variable: ClassVar[str]
    errors: ClassVar[SdkErrors]  # what its SDK raises

    def __init__(
        self,
        model: str | None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        context_tokens: int | None = None,
        timeout: float | None = 600.0,
        max_attempts: int = 6,
        min_wait: float = 1.0,
        max_wait: float = 60.0,
        max_output_tokens: int = DEFAULT_OUTPUT_TOKENS,
        limits: RateLimits | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.context_tokens = context_tokens
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.min_wait = min_wait
        self.max_wait = max_wait
        self.max_output_tokens = max_output_tokens
        self.usage = Usage()
        self.gate = serving().gate_for(
            self.provider, base_url, limits or RateLimits()
        )  # shared with every caller of the endpoint
        self._api_key = self._resolve_api_key(api_key)
        self._client: Any = self._make_client(self._api_key)
        self._owns_client = True
        self._turns: list[Turn] = []

    # -- provider hooks -------------------------------------------------------------------------

    @abstractmethod
    def _make_client(self, api_key: str) -> Any:
        """The SDK client, built with `max_retries=0`: retrying is this class's job."""

    @abstractmethod
    async def _complete(self, system: str, turns: list[Turn], **options: Any) -> Completion:
        """One API call, no retries; SDK exceptions propagate to be classified here.

        `options` are extra request fields a subclass understands (a judge's output schema)."""

    async def _discover_model(self) -> str:
        raise AgentError(f"{self.name}: no model given; name one in the agent spec")

    # -- the agent protocol ---------------------------------------------------------------------

    @property
    def name(self) -> str:
        """How errors and logs refer to this agent: the spec form, without credentials."""
        where = f"@{self.base_url}" if self.base_url else ""
        return f"{self.provider}:{self.model or '?'}{where}"

    @property
    def transcript(self) -> list[Turn]:
        """The system prompt and every turn so far, before trimming."""
        return [{"role": "system", "content": SYSTEM_PROMPT}, *(dict(turn) for turn in self._turns)]

    async def reply(self, message: Message) -> str:
        pending = {"role": "user", "content": message.text}
        turns = self._window(pending)
        completion, seconds = await self._request(turns)
        self.usage.add(self._spent(completion, SYSTEM_PROMPT, turns, seconds))
        # Only completed exchanges enter the transcript, so a failed turn leaves no dangling message.
        self._turns += [pending, {"role": "assistant", "content": completion.text}]
        return completion.text

    async def observe(self, messages: Sequence[Message]) -> None:
        """Saving mode: the turns join the transcript as if said, without paying for a reply.

        Anything not said by the assistant counts as the user's side of the conversation.
        """
        for message in messages:
            role = "assistant" if message.role == "assistant" else "user"
            self._turns.append({"role": role, "content": message.text})

    async def reset(self) -> None:
        self._turns = []

    async def fork(self) -> LLMChatAgent:
        """A copy that shares the client and the transcript so far, then diverges independently.

        Its usage starts at zero, so the costs of parallel probes add up instead of double-counting.
        """
        twin = copy.copy(self)
        twin._turns = list(self._turns)
        twin.usage = Usage()
        twin._owns_client = False
        return twin

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.close()

    # -- one call with the caller's own prompt ------------------------------------------------

    async def ask(self, system: str, turns: list[Turn], **options: Any) -> tuple[Completion, Usage]:
        """One stateless call with the caller's own system prompt and turns, retried like a reply
        and counted in `usage`; a memory system's extraction, summary, rating or answer.

        `options` are request fields the provider takes (`tool_options`)."""
        completion, seconds = await self._request(alternate(turns), system=system, **options)
        spent = self._spent(completion, system, turns, seconds)
        self.usage.add(spent)
        return completion, spent

    @classmethod
    def tool_options(cls, functions: Sequence[ToolFunction]) -> JsonObject | None:
        """The request fields offering `functions` ({name, description, parameters}) as tools;
        None where this adapter has no tool format (callers then ask for calls as JSON)."""
        return None

    # -- context ------------------------------------------------------------------------------

    def _window(self, pending: Turn) -> list[Turn]:
        """The turns to send: the new message plus as many of the newest exchanges as fit.

        The system prompt and the new message are always sent, even if alone they exceed the
        budget: the server's error then says more than a silently emptied prompt would.
        """
        counter = default_counter()

        def size(turn: Turn) -> int:
            return counter.count(turn["content"]) + MESSAGE_OVERHEAD

        budget = self.context_tokens or context_window_for(self.model)
        room = (
            budget - self.max_output_tokens - counter.count(SYSTEM_PROMPT) - MESSAGE_OVERHEAD - size(pending)
        )
        kept: list[Turn] = []
        for exchange in _exchanges_newest_first(self._turns):
            cost = sum(size(turn) for turn in exchange)
            if cost > room:
                break
            room -= cost
            kept[:0] = exchange
        return alternate([*kept, pending])

    # -- calling the API ----------------------------------------------------------------------

    async def _request(
        self, turns: list[Turn], *, system: str = SYSTEM_PROMPT, **options: Any
    ) -> tuple[Completion, float]:
        async def attempt() -> tuple[Completion, float]:
            if self.model is None:
                self.model = await self._discover_model()
            tokens = _input_tokens(system, turns) if self.gate.limits.tokens_per_minute else 0
            async with self.gate.request(tokens):
                started = time.perf_counter()
                completion = await self._complete(system, turns, **options)
                seconds = time.perf_counter() - started
            serving().note_model(f"{self.provider}:{self.model}", completion.model)
            return completion, seconds

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            retry=retry_if_exception(self._is_transient),
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            return await retrying(attempt)
        except AgentError as exc:
            raise type(exc)(self._redact(str(exc))) from None
        except Exception as exc:  # noqa: BLE001 - the SDK or a compatible server may raise anything
            if self._is_transient(exc):
                plural = "s" if self.max_attempts != 1 else ""
                line = (
                    f"{self.name}: gave up after {self.max_attempts} attempt{plural}: {self._describe(exc)}"
                )
                raise ProviderError(self._redact(line)) from None
            if isinstance(exc, self.errors.status):
                line = (
                    f"{self.name}: {self._describe(exc)}; not retried, so the run stops before more is spent"
                )
                raise ProviderRefused(self._redact(line)) from None
            raise ProviderError(self._redact(f"{self.name}: {self._describe(exc)}")) from None

    def _is_transient(self, exc: BaseException) -> bool:
        """An outage a later attempt can get past: a dropped or cut connection, a timeout, a 408,
        409, 425, 429 or 5xx (whatever its body), or a 200 whose body is no answer."""
        if isinstance(
            exc, (self.errors.connection, MalformedReply, json.JSONDecodeError, self.errors.validation)
        ):
            return True
        if isinstance(exc, self.errors.status):
            status: int = exc.status_code  # type: ignore[attr-defined]
            if error_code(exc.body) == "insufficient_quota":  # type: ignore[attr-defined]
                return False  # a 429 that waiting will not fix
            return status in TRANSIENT_STATUSES or status >= 500
        return False

    def _wait(self, state: RetryCallState) -> float:
        """The server's Retry-After when it gives one, else exponential backoff with jitter.

        Jitter keeps parallel workers that failed together from retrying together.
        """
        assert state.outcome is not None
        error = state.outcome.exception()
        hinted = retry_after(error)
        if hinted is None:
            hinted = self.min_wait * 2 ** (state.attempt_number - 1) + random.uniform(0, self.min_wait)
        wait = min(hinted, self.max_wait)
        status = getattr(error, "status_code", None)
        if status == 429:
            self.gate.pause(wait)  # the limit is the endpoint's: every conversation waits, not just this one
        elif status == 503 or isinstance(error, self.errors.timeout):
            self.gate.push_back()  # overloaded: under --mb-concurrency auto, fewer at once
        return wait

    def _log_retry(self, state: RetryCallState) -> None:
        assert state.outcome is not None and state.next_action is not None
        log.info(
            "%s: %s; attempt %d of %d failed, retrying in %.2f s",
            self.name,
            self._redact(self._describe(state.outcome.exception())),
            state.attempt_number,
            self.max_attempts,
            state.next_action.sleep,
        )

    def _describe(self, exc: BaseException | None) -> str:
        if isinstance(exc, self.errors.timeout):
            return f"request timed out after {self.timeout:g} s" if self.timeout else "request timed out"
        if isinstance(exc, self.errors.connection):
            url = str(self._client.base_url).rstrip("/")
            cause = exc.__cause__
            if cause is not None and "connect" not in type(cause).__name__.lower():
                return f"the connection to {url} broke ({describe_exception(cause)})"  # dropped or cut short
            return f"cannot connect to {url}"
        if isinstance(exc, MalformedReply):
            return str(exc)
        if isinstance(exc, json.JSONDecodeError):
            return f"a reply that is not JSON ({exc.msg}, character {exc.pos})"
        if isinstance(exc, self.errors.status):
            status: int = exc.status_code  # type: ignore[attr-defined]
            reason = exc.response.reason_phrase or status_phrase(status)  # type: ignore[attr-defined]
            line = f"HTTP {status} {reason}".rstrip()
            if status == 401:
                return f"the API key was rejected ({line}); check {self.api_key_variable} or api_key="
            detail = error_message(exc.body)  # type: ignore[attr-defined]
            return f"{line}: {detail}" if detail else line
        return describe_exception(exc) if exc else "unknown error"

    # -- bookkeeping --------------------------------------------------------------------------

    def _spent(self, completion: Completion, system: str, turns: list[Turn], seconds: float) -> Usage:
        input_tokens, output_tokens = token_usage(completion, system, turns)
        price = price_for(self.model)
        cost = price.cost(input_tokens, output_tokens) if price else 0.0
        return Usage(input_tokens, output_tokens, seconds, cost, calls=1)

    def _resolve_api_key(self, explicit: str | None) -> str:
        key = explicit or os.environ.get(self.api_key_variable)
        if key:
            return key
        if self.base_url:
            return LOCAL_API_KEY
        raise usage_error(
            f"{self.name}: {self.api_key_variable} is not set; export it, pass api_key=, or point "
            f"the agent at a compatible server with {self.provider}:MODEL@URL"
        )

    def _redact(self, text: str) -> str:
        """Servers sometimes echo the key they rejected; it must not reach logs or reports."""
        if not self._api_key or len(self._api_key) < 8:  # a placeholder ("not-needed", "x") is no secret
            return text
        return text.replace(self._api_key, "[api key]")


def _input_tokens(system: str, turns: list[Turn]) -> int:
    counter = default_counter()
    return counter.count(system) + sum(counter.count(turn["content"]) + MESSAGE_OVERHEAD for turn in turns)


def served_model(response: Any) -> str | None:
    """The `model` a response names (OpenAI's and Anthropic's both do): the snapshot that answered,
    which may be a dated version of the name asked for, or another model a router chose."""
    model = getattr(response, "model", None)
    return model if isinstance(model, str) and model else None


def not_an_answer(response: Any) -> str:
    """What a server sent instead of an answer, quoted briefly (an HTML error page, broken JSON)."""
    text = " ".join(str(response).split())
    return repr(text[:80] + ("…" if len(text) > 80 else ""))


def token_usage(completion: Completion, system: str, turns: list[Turn]) -> tuple[int, int]:
    """Tokens in and out as the server reported them, or as we count them when it did not."""
    counter = default_counter()
    input_tokens = completion.input_tokens
    if input_tokens is None:
        input_tokens = counter.count(system) + sum(counter.count(turn["content"]) for turn in turns)
    output_tokens = completion.output_tokens
    if output_tokens is None:
        output_tokens = counter.count(completion.text)
    return input_tokens, output_tokens


def _exchanges_newest_first(turns: list[Turn]) -> Iterator[list[Turn]]:
    """Group turns so that trimming never keeps an answer without the message it answers."""
    index = len(turns) - 1
    while index >= 0:
        if turns[index]["role"] == "assistant" and index > 0 and turns[index - 1]["role"] == "user":
            yield turns[index - 1 : index + 1]
            index -= 2
        else:
            yield turns[index : index + 1]
            index -= 1


def alternate(turns: list[Turn]) -> list[Turn]:
    """Start with a user turn and alternate roles, as Anthropic requires.

    Observed turns can break the pattern (two user messages in a row, or an exchange cut in
    half by trimming); neighbours with the same role are merged and leading answers dropped.
    """
    result: list[Turn] = []
    for turn in turns:
        if not result and turn["role"] != "user":
            continue
        if result and result[-1]["role"] == turn["role"]:
            result[-1] = {"role": turn["role"], "content": f"{result[-1]['content']}\n\n{turn['content']}"}
        else:
            result.append(dict(turn))
    return result
