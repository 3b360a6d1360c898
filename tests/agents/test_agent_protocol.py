"""`AgentAdapter`: one async face for every shape of agent, its errors and its usage accounting."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from pytest_memorybench.agents import agent_protocol
from pytest_memorybench.agents.agent_protocol import CAPABILITIES, Agent, AgentAdapter
from pytest_memorybench.agents.reference.null import NullAgent
from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.core.errors import AgentError
from pytest_memorybench.core.records import Message, Usage
from pytest_memorybench.core.tokens import ApproximateCounter

WHEN = datetime(2024, 5, 17, 9, 30)


def msg(text: str) -> Message:
    return Message(text, WHEN)


class WordCounter:
    """A deterministic stand-in for the default token counter (tiktoken may need the network)."""

    name = "test:words"

    def count(self, text: str) -> int:
        return len(text.split())


@pytest.fixture(autouse=True)
def offline_counter(monkeypatch: pytest.MonkeyPatch) -> WordCounter:
    counter = WordCounter()
    monkeypatch.setattr(agent_protocol, "default_counter", lambda: counter)
    return counter


# --- agent shapes -------------------------------------------------------------------------------


class AsyncEcho:
    def __init__(self) -> None:
        self.seen: list[Message] = []

    async def reply(self, message: Message) -> str:
        self.seen.append(message)
        return f"async:{message.text}"


class SyncEcho:
    def __init__(self) -> None:
        self.seen: list[Message] = []

    def reply(self, message: Message) -> str:
        self.seen.append(message)
        return f"sync:{message.text}@{message.timestamp:%H:%M}"


class FullSync:
    """Every optional capability, implemented synchronously."""

    def __init__(self) -> None:
        self.observed: list[str] = []
        self.resets = 0

    def reply(self, message: Message) -> str:
        return "ok"

    def observe(self, messages: list[Message]) -> None:
        self.observed.extend(m.text for m in messages)

    def reset(self) -> None:
        self.resets += 1
        self.observed.clear()

    def retrieve(self, query: str, k: int) -> tuple[str, ...]:
        return tuple(f"{query}#{i}" for i in range(k))

    def context(self) -> tuple[str, ...]:
        return tuple(self.observed[-1:])

    def fork(self) -> FullSync:
        copy = FullSync()
        copy.observed = list(self.observed)
        return copy


class FullAsync:
    """Every optional capability, implemented asynchronously."""

    def __init__(self) -> None:
        self.observed: list[str] = []
        self.resets = 0

    async def reply(self, message: Message) -> str:
        return "ok"

    async def observe(self, messages: list[Message]) -> None:
        self.observed.extend(m.text for m in messages)

    async def reset(self) -> None:
        self.resets += 1
        self.observed.clear()

    async def retrieve(self, query: str, k: int) -> list[str]:
        return [o for o in self.observed if query in o][:k]

    async def fork(self) -> FullAsync:
        copy = FullAsync()
        copy.observed = list(self.observed)
        return copy


@pytest.mark.asyncio
async def test_async_object() -> None:
    agent = AsyncEcho()
    adapter = AgentAdapter(agent, "echo")
    assert await adapter.reply(msg("hello")) == "async:hello"
    assert agent.seen == [msg("hello")]
    assert isinstance(agent, Agent)


@pytest.mark.asyncio
async def test_sync_object_receives_the_message() -> None:
    agent = SyncEcho()
    adapter = AgentAdapter(agent, "echo")
    assert await adapter.reply(msg("hello")) == "sync:hello@09:30"
    assert len(agent.seen) == 1
    assert isinstance(agent.seen[0], Message)
    assert agent.seen[0].timestamp == WHEN


@pytest.mark.asyncio
async def test_sync_function_receives_the_text() -> None:
    received: list[object] = []

    def shout(text: str) -> str:
        received.append(text)
        return text.upper()

    adapter = AgentAdapter(shout, "shout")
    assert await adapter.reply(msg("where is my hat")) == "WHERE IS MY HAT"
    assert received == ["where is my hat"]


@pytest.mark.asyncio
async def test_async_function_receives_the_text() -> None:
    async def reverse(text: str) -> str:
        await asyncio.sleep(0)
        return text[::-1]

    adapter = AgentAdapter(reverse, "reverse")
    assert await adapter.reply(msg("abc")) == "cba"


@pytest.mark.asyncio
async def test_sync_function_returning_an_awaitable_is_awaited() -> None:
    async def later(text: str) -> str:
        return f"later {text}"

    adapter = AgentAdapter(lambda text: later(text), "lambda")
    assert await adapter.reply(msg("x")) == "later x"


def test_target_without_reply_and_not_callable_is_rejected() -> None:
    with pytest.raises(AgentError, match="agent 'thing' has no reply"):
        AgentAdapter(object(), "thing")


# --- capabilities ---------------------------------------------------------------------------------


def test_capabilities_detected_by_presence() -> None:
    assert CAPABILITIES == ("observe", "reset", "retrieve", "context", "fork", "catch_up", "stored")
    assert AgentAdapter(AsyncEcho(), "a").capabilities == []
    assert AgentAdapter(lambda text: text, "f").capabilities == []
    assert AgentAdapter(FullSync(), "s").capabilities == ["observe", "reset", "retrieve", "context", "fork"]
    assert AgentAdapter(FullAsync(), "s").capabilities == ["observe", "reset", "retrieve", "fork"]
    assert AgentAdapter(OracleAgent(), "oracle").capabilities == ["reset"]
    assert AgentAdapter(NullAgent(), "null").capabilities == []


def test_non_callable_attribute_is_not_a_capability() -> None:
    class Odd(AsyncEcho):
        observe = "not a method"
        reset = None

    adapter = AgentAdapter(Odd(), "odd")
    assert not adapter.supports("observe")
    assert not adapter.supports("reset")
    assert adapter.capabilities == []


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", [FullSync, FullAsync])
async def test_optional_methods_delegate(kind: type) -> None:
    agent = kind()
    adapter = AgentAdapter(agent, "full", timeout=5)
    await adapter.observe((msg("red apple"), msg("green pear")))
    assert agent.observed == ["red apple", "green pear"]

    hits = await adapter.retrieve("red" if kind is FullAsync else "q", 2)
    assert isinstance(hits, list)
    assert hits == (["red apple"] if kind is FullAsync else ["q#0", "q#1"])
    if kind is FullSync:
        assert await adapter.context() == ["green pear"]  # a tuple from a sync method, as a list

    forked = await adapter.fork()
    assert isinstance(forked, AgentAdapter)
    assert forked.name == "full"
    assert forked.timeout == 5
    assert isinstance(forked.target, kind)
    assert forked.target is not agent
    assert forked.target.observed == ["red apple", "green pear"]
    await forked.observe([msg("only in fork")])
    assert "only in fork" not in agent.observed

    await adapter.reset()
    assert agent.resets == 1
    assert agent.observed == []
    assert forked.target.observed == ["red apple", "green pear", "only in fork"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("call", "capability"),
    [
        (lambda a: a.observe([msg("x")]), "observe"),
        (lambda a: a.retrieve("x", 3), "retrieve"),
        (lambda a: a.fork(), "fork"),
    ],
)
async def test_missing_capability_raises_agent_error(call, capability: str) -> None:
    adapter = AgentAdapter(AsyncEcho(), "plain")
    with pytest.raises(AgentError, match=rf"^agent plain does not implement {capability}\(\)$"):
        await call(adapter)


@pytest.mark.asyncio
async def test_reset_without_capability_is_a_no_op() -> None:
    adapter = AgentAdapter(AsyncEcho(), "plain")
    assert await adapter.reset() is None


@pytest.mark.asyncio
async def test_optional_method_failure_is_one_line_agent_error() -> None:
    class Bad(AsyncEcho):
        def retrieve(self, query: str, k: int) -> list[str]:
            raise LookupError("index\n  missing")

    adapter = AgentAdapter(Bad(), "bad")
    with pytest.raises(AgentError) as excinfo:
        await adapter.retrieve("q", 1)
    text = str(excinfo.value)
    assert text == "agent bad: retrieve() raised LookupError: index missing"
    assert "\n" not in text


@pytest.mark.asyncio
async def test_optional_method_timeout() -> None:
    class SlowObserver(AsyncEcho):
        async def observe(self, messages: list[Message]) -> None:
            await asyncio.sleep(1)

    adapter = AgentAdapter(SlowObserver(), "slow", timeout=0.05)
    with pytest.raises(AgentError, match=r"agent slow: observe\(\) took longer than 0\.05 s"):
        await adapter.observe([msg("x")])


# --- failures of reply ----------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("sync", [True, False])
async def test_agent_exception_becomes_one_line_agent_error(sync: bool) -> None:
    if sync:

        def boom(text: str) -> str:
            raise ValueError("boom")

    else:

        async def boom(text: str) -> str:
            raise ValueError("boom")

    adapter = AgentAdapter(boom, "my-agent")
    with pytest.raises(AgentError) as excinfo:
        await adapter.reply(msg("hi"))
    text = str(excinfo.value)
    assert text == "agent my-agent raised ValueError: boom"
    assert "\n" not in text
    assert isinstance(excinfo.value.__cause__, ValueError)
    assert adapter.usage == Usage()  # nothing accounted for a failed turn


@pytest.mark.asyncio
async def test_multiline_exception_message_is_flattened() -> None:
    class Noisy:
        async def reply(self, message: Message) -> str:
            raise RuntimeError("first line\n  second   line\n")

    with pytest.raises(AgentError) as excinfo:
        await AgentAdapter(Noisy(), "noisy").reply(msg("hi"))
    assert str(excinfo.value) == "agent noisy raised RuntimeError: first line second line"


@pytest.mark.asyncio
async def test_agent_error_from_the_agent_passes_through_unchanged() -> None:
    async def gives_up(text: str) -> str:
        raise AgentError("retries exhausted after 3 attempts")

    with pytest.raises(AgentError, match=r"^retries exhausted after 3 attempts$"):
        await AgentAdapter(gives_up, "x").reply(msg("hi"))


@pytest.mark.asyncio
async def test_timeout() -> None:
    class Sleepy:
        async def reply(self, message: Message) -> str:
            await asyncio.sleep(1)
            return "too late"

    adapter = AgentAdapter(Sleepy(), "sleepy", timeout=0.05)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(AgentError) as excinfo:
        await adapter.reply(msg("hi"))
    assert loop.time() - started < 0.9
    assert str(excinfo.value) == "agent sleepy gave no reply within 0.05 s"


@pytest.mark.asyncio
@pytest.mark.parametrize(("value", "type_name"), [(None, "NoneType"), (42, "int"), (["a"], "list")])
async def test_non_string_reply_is_an_agent_error(value: object, type_name: str) -> None:
    adapter = AgentAdapter(lambda text: value, "weird")
    with pytest.raises(AgentError) as excinfo:
        await adapter.reply(msg("hi"))
    assert str(excinfo.value) == f"agent weird returned {type_name}, expected str"


@pytest.mark.asyncio
async def test_agent_own_timeout_error_without_adapter_timeout() -> None:
    async def flaky(text: str) -> str:
        raise TimeoutError("read timed out")

    with pytest.raises(AgentError, match="agent flaky raised TimeoutError: read timed out"):
        await AgentAdapter(flaky, "flaky", timeout=None).reply(msg("hi"))


@pytest.mark.asyncio
async def test_agent_own_timeout_error_is_not_reported_as_harness_timeout() -> None:
    async def flaky(text: str) -> str:
        raise TimeoutError("read timed out")

    with pytest.raises(AgentError, match="agent flaky raised TimeoutError: read timed out"):
        await AgentAdapter(flaky, "flaky", timeout=600).reply(msg("hi"))


# --- usage accounting -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_usage_estimated_with_the_default_counter() -> None:
    async def slow_echo(text: str) -> str:
        await asyncio.sleep(0.01)
        return "one two three four five"

    adapter = AgentAdapter(slow_echo, "echo")
    await adapter.reply(msg("alpha beta"))
    await adapter.reply(msg("gamma delta epsilon"))
    usage = adapter.usage
    assert usage.calls == 2
    assert usage.input_tokens == 2 + 3
    assert usage.output_tokens == 5 + 5
    assert usage.cost_usd == 0.0
    assert usage.seconds >= 0.02


@pytest.mark.asyncio
async def test_usage_estimate_with_the_approximate_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_protocol, "default_counter", ApproximateCounter)
    adapter = AgentAdapter(lambda text: "Fine, thanks!", "f")
    await adapter.reply(msg("How are you?"))
    # "How are you ?" -> 4 pieces; "Fine , thanks !" -> 4 pieces.
    assert (adapter.usage.input_tokens, adapter.usage.output_tokens, adapter.usage.calls) == (4, 4, 1)
    assert adapter.usage.seconds > 0


class MeteredAgent:
    """An agent that keeps its own `usage`, as the LLM adapters do."""

    def __init__(self) -> None:
        # Usage from before the adapter existed must not be counted.
        self.usage = Usage(input_tokens=1_000, output_tokens=500, seconds=86_400.0, cost_usd=1.0, calls=4)

    async def reply(self, message: Message) -> str:
        await asyncio.sleep(0.01)
        self.usage.input_tokens += 120
        self.usage.output_tokens += 7
        self.usage.cost_usd += 0.25
        return "a reply of many many words that the counter must not see"


@pytest.mark.asyncio
async def test_usage_taken_from_the_agents_own_usage(offline_counter: WordCounter) -> None:
    adapter = AgentAdapter(MeteredAgent(), "metered")
    await adapter.reply(msg("hello"))
    await adapter.reply(msg("hello again"))
    usage = adapter.usage
    assert usage.calls == 2
    assert usage.input_tokens == 240
    assert usage.output_tokens == 14
    assert usage.cost_usd == pytest.approx(0.5)
    assert 0.02 <= usage.seconds < 86_400  # measured by the adapter, not the agent's own day


@pytest.mark.asyncio
async def test_usage_attribute_of_another_type_falls_back_to_the_estimate() -> None:
    class Dicty:
        usage = {"input_tokens": 999}

        async def reply(self, message: Message) -> str:
            return "two words"

    adapter = AgentAdapter(Dicty(), "dicty")
    await adapter.reply(msg("three words here"))
    assert (adapter.usage.input_tokens, adapter.usage.output_tokens) == (3, 2)


class SummarisingMemory(MeteredAgent):
    """Observing calls a model to summarise what it is told, and says what that cost."""

    async def observe(self, messages: list[Message]) -> None:
        await asyncio.sleep(0.01)
        self.usage.input_tokens += 50 * len(messages)
        self.usage.cost_usd += 0.01


class SilentMemory:
    async def reply(self, message: Message) -> str:
        return "ok"

    async def observe(self, messages: list[Message]) -> None:
        await asyncio.sleep(0.01)


@pytest.mark.asyncio
async def test_observing_costs_what_the_agent_reports_and_its_time_but_is_no_call() -> None:
    adapter = AgentAdapter(SummarisingMemory(), "summarising")
    await adapter.observe([msg("one fact"), msg("noted")])
    usage = adapter.usage
    assert (usage.input_tokens, usage.output_tokens, usage.calls) == (100, 0, 0)
    assert usage.cost_usd == pytest.approx(0.01) and usage.seconds >= 0.01

    silent = AgentAdapter(SilentMemory(), "silent")
    await silent.observe([msg("a long message of many words that nobody counts")])
    assert (silent.usage.input_tokens, silent.usage.calls, silent.usage.cost_usd) == (0, 0, 0)
    assert silent.usage.seconds >= 0.01, "the time it took is still the agent's"


# --- prime_answer and close -----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_prime_answer_reaches_the_oracle_once() -> None:
    adapter = AgentAdapter(OracleAgent(), "oracle")
    assert await adapter.reply(msg("My favourite colour is Red.")) == "Noted."
    await adapter.prime_answer("Red")
    assert await adapter.reply(msg("What is my favourite colour?")) == "Red"
    assert await adapter.reply(msg("And now?")) == "Noted."


@pytest.mark.asyncio
async def test_oracle_reset_drops_a_primed_answer() -> None:
    adapter = AgentAdapter(OracleAgent(), "oracle")
    await adapter.prime_answer("Blue")
    await adapter.reset()
    assert await adapter.reply(msg("What is my favourite colour?")) == "Noted."


@pytest.mark.asyncio
async def test_prime_answer_is_skipped_for_agents_without_it() -> None:
    agent = AsyncEcho()
    adapter = AgentAdapter(agent, "echo")
    assert not adapter.supports("prime_answer")
    assert await adapter.prime_answer("Red") is None
    assert await adapter.reply(msg("q")) == "async:q"

    calls: list[str] = []
    adapter = AgentAdapter(lambda text: calls.append(text) or "ok", "f")
    await adapter.prime_answer("Red")
    assert calls == []


@pytest.mark.asyncio
async def test_sync_prime_answer_is_called() -> None:
    class SyncOracle:
        primed: str | None = None

        def prime_answer(self, ideal: str) -> None:
            self.primed = ideal

        def reply(self, message: Message) -> str:
            return self.primed or "?"

    adapter = AgentAdapter(SyncOracle(), "so")
    await adapter.prime_answer("Green")
    assert await adapter.reply(msg("q")) == "Green"


@pytest.mark.asyncio
async def test_aclose_prefers_aclose_then_close() -> None:
    events: list[str] = []

    class Both(AsyncEcho):
        async def aclose(self) -> None:
            events.append("aclose")

        def close(self) -> None:
            events.append("close")

    class OnlyClose(AsyncEcho):
        def close(self) -> None:
            events.append("close")

    await AgentAdapter(Both(), "b").aclose()
    await AgentAdapter(OnlyClose(), "c").aclose()
    await AgentAdapter(AsyncEcho(), "n").aclose()
    assert events == ["aclose", "close"]
