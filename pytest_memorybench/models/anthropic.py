"""`anthropic:MODEL[@URL]` agents: the Anthropic messages API.

The SDK's base URL is the host root (it appends /v1/messages), so a URL given with a trailing
/v1, as OpenAI-style URLs are written, is accepted too.

No temperature is sent, unlike the OpenAI adapter: SDK 1.0 dropped the sampling parameters, and
the API version SDK 2.x requests (2026-10-21) answers 400 to any of them, even at their default.
Claude's replies are therefore as deterministic as the model makes them, no more.

Extended thinking (`--mb-thinking TOKENS`): the request carries `thinking` with that budget, and
`max_tokens` grows by it, since thinking counts against it; the reply's thinking blocks are not
part of the answer, and Anthropic counts their tokens as output, so they are priced as output.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import anthropic

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.models.http import shared_tls
from pytest_memorybench.models.llm import (
    Completion,
    LLMChatAgent,
    MalformedReply,
    SdkErrors,
    ToolCall,
    ToolFunction,
    Turn,
    not_an_answer,
    served_model,
)


class AnthropicAgent(LLMChatAgent):
    """`anthropic:MODEL[@URL]`: the Anthropic messages API behind the shared chat adapter."""

    provider = "anthropic"
    api_key_variable = "ANTHROPIC_API_KEY"
    errors = SdkErrors.of(anthropic)

    def __init__(self, model: str | None, *, thinking_tokens: int | None = None, **options: Any) -> None:
        super().__init__(model, **options)
        self.thinking_tokens = thinking_tokens

    def _make_client(self, api_key: str) -> Any:
        root = self.base_url.removesuffix("/v1") if self.base_url else None
        return anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=root,
            timeout=self.timeout,
            max_retries=0,
            http_client=anthropic.DefaultAsyncHttpxClient(verify=shared_tls()),
        )

    async def _complete(self, system: str, turns: list[Turn], **options: Any) -> Completion:
        if self.thinking_tokens:
            options = {"thinking": {"type": "enabled", "budget_tokens": self.thinking_tokens}, **options}
        response = await self._client.messages.create(
            model=self.model,
            system=system,
            messages=turns,
            max_tokens=self.max_output_tokens + (self.thinking_tokens or 0),
            **options,
        )
        usage = getattr(response, "usage", None)  # absent when a compatible server omits it
        if not isinstance(getattr(response, "content", None), list):
            raise MalformedReply(f"the server's answer is not a message: {not_an_answer(response)}")
        tool_input = next((block.input for block in response.content if block.type == "tool_use"), None)
        return Completion(
            text=json.dumps(tool_input)
            if tool_input is not None
            else "".join(block.text for block in response.content if block.type == "text"),
            input_tokens=getattr(usage, "input_tokens", None),
            output_tokens=getattr(usage, "output_tokens", None),
            tool_calls=tuple(
                ToolCall(block.name, block.input if isinstance(block.input, dict) else None)
                for block in response.content
                if block.type == "tool_use"
            ),
            model=served_model(response),
        )

    @classmethod
    def tool_options(cls, functions: Sequence[ToolFunction]) -> JsonObject:
        return {
            "tools": [
                {
                    "name": function["name"],
                    "description": function["description"],
                    "input_schema": function["parameters"],
                }
                for function in functions
            ]
        }
