"""`mcp(mode=agent)`: the answering model keeps its memory in an MCP server through the server's tools.

In store mode the harness adds every message and searches for every question; here the model does
both, as MemGPT does with its functions: after each exchange (and for observed messages) it is
shown what was said and saves what it wants with the server's tools (the *write* phase), and
before each reply it may search them (the *read* phase).  Every tool the model calls is charged
to the phase of the call: a tool the server marks read-only (or named search / read / open /
find / get) is a read, any other a write.  The tools are offered as tool calls, or listed in the
prompt as JSON calls where the server takes no tools (`agents/mechanisms/function_calls.py`).

`retrieve(query, k)` searches the server's memory as store mode does (word by word, for evidence
recall); `context()` is what the tools returned while the last reply was made.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem, exchange_text
from pytest_memorybench.agents.mechanisms.function_calls import Caller
from pytest_memorybench.agents.mechanisms.model import MemoryModel, Phase
from pytest_memorybench.agents.stores.mcp import McpSettings, McpStore
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.models.llm import ToolFunction, Turn

if TYPE_CHECKING:
    from mcp.types import Tool

SAVE = """You keep the long-term memory of a conversational assistant in a memory server, through its
tools. Save what is worth remembering from the new messages below (facts about the user, names,
numbers, dates, instructions, plans), each as its own short statement. When nothing is worth keeping,
or once it is saved, reply with the word DONE."""

ANSWER = """You are a helpful assistant with a long-term memory kept in a memory server, reached through
its tools. When the user's message may rest on something said earlier, search the memory first,
then reply to the user; otherwise reply directly."""

STEPS = 4  # tool calls before the model must answer
_READS = ("search", "read", "open", "find", "get", "list", "query", "retrieve")


class McpAgent(MemorySystem):
    """The answering model with an MCP server's tools as its memory."""

    name = "mcp-agent"
    settings_type = McpSettings
    answer_changes_memory = True  # the model may save while it answers

    def __init__(self, model: MemoryModel, server: McpStore, settings: McpSettings) -> None:
        self.server = server
        self.owner = True
        super().__init__(model, None, settings)

    def start(self) -> None:
        self.caller: Caller | None = None  # made once the server says what its tools are
        self.read_only: set[str] = set()
        self.shown: list[str] = []  # what the tools returned during the current reply

    async def write(self, entries: Sequence[Entry]) -> None:
        if not self.owner or not entries:
            return
        said = f"New messages:\n{exchange_text(entries)}"
        await self._converse(SAVE, [{"role": "user", "content": said}], "write")

    async def answer(self, entry: Entry) -> str:
        self.shown = []
        reply = await self._converse(ANSWER, [entry.turn], "read")
        self.last_context = list(self.shown)
        return reply

    async def search(self, query: str, k: int) -> list[str]:
        return [hit.line for hit in await self.server.search(query, None, k)]

    async def _converse(self, system: str, turns: list[Turn], phase: Phase) -> str:
        """The model's calls until it replies in words, each tool's result shown to it; its reply."""
        caller = await self._caller()
        text = ""
        for _ in range(STEPS + 1):
            step = await caller.step(self.model, system, turns)
            text = step.text
            if step.function is None:
                self.model.charge(phase, step.spent)
                return text
            self.model.charge(self._phase(step.function), step.spent)
            result = await self._run(step.function, step.arguments)
            called = json.dumps(step.arguments, ensure_ascii=False)
            turns = [
                *turns,
                {"role": "assistant", "content": f"[called {step.function}({called})]"},
                {"role": "user", "content": f"[{step.function} returned: {result}]"},
            ]
        return text

    async def _run(self, tool: str, arguments: Any) -> str:
        """A tool's result as the model sees it; a refused call is its error, so the model can go on."""
        if tool not in (await self.server.tools()):
            return f"error: no tool {tool!r}"
        if not isinstance(arguments, dict):
            return "error: the arguments must be a JSON object"
        try:
            result = await self.server.call(tool, arguments)
        except Exception as exc:  # noqa: BLE001 - the server's refusal is the model's to read
            return f"error: {exc}"
        if self._phase(tool) == "read":
            self.shown.append(result)
        return result

    async def _caller(self) -> Caller:
        if self.caller is None:
            tools = await self.server.tools()
            functions = [
                ToolFunction(name=name, description=tool.description or "", parameters=_parameters(tool))
                for name, tool in tools.items()
            ]
            self.read_only = {name for name, tool in tools.items() if _reads(name, tool)}
            self.caller = Caller(functions)
        return self.caller

    def _phase(self, tool: str) -> Phase:
        return "read" if tool in self.read_only else "write"

    async def reset(self) -> None:
        """A new conversation: a new server, with a memory file of its own."""
        if self.owner:
            await self.server.aclose()
            self.server = McpStore(self.settings)
        await super().reset()

    async def fork(self) -> McpAgent:
        """A twin over the same server: what it saves while answering stays in the shared memory, so
        a forked question may leave notes the conversation later finds (a server is not copied)."""
        twin = McpAgent(self.model.fork(), self.server, self.settings)
        twin.owner, twin.log, twin.caller, twin.read_only = False, list(self.log), self.caller, self.read_only
        return twin

    async def aclose(self) -> None:
        if self.owner:
            await self.server.aclose()
            await self.model.aclose()


def _parameters(tool: Tool) -> JsonObject:
    """The tool's input schema as a function's parameters (without the `$schema` key some servers add)."""
    schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {}
    return {key: value for key, value in schema.items() if key != "$schema"}


def _reads(name: str, tool: Any) -> bool:
    annotations = getattr(tool, "annotations", None)
    hint = getattr(annotations, "read_only_hint", getattr(annotations, "readOnlyHint", None))
    if hint is not None:
        return bool(hint)
    return any(word in name.lower() for word in _READS)
