"""A model's next function call: as tool calls where the server takes them, else written as JSON.

MemGPT's functions and an MCP server's tools are offered the same way: as tools (OpenAI tool
calls, Anthropic tool use); a server that refuses tools (or `by_json` from the start) gets the
functions listed in the system prompt and is asked to reply with one JSON object naming one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.agents.mechanisms.model import MemoryModel
from pytest_memorybench.core.errors import ProviderRefused
from pytest_memorybench.core.json_reply import extract_json
from pytest_memorybench.core.records import Usage
from pytest_memorybench.models.llm import ToolFunction, Turn

JSON_CALLS = """

## How to call a function
Reply with one JSON object only: {{"function": "NAME", "arguments": {{...}}}}. The functions:
{functions}"""


@dataclass(frozen=True)
class Step:
    """What one call of the model did: the function it called (None: it replied), its arguments, its
    text, and what the call cost."""

    function: str | None
    arguments: Any
    text: str
    spent: Usage


@dataclass
class Caller:
    """Functions ({name, description, parameters}) offered to a model, and how it calls them."""

    functions: Sequence[ToolFunction]
    by_json: bool = False  # the server takes no tools (or was asked so): calls are JSON in the text

    def system(self, base: str) -> str:
        """`base`, with the functions listed when they are called as JSON."""
        if not self.by_json:
            return base
        listed = "\n".join(
            f"- {f['name']}({', '.join(_parameter_names(f))}): {f.get('description', '')}"
            for f in self.functions
        )
        return base + JSON_CALLS.format(functions=listed)

    async def step(self, model: MemoryModel, system: str, turns: list[Turn]) -> Step:
        """One call of the answering model, left for the caller to charge."""
        tools = None if self.by_json else model.answerer.tool_options(self.functions)
        self.by_json = tools is None
        if tools is not None:
            try:
                completion, spent = await model.step(system, turns, **tools)
            except ProviderRefused as refused:
                if "tool" not in str(refused).lower():
                    raise
                self.by_json = True  # this server takes no tools: functions as JSON from now on
            else:
                if completion.tool_calls:
                    call = completion.tool_calls[0]
                    return Step(call.name, call.arguments, completion.text, spent)
                return _from_json(completion.text, spent)
        completion, spent = await model.step(self.system(system), turns)
        return _from_json(completion.text, spent)


def _parameter_names(function: ToolFunction) -> list[str]:
    properties = function["parameters"].get("properties")
    return list(properties) if isinstance(properties, Mapping) else []


def _from_json(text: str, spent: Usage) -> Step:
    """A function call written as JSON in the text, or the text as the reply."""
    try:
        value = extract_json(text)
    except ValueError:
        return Step(None, None, text, spent)
    if isinstance(value, dict) and isinstance(value.get("function"), str):
        return Step(value["function"], value.get("arguments"), text, spent)
    return Step(None, None, text, spent)
