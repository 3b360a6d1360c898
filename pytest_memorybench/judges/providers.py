"""Judge backends: a system prompt and a few turns in, the model's reply text and usage out.

They are the agent adapters of `agents/` with a different entry point, so the judge gets the same
SDK clients (retries off in the SDK), the same tenacity retry policy honouring Retry-After, the
same transient-error rules, model discovery for bare URLs and one-line errors without the API key.
OpenAI is asked at temperature 0; Anthropic gets no sampling parameter at all (its API version
answers 400 to one, see `agents/anthropic_agent.py`).

`LLMChatAgent._request` always sends the agents' fixed system prompt, so a judge backend passes its
own as a leading system turn, which `_complete` takes off again before the SDK call.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pytest_memorybench.agents.anthropic_agent import AnthropicAgent
from pytest_memorybench.agents.llm import Completion, LLMChatAgent, Turn
from pytest_memorybench.agents.openai_agent import OpenAIChatAgent
from pytest_memorybench.agents.spec import mask_credentials
from pytest_memorybench.errors import AgentError

DEFAULT_TIMEOUT = 120.0
DEFAULT_MAX_OUTPUT_TOKENS = 1024


class JudgeBackend(LLMChatAgent):
    """Mixin over an agent adapter: `complete(system, turns)` with retries, for one judge call."""

    temperature: ClassVar[float | None]

    def __init__(self, model: str | None, **options: Any) -> None:
        options.setdefault("timeout", DEFAULT_TIMEOUT)
        options.setdefault("max_output_tokens", DEFAULT_MAX_OUTPUT_TOKENS)
        super().__init__(model, **options)

    @property
    def name(self) -> str:
        """provider:model[@URL], any user:password@ in the URL masked."""
        return mask_credentials(super().name)

    def identity(self) -> dict[str, Any]:
        """Everything about this backend that can change a verdict, for cache keys."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "max_tokens": self.max_output_tokens,
        }

    async def resolve_model(self) -> None:
        """Ask a bare-URL server for its model now, so that the cache key can name it.

        Raises AgentError (one line, key redacted) if the server cannot say.
        """
        if self.model is not None:
            return
        try:
            self.model = await self._discover_model()
        except AgentError as exc:
            raise AgentError(self._redact(str(exc))) from None
        except Exception as exc:  # noqa: BLE001 - the SDK or server may raise anything
            raise AgentError(self._redact(f"{self.name}: {self._describe(exc)}")) from None

    async def complete(self, system: str, turns: list[Turn]) -> tuple[Completion, float]:
        """One judge call, transient failures retried; AgentError when it cannot be done."""
        completion, seconds = await self._request([{"role": "system", "content": system}, *turns])
        return completion, seconds

    async def _complete(self, system: str, turns: list[Turn]) -> Completion:
        if turns and turns[0]["role"] == "system":
            system, turns = turns[0]["content"], turns[1:]
        return await super()._complete(system, turns)  # type: ignore[safe-super]


class OpenAIJudgeBackend(JudgeBackend, OpenAIChatAgent):
    """`openai:MODEL[@URL]` or a bare `http(s)://…/v1` URL (model=None: the server's first model)."""

    temperature = 0


class AnthropicJudgeBackend(JudgeBackend, AnthropicAgent):
    """`anthropic:MODEL[@URL]`."""

    temperature = None
