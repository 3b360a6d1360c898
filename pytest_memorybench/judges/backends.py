"""Judge backends: a system prompt and a few turns in, the model's reply text and usage out.

They are the agent adapters of `agents/` with a different entry point, so the judge gets the same
SDK clients (retries off in the SDK), the same tenacity retry policy honouring Retry-After, the
same transient-error rules, model discovery for bare URLs and one-line errors without the API key.
OpenAI is asked at temperature 0; Anthropic gets no sampling parameter at all (its API version
answers 400 to one, see `models/anthropic.py`).

`LLMChatAgent._request` always sends the agents' fixed system prompt, so a judge backend passes its
own as a leading system turn, which `_complete` takes off again before the SDK call.

Structured output.  Given the task's JSON schema (`schemas.py`), a backend asks the server to keep
to it, in the first form the server takes, learnt on the first call and kept for the run:
  OpenAI-compatible  `response_format` as {"type": "json_schema", "json_schema": {…}} (OpenAI,
                     vLLM), else {"type": "json_object", "schema": {…}} (llama-cpp-python's
                     server, which answers the first form with a validation error), else
                     {"type": "json_object"}, else nothing: the reply is parsed as text.
  Anthropic          a tool with the schema as `input_schema`, chosen by `tool_choice`; a server
                     that takes no tools gets the plain request.
A server refuses a form by an error that names it (any status: llama-cpp-python answers 500);
other errors are errors, retried or reported as before.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from pytest_memorybench.core.errors import AgentError, mask_credentials
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.models.anthropic import AnthropicAgent
from pytest_memorybench.models.llm import Completion, LLMChatAgent, Turn
from pytest_memorybench.models.openai import OpenAIChatAgent, is_reasoning_model

DEFAULT_TIMEOUT = 120.0
DEFAULT_MAX_OUTPUT_TOKENS = 1024

log = logging.getLogger(__name__)


class JudgeBackend(LLMChatAgent):
    """Mixin over an agent adapter: `complete(system, turns)` with retries, for one judge call."""

    temperature: ClassVar[float | None]

    def __init__(self, model: str | None, **options: Any) -> None:
        options.setdefault("timeout", DEFAULT_TIMEOUT)
        options.setdefault("max_output_tokens", DEFAULT_MAX_OUTPUT_TOKENS)
        super().__init__(model, **options)

    @property
    def sent_temperature(self) -> float | None:
        """The temperature the requests carry (reasoning models take none)."""
        return None if is_reasoning_model(self.model) else self.temperature

    @property
    def name(self) -> str:
        """provider:model[@URL], any user:password@ in the URL masked."""
        return mask_credentials(super().name)

    def identity(self) -> JsonObject:
        """Everything about this backend that can change a verdict, for cache keys."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.sent_temperature,
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

    forms: ClassVar[tuple[str, ...]] = ("text",)  # the structured-output forms to try, in order
    form_index = 0  # the first form not refused by this server yet

    @property
    def form(self) -> str:
        """The structured-output form in use: "text" when the server takes none."""
        return self.forms[self.form_index]

    async def complete(
        self, system: str, turns: list[Turn], schema: JsonObject | None = None, name: str = "verdict"
    ) -> tuple[Completion, float]:
        """One judge call, transient failures retried; AgentError when it cannot be done."""
        completion, seconds = await self._request(
            [{"role": "system", "content": system}, *turns], schema=schema, name=name
        )
        return completion, seconds

    async def _complete(
        self,
        system: str,
        turns: list[Turn],
        schema: JsonObject | None = None,
        name: str = "verdict",
        **options: Any,
    ) -> Completion:
        if turns and turns[0]["role"] == "system":
            system, turns = turns[0]["content"], turns[1:]
        while True:
            form = self.form if schema is not None else "text"
            try:
                return await super()._complete(system, turns, **self._structured(form, schema, name))  # type: ignore[safe-super]
            except self.errors.status as exc:
                if form == "text" or not _refuses(exc, self._markers(form)):
                    raise
                if self.form == form:  # concurrent calls learn it once
                    self.form_index += 1
                    log.info(
                        "%s: the server refuses structured output as %s; trying %s",
                        self.name,
                        form,
                        self.form,
                    )

    def _structured(self, form: str, schema: JsonObject | None, name: str) -> JsonObject:
        """The request fields that ask for `form`."""
        return {}

    def _markers(self, form: str) -> tuple[str, ...]:
        """Words an error names when the server refuses `form`."""
        return ("response_format",)


class OpenAIJudgeBackend(JudgeBackend, OpenAIChatAgent):
    """`openai:MODEL[@URL]` or a bare `http(s)://…/v1` URL (model=None: the server's first model)."""

    temperature = 0
    forms = ("json_schema", "json_object+schema", "json_object", "text")

    def _structured(self, form: str, schema: JsonObject | None, name: str) -> JsonObject:
        if form == "json_schema":
            return {
                "response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
            }
        if form == "json_object+schema":
            return {"response_format": {"type": "json_object", "schema": schema}}
        if form == "json_object":
            return {"response_format": {"type": "json_object"}}
        return {}

    def _markers(self, form: str) -> tuple[str, ...]:
        return ("response_format", "json_schema", "json_object")


class AnthropicJudgeBackend(JudgeBackend, AnthropicAgent):
    """`anthropic:MODEL[@URL]`."""

    temperature = None
    forms = ("tool", "text")

    def _structured(self, form: str, schema: JsonObject | None, name: str) -> JsonObject:
        if form != "tool":
            return {}
        tool = {"name": name, "description": "Record the verdict.", "input_schema": schema}
        return {"tools": [tool], "tool_choice": {"type": "tool", "name": name}}

    def _markers(self, form: str) -> tuple[str, ...]:
        return ("tool",)


def _refuses(exc: Exception, markers: tuple[str, ...]) -> bool:
    """Whether a server error says the request's structured-output form is not supported."""
    status = getattr(exc, "status_code", 0)
    message = str(getattr(exc, "body", "") or "") + str(exc)
    return status in (400, 404, 415, 422, 500, 501) and any(marker in message.lower() for marker in markers)
