"""The OpenAI and Anthropic adapters, through the real SDK clients, against a local server."""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import pytest_asyncio

from pytest_memorybench.agents.agent_build import build_agent, check_agent_spec
from pytest_memorybench.agents.spec import parse_agent_spec
from pytest_memorybench.core.errors import AgentError, ProviderRefused, UsageError
from pytest_memorybench.core.records import Message
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.models.anthropic import AnthropicAgent
from pytest_memorybench.models.http import probe_server, retry_after, shared_tls
from pytest_memorybench.models.llm import (
    MESSAGE_OVERHEAD,
    SYSTEM_PROMPT,
    LLMChatAgent,
)
from pytest_memorybench.models.openai import OpenAIChatAgent, is_reasoning_model
from pytest_memorybench.models.prices import PRICES, context_window_for, price_for
from tests.support.llm_server import LLMServer, anthropic_message, chat_completion

SECRET = "sk-test-0123456789abcdef"
FAST = {"min_wait": 0.01, "max_wait": 0.1, "timeout": 5.0, "max_attempts": 3}
CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"

Factory = Callable[..., LLMChatAgent]


def said(text: str, role: str = "user") -> Message:
    return Message(text, datetime(2024, 1, 1, 12, 0), role)  # type: ignore[arg-type]


def sent_messages(server: LLMServer) -> list[dict[str, str]]:
    return server.requests[-1].body["messages"]


@pytest.fixture(autouse=True)
def no_keys_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


@pytest_asyncio.fixture
async def make(llm_server: LLMServer) -> AsyncIterator[Factory]:
    """Builds agents of either provider pointed at the server, and closes them afterwards."""
    made: list[LLMChatAgent] = []

    def factory(provider: str = "openai", model: str | None = "fake-model", **settings: Any) -> LLMChatAgent:
        options = {"api_key": SECRET, **FAST, **settings}
        if provider == "openai":
            agent: LLMChatAgent = OpenAIChatAgent(model, base_url=llm_server.openai_url, **options)
        else:
            agent = AnthropicAgent(model, base_url=llm_server.url, **options)
        made.append(agent)
        return agent

    yield factory
    for agent in made:
        await agent.aclose()


# -- a successful turn --------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_reply_returns_text_and_grows_transcript(make: Factory, provider: str) -> None:
    agent = make(provider)
    assert await agent.reply(said("hello there")) == "echo: hello there"
    assert await agent.reply(said("again")) == "echo: again"
    assert [turn["role"] for turn in agent.transcript] == ["system", "user", "assistant", "user", "assistant"]
    assert agent.transcript[0]["content"] == SYSTEM_PROMPT


@pytest.mark.asyncio
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_usage_comes_from_the_servers_counts(make: Factory, provider: str) -> None:
    agent = make(provider)
    await agent.reply(said("hello there"))
    # The server counts words: 5 in the system prompt + 2 sent; 3 in "echo: hello there".
    assert (agent.usage.input_tokens, agent.usage.output_tokens, agent.usage.calls) == (7, 3, 1)
    assert agent.usage.seconds > 0
    assert agent.usage.cost_usd == 0  # an unknown model is free


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("provider", "model"), [("openai", "gpt-4o-mini"), ("anthropic", "claude-haiku-4-5-20251001")]
)
async def test_known_models_are_priced(make: Factory, provider: str, model: str) -> None:
    agent = make(provider, model)
    await agent.reply(said("hello there"))
    price = price_for(model)
    assert price is not None
    assert agent.usage.cost_usd == pytest.approx(price.cost(7, 3))
    assert agent.usage.cost_usd > 0


@pytest.mark.parametrize(
    ("model", "price", "window"),
    [
        ("gpt-4o-mini-2024-07-18", PRICES["gpt-4o-mini"], 128_000),
        ("gpt-4.1-nano", PRICES["gpt-4.1-nano"], 1_047_576),
        ("claude-sonnet-4-5-20250929", PRICES["claude-sonnet-4-5"], 200_000),
        ("gpt-5.5", None, 128_000),  # another generation, not a gpt-5 snapshot
        ("claude-opus-4-8", None, 200_000),
        ("llama3", None, 128_000),
    ],
)
def test_model_tables_match_snapshots_but_not_other_generations(
    model: str, price: object, window: int
) -> None:
    assert price_for(model) == price
    assert context_window_for(model) == window


@pytest.mark.asyncio
async def test_usage_is_estimated_when_the_server_omits_it(make: Factory, llm_server: LLMServer) -> None:
    llm_server.queue(body=chat_completion("fake-model", "four score and seven", usage=None))
    agent = make()
    await agent.reply(said("hello there"))
    counter = default_counter()
    assert agent.usage.input_tokens == counter.count(SYSTEM_PROMPT) + counter.count("hello there")
    assert agent.usage.output_tokens == counter.count("four score and seven")


@pytest.mark.asyncio
async def test_openai_request_is_deterministic_and_bounded(make: Factory, llm_server: LLMServer) -> None:
    await make(max_output_tokens=77).reply(said("hi"))
    request = llm_server.requests[-1]
    assert request.path == CHAT
    assert request.body["temperature"] == 0
    assert request.body["max_tokens"] == 77
    assert request.body["model"] == "fake-model"
    assert request.body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert request.headers["authorization"] == f"Bearer {SECRET}"


@pytest.mark.asyncio
async def test_anthropic_request_has_system_apart_and_no_sampling_parameters(
    make: Factory, llm_server: LLMServer
) -> None:
    await make("anthropic", max_output_tokens=77).reply(said("hi"))
    request = llm_server.requests[-1]
    assert request.path == MESSAGES
    assert request.body["system"] == SYSTEM_PROMPT
    assert request.body["messages"] == [{"role": "user", "content": "hi"}]
    assert request.body["max_tokens"] == 77
    assert "temperature" not in request.body  # API version 2026-10-21 rejects it (see the module)
    assert SECRET in request.headers.get("x-api-key", "") + request.headers.get("authorization", "")


@pytest.mark.asyncio
@pytest.mark.parametrize("model", ["o3", "o4-mini", "o1", "gpt-5", "gpt-5-mini-2025-08-07"])
async def test_reasoning_models_get_their_own_request(
    make: Factory, llm_server: LLMServer, model: str
) -> None:
    await make(model=model).reply(said("hi"))
    assert llm_server.requests[-1].body == {
        "model": model,
        "messages": [{"role": "developer", "content": SYSTEM_PROMPT}, {"role": "user", "content": "hi"}],
        "max_completion_tokens": 16_384,  # room for the reasoning; no temperature, no max_tokens
    }


@pytest.mark.asyncio
async def test_o1_mini_takes_the_system_prompt_in_the_first_user_message(
    make: Factory, llm_server: LLMServer
) -> None:
    await make(model="o1-mini", max_output_tokens=500).reply(said("hi"))
    assert llm_server.requests[-1].body == {
        "model": "o1-mini",
        "messages": [{"role": "user", "content": f"{SYSTEM_PROMPT}\n\nhi"}],
        "max_completion_tokens": 500,
    }


@pytest.mark.parametrize(
    ("model", "reasoning"),
    [
        ("o3", True),
        ("o3-2025-04-16", True),
        ("o4-mini", True),
        ("gpt-5.1", True),
        ("gpt-5-nano", True),
        ("gpt-5-chat-latest", False),
        ("gpt-4o", False),
        ("omni-large", False),
        ("o30", False),
    ],
)
def test_which_models_reason(model: str, reasoning: bool) -> None:
    assert is_reasoning_model(model) is reasoning


@pytest.mark.asyncio
async def test_reasoning_tokens_are_output_tokens_and_priced_so(make: Factory, llm_server: LLMServer) -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 900,
        "total_tokens": 1000,
        "completion_tokens_details": {"reasoning_tokens": 880},
    }
    llm_server.queue(body=chat_completion("o4-mini", "Teal.", usage))
    agent = make(model="o4-mini")
    await agent.reply(said("What is my favourite colour?"))
    assert (agent.usage.input_tokens, agent.usage.output_tokens) == (100, 900)
    assert agent.usage.cost_usd == pytest.approx((100 * 1.10 + 900 * 4.40) / 1e6)


@pytest.mark.asyncio
async def test_anthropic_extended_thinking_request(make: Factory, llm_server: LLMServer) -> None:
    body = anthropic_message("claude-test-thinker", "", {"input_tokens": 12, "output_tokens": 300})
    body["content"] = [
        {"type": "thinking", "thinking": "The user said teal.", "signature": "sig"},
        {"type": "text", "text": "Teal."},
    ]
    llm_server.queue(body=body)
    agent = make("anthropic", model="claude-test-thinker", max_output_tokens=1000, thinking_tokens=2048)
    assert await agent.reply(said("hi")) == "Teal."
    sent = llm_server.requests[-1].body
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert sent["max_tokens"] == 3048 and "temperature" not in sent
    assert agent.usage.output_tokens == 300  # thinking included, as Anthropic counts it


# -- retries --------------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"retry-after-ms": "30"}, "0.03"),
        ({"Retry-After": "0.05"}, "0.05"),
        ({"Retry-After": "120"}, "0.10"),  # capped by max_wait
    ],
)
async def test_rate_limit_waits_as_the_server_asks(
    make: Factory, llm_server: LLMServer, caplog: pytest.LogCaptureFixture, headers: dict[str, str], wait: str
) -> None:
    caplog.set_level(logging.INFO, logger="pytest_memorybench.models.llm")
    llm_server.queue(429, headers=headers)
    assert await make().reply(said("hi")) == "echo: hi"
    assert len(llm_server.requests) == 2
    assert f"HTTP 429 Too Many Requests: scripted HTTP 429; attempt 1 of 3 failed, retrying in {wait} s" in (
        caplog.text
    )


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # a date in the past: go now
        ({"retry-after": "soon"}, None),
    ],
)
def test_retry_after_headers(headers: dict[str, str], expected: float | None) -> None:
    failure = SimpleNamespace(response=SimpleNamespace(headers=headers))
    assert retry_after(failure) == expected  # type: ignore[arg-type]


@pytest.mark.asyncio
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_server_error_is_retried(make: Factory, llm_server: LLMServer, provider: str) -> None:
    llm_server.queue(500)
    assert await make(provider).reply(said("hi")) == "echo: hi"
    assert len(llm_server.requests) == 2


@pytest.mark.asyncio
async def test_gives_up_after_max_attempts_with_one_line(make: Factory, llm_server: LLMServer) -> None:
    llm_server.queue(503, times=3)
    agent = make()
    with pytest.raises(AgentError) as excinfo:
        await agent.reply(said("hi"))
    assert str(excinfo.value) == (
        f"openai:fake-model@{llm_server.openai_url}: gave up after 3 attempts: "
        "HTTP 503 Service Unavailable: scripted HTTP 503"
    )
    assert excinfo.value.__cause__ is None and excinfo.value.__suppress_context__
    assert len(llm_server.requests) == 3
    assert len(agent.transcript) == 1  # the failed turn left nothing behind


@pytest.mark.asyncio
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_rejected_key_is_not_retried_nor_shown(
    make: Factory, llm_server: LLMServer, provider: str
) -> None:
    llm_server.queue(401, body={"error": {"type": "authentication_error", "message": f"bad key {SECRET}"}})
    with pytest.raises(ProviderRefused, match="API key was rejected") as excinfo:
        await make(provider).reply(said("hi"))
    assert len(llm_server.requests) == 1
    assert SECRET not in str(excinfo.value)


@pytest.mark.asyncio
async def test_client_errors_fail_at_once_and_redact_the_key(make: Factory, llm_server: LLMServer) -> None:
    error = {"type": "invalid_request_error", "message": f"cannot use {SECRET} here"}
    llm_server.queue(400, body={"error": error})
    with pytest.raises(ProviderRefused) as excinfo:
        await make().reply(said("hi"))
    assert str(excinfo.value).endswith(
        "HTTP 400 Bad Request: cannot use [api key] here; not retried, so the run stops before more is spent"
    )
    assert len(llm_server.requests) == 1


@pytest.mark.asyncio
async def test_exhausted_quota_is_not_retried(make: Factory, llm_server: LLMServer) -> None:
    error = {
        "type": "insufficient_quota",
        "code": "insufficient_quota",
        "message": "You exceeded your quota.",
    }
    llm_server.queue(429, body={"error": error}, times=3)
    with pytest.raises(
        ProviderRefused, match="HTTP 429 Too Many Requests: You exceeded your quota.; not retried"
    ):
        await make().reply(said("hi"))
    assert len(llm_server.requests) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_timeouts_are_retried_then_reported(
    make: Factory, llm_server: LLMServer, provider: str
) -> None:
    llm_server.queue(delay=2.0, times=2)
    with pytest.raises(AgentError, match=r"gave up after 2 attempts: request timed out after 0.3 s$"):
        await make(provider, timeout=0.3, max_attempts=2).reply(said("hi"))
    assert len(llm_server.requests) == 2


@pytest.mark.asyncio
async def test_unreachable_server_is_a_connection_error() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    agent = OpenAIChatAgent("fake-model", base_url=url, max_attempts=2, min_wait=0.01, max_wait=0.01)
    with pytest.raises(AgentError, match=f"gave up after 2 attempts: cannot connect to {url}$"):
        await agent.reply(said("hi"))
    await agent.aclose()


# -- context ------------------------------------------------------------------------------------


def size(text: str) -> int:
    return default_counter().count(text) + MESSAGE_OVERHEAD


@pytest.mark.asyncio
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_context_keeps_the_newest_exchanges_that_fit(
    make: Factory, llm_server: LLMServer, provider: str
) -> None:
    pairs = [(f"fact number {i} is about item {i}", f"noted fact {i}") for i in range(1, 4)]
    newest = "what was fact two"
    # Room for the system prompt, the new message, the reply reserve and two pairs, not three.
    budget = 10 + size(SYSTEM_PROMPT) + size(newest) + sum(size(u) + size(a) for u, a in pairs[1:]) + 2
    agent = make(provider, context_tokens=budget, max_output_tokens=10)
    await agent.observe(
        [said(text, role) for pair in pairs for text, role in zip(pair, ("user", "assistant"), strict=True)]
    )
    await agent.reply(said(newest))
    sent = [m["content"] for m in sent_messages(llm_server)]
    expected = [pairs[1][0], pairs[1][1], pairs[2][0], pairs[2][1], newest]
    assert sent == ([SYSTEM_PROMPT, *expected] if provider == "openai" else expected)
    assert len(agent.transcript) == 1 + 6 + 2  # trimming only shapes the request


@pytest.mark.asyncio
async def test_new_message_is_sent_even_when_it_alone_exceeds_the_budget(
    make: Factory, llm_server: LLMServer
) -> None:
    agent = make(context_tokens=5)
    await agent.observe([said("old"), said("older reply", "assistant")])
    await agent.reply(said("a message far longer than the budget allows"))
    assert [m["role"] for m in sent_messages(llm_server)] == ["system", "user"]


@pytest.mark.asyncio
async def test_anthropic_messages_start_with_user_and_alternate(make: Factory, llm_server: LLMServer) -> None:
    agent = make("anthropic")
    await agent.observe(
        [
            said("stray answer", "assistant"),
            said("one"),
            said("two"),
            said("reply", "assistant"),
            said("three"),
        ]
    )
    await agent.reply(said("four"))
    assert sent_messages(llm_server) == [
        {"role": "user", "content": "one\n\ntwo"},
        {"role": "assistant", "content": "reply"},
        {"role": "user", "content": "three\n\nfour"},
    ]


@pytest.mark.asyncio
async def test_trimming_keeps_question_and_answer_together(make: Factory, llm_server: LLMServer) -> None:
    question, answer, newest = "tell me a long story about dragons", "once upon a time", "thanks"
    budget = 10 + size(SYSTEM_PROMPT) + size(newest) + size(answer) + 1  # the answer fits, its question not
    agent = make("anthropic", context_tokens=budget, max_output_tokens=10)
    await agent.observe([said(question), said(answer, "assistant")])
    await agent.reply(said(newest))
    assert sent_messages(llm_server) == [{"role": "user", "content": newest}]


# -- conversation state ----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_observe_adds_turns_without_calling_the_model(make: Factory, llm_server: LLMServer) -> None:
    agent = make()
    await agent.observe([said("my cat is called Tom"), said("nice", "assistant")])
    assert llm_server.requests == []
    assert agent.usage.calls == 0
    await agent.reply(said("what is my cat called"))
    assert [m["content"] for m in sent_messages(llm_server)][1:] == [
        "my cat is called Tom",
        "nice",
        "what is my cat called",
    ]


@pytest.mark.asyncio
async def test_reset_forgets_the_conversation(make: Factory, llm_server: LLMServer) -> None:
    agent = make()
    await agent.reply(said("remember 42"))
    await agent.reset()
    assert len(agent.transcript) == 1
    await agent.reply(said("what number"))
    assert [m["role"] for m in sent_messages(llm_server)] == ["system", "user"]


@pytest.mark.asyncio
async def test_fork_shares_the_past_and_diverges(make: Factory, llm_server: LLMServer) -> None:
    parent = make()
    await parent.reply(said("remember 42"))
    child = await parent.fork()
    await child.reply(said("child question"))
    await parent.reply(said("parent question"))
    assert [t["content"] for t in child.transcript[1:]] == [
        "remember 42",
        "echo: remember 42",
        "child question",
        "echo: child question",
    ]
    assert [t["content"] for t in parent.transcript[-2:]] == ["parent question", "echo: parent question"]
    assert "child question" not in [t["content"] for t in parent.transcript]
    assert (parent.usage.calls, child.usage.calls) == (2, 1)
    await child.aclose()  # a fork must not close the client it shares
    assert await parent.reply(said("still there")) == "echo: still there"


# -- model discovery, keys, probing, specs -----------------------------------------------------------


@pytest.mark.asyncio
async def test_bare_url_discovers_the_model(make: Factory, llm_server: LLMServer) -> None:
    agent = make(model=None)
    assert await agent.reply(said("hi")) == "echo: hi"
    assert [request.path for request in llm_server.requests] == ["/v1/models", CHAT]
    assert llm_server.requests[-1].body["model"] == "fake-model"
    assert agent.name == f"openai:fake-model@{llm_server.openai_url}"


@pytest.mark.asyncio
async def test_bare_url_without_models_says_so(make: Factory, llm_server: LLMServer) -> None:
    llm_server.queue(body={"object": "list", "data": []}, path="/v1/models")
    with pytest.raises(AgentError, match="the server lists no models; name one with openai:MODEL@URL"):
        await make(model=None).reply(said("hi"))
    assert llm_server.requests_to(CHAT) == []


@pytest.mark.asyncio
async def test_local_server_needs_no_key(llm_server: LLMServer) -> None:
    agent = OpenAIChatAgent("fake-model", base_url=llm_server.openai_url)
    await agent.reply(said("hi"))
    await agent.aclose()
    assert llm_server.requests[-1].headers["authorization"] == "Bearer not-needed"


@pytest.mark.parametrize(
    ("agent_class", "variable"), [(OpenAIChatAgent, "OPENAI_API_KEY"), (AnthropicAgent, "ANTHROPIC_API_KEY")]
)
def test_missing_key_for_the_real_api_is_a_usage_error(
    agent_class: type[LLMChatAgent], variable: str
) -> None:
    with pytest.raises(UsageError, match=f"{variable} is not set"):
        agent_class("some-model")


def test_probe_lists_models_or_accepts_any_http_answer(llm_server: LLMServer) -> None:
    assert probe_server(llm_server.openai_url, "spec") == ["fake-model"]
    assert probe_server(llm_server.url, "spec") == []  # 404: no OpenAI /models, but the server is up


def test_probe_accepts_a_server_too_busy_to_answer_in_time(llm_server: LLMServer) -> None:
    """A local server still working on a killed run's request takes the connection and answers late."""
    llm_server.queue(delay=2.0, path="/v1/models")
    assert probe_server(llm_server.openai_url, "spec", timeout=0.5) == []


def test_probe_of_a_closed_port_is_a_usage_error() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    expected = f"^--agent x: cannot reach {url}/models .*; start the server or fix the URL$"
    with pytest.raises(UsageError, match=expected):
        probe_server(url, "x", timeout=1.0)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "spec_text",
    [
        "openai:fake-model@{openai_url}",
        "{openai_url}",
        "anthropic:fake-model@{url}",
        "anthropic:fake-model@{openai_url}",  # a trailing /v1 is accepted too
    ],
)
async def test_agent_specs_build_working_agents(llm_server: LLMServer, spec_text: str) -> None:
    spec = parse_agent_spec(spec_text.format(url=llm_server.url, openai_url=llm_server.openai_url))
    check_agent_spec(spec)
    agent = build_agent(spec)
    try:
        assert await agent.reply(said("hello")) == "echo: hello"
        assert agent.capabilities == ["observe", "reset", "fork"]
        assert agent.usage.input_tokens == 6 and agent.usage.output_tokens == 2
    finally:
        await agent.aclose()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_shared_tls_context_trusts_ssl_cert_file_else_certifi(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built from the standard library, it fits httpx- and httpx2-based SDKs alike, and trusts what
    httpx would: the bundle SSL_CERT_FILE names when set, certifi's otherwise."""
    import ssl

    import certifi

    first = certifi.contents().split("-----END CERTIFICATE-----")[0] + "-----END CERTIFICATE-----\n"
    bundle = tmp_path / "one.pem"
    bundle.write_text(first)
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    own = shared_tls.__wrapped__()
    assert len(own.get_ca_certs()) == 1 and own.verify_mode == ssl.CERT_REQUIRED
    monkeypatch.delenv("SSL_CERT_FILE")
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    assert len(shared_tls.__wrapped__().get_ca_certs()) > 100  # certifi's whole bundle
