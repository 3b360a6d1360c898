"""Shared test set-up."""

from __future__ import annotations

import asyncio
from datetime import datetime

import numpy  # noqa: F401
import pytest

from pytest_memorybench.agents.lexical import stopwords
from pytest_memorybench.core.tokens import default_counter

# Libraries with compiled parts that load once per process (numpy refuses a second load).  The
# plugin imports them on first use, and pytester's in-process inner runs take away the modules a
# run imported when it ends; so they are loaded here, before any inner run: numpy, bm25s with
# scipy.sparse, tiktoken and its encoding.
stopwords()
default_counter()


@pytest.fixture
def pytester(pytester: pytest.Pytester, _http_clients_loaded: None) -> pytest.Pytester:
    """Inner runs get an ini file setting pytest-asyncio's loop scope, as ours does: without one,
    pytest-asyncio warns in every inner run, and pytest 9.2 shows those warnings in ours.  They
    also leave out hypothesis's plugin (our fuzz tests need hypothesis, the inner runs do not): it
    imports hypothesis in every session's summary, 0.6 s for each inner run in a subprocess."""
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\naddopts = -p no:hypothesispytest\n"
    )
    return pytester


@pytest.fixture(scope="session")
def _http_clients_loaded() -> None:
    """One request through each SDK before any in-process inner run.

    pytester's in-process runs take the modules they import away again when they end.  The HTTP
    stack imports parts of itself on its first connection (anyio's backend, the transport's error
    mapping); if that first connection is made inside an inner run, the next one imports them anew,
    the SDK no longer recognises the transport's errors as its own, and a dropped connection
    surfaces raw instead of as the connection error every retry rule expects.
    """
    from pytest_memorybench.agents.models.anthropic import AnthropicAgent
    from pytest_memorybench.agents.models.openai import OpenAIChatAgent
    from pytest_memorybench.core.records import Message
    from tests.support.llm_server import LLMServer

    async def ask(server: LLMServer) -> None:
        fast = {"min_wait": 0.01, "max_wait": 0.01}
        for agent in (
            OpenAIChatAgent("m", base_url=server.openai_url, **fast),
            AnthropicAgent("m", base_url=server.url, **fast),
        ):
            await agent.reply(Message("hello", datetime.now()))
            await agent.aclose()

    with LLMServer() as server:
        server.queue(drop=True, path="/v1/chat/completions")  # the error path too
        asyncio.run(ask(server))
