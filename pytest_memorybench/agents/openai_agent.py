"""`openai:MODEL[@URL]` and bare `http(s)://…/v1` agents: OpenAI chat completions.

Any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LiteLLM) works through `base_url`; when
the spec names no model, the server's first listed model is used.
"""

from __future__ import annotations

from typing import Any

import openai

from pytest_memorybench.agents.llm import Completion, LLMChatAgent, Turn
from pytest_memorybench.errors import AgentError


class OpenAIChatAgent(LLMChatAgent):
    provider = "openai"
    api_key_variable = "OPENAI_API_KEY"
    status_error = openai.APIStatusError
    connection_error = openai.APIConnectionError
    timeout_error = openai.APITimeoutError

    def _make_client(self, api_key: str) -> Any:
        return openai.AsyncOpenAI(api_key=api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0)

    async def _discover_model(self) -> str:
        page = await self._client.models.list()
        if not page.data:
            raise AgentError(f"{self.name}: the server lists no models; name one with openai:MODEL@URL")
        return str(page.data[0].id)

    async def _complete(self, system: str, turns: list[Turn], **options: Any) -> Completion:
        response = await self._client.chat.completions.create(
            model=self.model,
            messages=[{"role": "system", "content": system}, *turns],
            temperature=0,
            max_tokens=self.max_output_tokens,
            **options,
        )
        if not response.choices:
            raise AgentError(f"{self.name}: the server returned no choices")
        usage = response.usage
        return Completion(
            text=response.choices[0].message.content or "",
            input_tokens=usage.prompt_tokens if usage else None,
            output_tokens=usage.completion_tokens if usage else None,
        )
