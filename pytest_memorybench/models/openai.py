"""`openai:MODEL[@URL]` and bare `http(s)://…/v1` agents: OpenAI chat completions.

Any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LiteLLM) works through `base_url`; when
the spec names no model, the server's first listed model is used.

Reasoning models (o1, o3, o4-mini, the gpt-5 family) take a different request: no `temperature`
(they answer 400 to any value but the default), `max_completion_tokens` instead of `max_tokens`,
a budget that leaves room for their hidden reasoning, and the system prompt as a `developer`
message (o1-mini and o1-preview take neither, so theirs opens the first user message).  Their
`completion_tokens` include the reasoning tokens, so reasoning is counted and priced as output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import openai

from pytest_memorybench.core.errors import AgentError
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

REASONING_OUTPUT_TOKENS = 16_384  # a reasoning model spends output tokens thinking before it answers
_REASONING = re.compile(r"^(?:o[134](?:-|$)|gpt-5(?!-chat)(?:[.-]|$))")
_NO_DEVELOPER_ROLE = ("o1-mini", "o1-preview")


def is_reasoning_model(model: str | None) -> bool:
    """o1, o3, o4-mini and the gpt-5 family (not gpt-5-chat), with their dated snapshots."""
    return bool(model) and bool(_REASONING.match(model))  # type: ignore[arg-type]


class OpenAIChatAgent(LLMChatAgent):
    """`openai:MODEL[@URL]` or a compatible URL: chat completions behind the shared chat adapter."""

    provider = "openai"
    api_key_variable = "OPENAI_API_KEY"
    errors = SdkErrors.of(openai)

    def __init__(self, model: str | None, **options: Any) -> None:
        super().__init__(model, **options)
        if is_reasoning_model(model) and "max_output_tokens" not in options:
            self.max_output_tokens = REASONING_OUTPUT_TOKENS

    def _make_client(self, api_key: str) -> Any:
        return openai.AsyncOpenAI(
            api_key=api_key,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(verify=shared_tls()),
        )

    async def _discover_model(self) -> str:
        page = await self._client.models.list()
        if not page.data:
            raise AgentError(f"{self.name}: the server lists no models; name one with openai:MODEL@URL")
        return str(page.data[0].id)

    async def _complete(self, system: str, turns: list[Turn], **options: Any) -> Completion:
        response = await self._client.chat.completions.create(
            model=self.model, **self._sampling(system, turns), **options
        )
        if not hasattr(response, "choices"):
            raise MalformedReply(f"the server's answer is not a chat completion: {not_an_answer(response)}")
        if not response.choices:
            raise MalformedReply("the server returned no choices")
        message = getattr(response.choices[0], "message", None)
        calls = _tool_calls(message)
        if message is None or (getattr(message, "content", None) is None and not calls):
            refusal = getattr(message, "refusal", None)
            raise MalformedReply(
                f"the server's answer has no content{f' (refusal: {refusal})' if refusal else ''}"
            )
        usage = response.usage
        return Completion(
            text=message.content or "",
            input_tokens=usage.prompt_tokens if usage else None,
            output_tokens=usage.completion_tokens if usage else None,
            tool_calls=calls,
            model=served_model(response),
        )

    @classmethod
    def tool_options(cls, functions: Sequence[ToolFunction]) -> JsonObject:
        return {
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": function["name"],
                        "description": function["description"],
                        "parameters": function["parameters"],
                    },
                }
                for function in functions
            ]
        }

    def _sampling(self, system: str, turns: list[Turn]) -> JsonObject:
        """The messages and the sampling fields, as this model takes them."""
        if not is_reasoning_model(self.model):
            return {
                "messages": [{"role": "system", "content": system}, *turns],
                "temperature": 0,
                "max_tokens": self.max_output_tokens,
            }
        if str(self.model).startswith(_NO_DEVELOPER_ROLE):
            first, *rest = turns or [{"role": "user", "content": ""}]
            messages = [{"role": "user", "content": f"{system}\n\n{first['content']}"}, *rest]
        else:
            messages = [{"role": "developer", "content": system}, *turns]
        return {"messages": messages, "max_completion_tokens": self.max_output_tokens}


def _tool_calls(message: Any) -> tuple[ToolCall, ...]:
    calls = []
    for call in getattr(message, "tool_calls", None) or []:
        function = getattr(call, "function", None)
        if function is None or not getattr(function, "name", None):
            continue
        try:
            arguments = json.loads(function.arguments or "{}")
        except (TypeError, ValueError):
            arguments = None
        calls.append(ToolCall(function.name, arguments if isinstance(arguments, dict) else None))
    return tuple(calls)
