"""The HTTP session Cognee's model calls go through (litellm's `aclient_session`).

Kept apart from the store so that httpx, which only the `cognee` extra brings, is imported when a
Cognee store is configured, not when the store module is read (to list stores, or to say in one line
that Cognee is not installed).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from pytest_memorybench.agents.stores.endpoints import llama_cpp_schema_form


class SchemaForm(httpx.AsyncBaseTransport):
    """Sends a chat completion's `json_schema` response format as llama-cpp-python's server takes
    it, `{"type": "json_object", "schema": …}`, while `wanted()` says so (the newest store asks)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, wanted: Callable[[], bool]) -> None:
        self.inner = inner
        self.wanted = wanted

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.wanted() and request.url.path.endswith("/chat/completions"):
            body = json.loads(await request.aread())
            held = llama_cpp_schema_form(body.get("response_format"))
            if held is not None:
                body["response_format"] = held
                headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "content-length"]
                request = httpx.Request(
                    request.method, request.url, headers=headers, json=body, extensions=request.extensions
                )
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def counting_session(
    on_response: Callable[[httpx.Response], Awaitable[None]], schema_held: Callable[[], bool]
) -> Any:
    """An `httpx.AsyncClient` whose responses go to `on_response` (the token count) and whose
    structured-output requests take llama-cpp-python's form while `schema_held()`."""
    return httpx.AsyncClient(
        timeout=600,
        transport=SchemaForm(httpx.AsyncHTTPTransport(), schema_held),
        event_hooks={"response": [on_response]},
    )
