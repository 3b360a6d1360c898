"""`mcp`: any MCP memory server over stdio, its tools mapped to the store protocol.

    mcp:openai:gpt-4o-mini                                   the reference knowledge-graph server
    mcp(command=uvx mcp-server-qdrant,add=qdrant-store,search=qdrant-find):openai:gpt-4o-mini

The server is started from `command` for each conversation (with its own memory file: the
reference server's `MEMORY_FILE_PATH` points into a folder of the conversation's own), through the
official `mcp` SDK.  `add` and `search` name its tools:
  - `create_entities` (the reference server's): each message an entity named
    `NAMESPACE/N`, of its role's type, with one observation, the message stamped with its time;
    `clear` deletes the namespace's entities (`read_graph`, `delete_entities`);
  - any other tool whose input has one required string argument gets the message's text, or the
    query, in it; `clear` then has nothing to call, and the server's own folder is removed with it.
`search_by=query` sends the question as it is; the reference server matches it as one substring of
an observation, which a question never is, so the default `words` searches each content word of
the question and ranks what was found by the words it matched (newest first among equals).

The SDK's sessions live in one task (anyio's cancel scopes), so each store runs its server in a
task of its own and hands it calls through a queue; every call of the harness, from any task,
waits for its answer there.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import tempfile
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from typing_extensions import TypedDict

from pytest_memorybench.agents.lexical import terms
from pytest_memorybench.agents.mechanisms.settings import one_of, require
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from mcp.types import Tool

    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

REFERENCE_SERVER = "npx -y @modelcontextprotocol/server-memory@2026.8.31"
KNOWLEDGE_GRAPH = "create_entities"


@dataclass(frozen=True)
class McpSettings:
    """The server's command, the tools that add and search, and how a question is searched."""

    command: str = REFERENCE_SERVER
    add: str = KNOWLEDGE_GRAPH
    search: str = "search_nodes"
    search_by: str = "words"
    mode: str = "store"  # agent: the answering model calls the server's tools itself (mcp_agent.py)

    def __post_init__(self) -> None:
        require(bool(shlex.split(self.command)), "command must name the server to start")
        one_of("search_by", self.search_by, ("words", "query"))
        one_of("mode", self.mode, ("store", "agent"))


class GraphEntity(TypedDict, total=False):
    """An entity of the reference knowledge-graph server, as `read_graph` and `search_nodes` return it."""

    name: str  # ours are NAMESPACE/N
    entityType: str  # noqa: N815 - the server's spelling
    observations: list[str]


# A call handed to the server's task: the tool, its arguments, and where its result goes.
_Call: TypeAlias = "tuple[str, JsonObject, asyncio.Future[Any]]"


class McpStore:
    """A memory server's tools as add / search / clear, one server per store object."""

    def __init__(self, settings: McpSettings) -> None:
        self.settings = settings
        self.folder = Path(tempfile.mkdtemp(prefix="memorybench-mcp-"))
        self._calls: asyncio.Queue[_Call | None] | None = None
        self._server: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[dict[str, Tool]] | None = None
        self._counter = 0
        self.server_version: str | None = None  # what the server's initialisation says it is

    # -- the store protocol ---------------------------------------------------------------------

    @property
    def messages_per_add(self) -> int | None:
        """The knowledge graph's entities go in one call; another server's tool takes one text a call
        (the harness makes the calls, so a retry re-sends only the one that failed)."""
        return None if self.settings.add == KNOWLEDGE_GRAPH else 1

    async def add(self, messages: list[Message], namespace: str) -> None:
        """Each message stamped with its time, as a text memory server keeps only text.  An entity is
        named after its message's place in the conversation, so a retried call makes no second one
        (the reference server skips entities whose name it has)."""
        tools = await self._tools()
        if self.settings.add == KNOWLEDGE_GRAPH:
            entities = []
            for message in messages:
                self._counter += 1
                place = message.id if message.id is not None else self._counter
                entities.append(
                    {
                        "name": f"{namespace}/{place}",
                        "entityType": message.role,
                        "observations": [_stamped(message)],
                    }
                )
            await self._call(KNOWLEDGE_GRAPH, {"entities": entities})
            return
        argument = _text_argument(tools[self.settings.add])
        (message,) = messages
        await self._call(self.settings.add, {argument: _stamped(message)})

    async def search(self, query: str, namespace: str | None, k: int) -> list[Hit]:
        """The k best hits for `query` in `namespace` (None: anywhere in the server's memory)."""
        tools = await self._tools()
        argument = _text_argument(tools[self.settings.search])
        queries = [query] if self.settings.search_by == "query" else _content_words(query) or [query]
        matched: dict[str, tuple[int, int, str]] = {}  # name -> (words matched, order, text)
        for each in queries:
            for order, (name, text) in enumerate(await self._found(each, argument, namespace)):
                count = matched.get(name, (0, order, text))[0]
                matched[name] = (count + 1, _order(name, order), text)
        ranked = sorted(matched.values(), key=lambda found: (-found[0], -found[1]))
        return [Hit(text) for _, _, text in ranked[:k]]

    async def stored(self, namespace: str) -> list[str] | None:
        """The observations of the namespace's entities (the knowledge graph's `read_graph`); None for
        a server of other tools, which has no call that lists what it holds."""
        if self.settings.add != KNOWLEDGE_GRAPH:
            return None
        graph = await self._call("read_graph", {})
        return [
            str(observation)
            for entity in _entities(graph) or ()
            if entity["name"].startswith(f"{namespace}/")
            for observation in entity.get("observations", ())
        ]

    async def clear(self, namespace: str) -> None:
        if self.settings.add != KNOWLEDGE_GRAPH:
            return  # nothing to call: the server's folder goes with the store
        graph = await self._call("read_graph", {})
        names = [e["name"] for e in _entities(graph) or () if e["name"].startswith(f"{namespace}/")]
        if names:
            await self._call("delete_entities", {"entityNames": names})

    async def aclose(self) -> None:
        if self._calls is not None and self._server is not None:
            await self._calls.put(None)
            await asyncio.gather(self._server, return_exceptions=True)
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- the server -------------------------------------------------------------------------------

    async def _found(self, query: str, argument: str, namespace: str | None) -> list[tuple[str, str]]:
        """(name, text) of what one search call found in `namespace`, in the server's order."""
        result = await self._call(self.settings.search, {argument: query})
        entities = _entities(result)
        if entities is not None:
            return [
                (entity["name"], " ".join(entity.get("observations") or []))
                for entity in entities
                if namespace is None or str(entity.get("name", "")).startswith(f"{namespace}/")
            ]
        return [(text, text) for text in _texts(result)]

    async def tools(self) -> dict[str, Tool]:
        """The server's tools by name (the server is started on first use)."""
        return await self._tools()

    async def call(self, tool: str, arguments: JsonObject) -> str:
        """A tool's result as text, as a model is shown it."""
        return "\n".join(_texts(await self._call(tool, arguments)))

    async def _tools(self) -> dict[str, Tool]:
        if self._ready is None:
            loop = asyncio.get_running_loop()
            self._ready, self._calls = loop.create_future(), asyncio.Queue()
            self._server = asyncio.create_task(self._serve(self._ready, self._calls))
        return await self._ready

    async def _call(self, tool: str, arguments: JsonObject) -> Any:
        await self._tools()
        assert self._calls is not None
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._calls.put((tool, arguments, answer))
        return await answer

    async def _serve(
        self,
        ready: asyncio.Future[dict[str, Tool]],
        calls: asyncio.Queue[_Call | None],
    ) -> None:
        """Start the server, then answer calls until told to stop (None); a failure fails every call."""
        with (self.folder / "server.log").open("w") as log:
            try:
                async with AsyncExitStack() as stack:
                    session = await self._session(stack, log)
                    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
                    missing = [
                        name for name in (self.settings.add, self.settings.search) if name not in tools
                    ]
                    if missing:
                        raise LookupError(
                            f"no tool {', '.join(missing)} (its tools: {', '.join(tools)}); name them with"
                            " mcp(add=TOOL,search=TOOL)"
                        )
                    ready.set_result(tools)
                    while (call := await calls.get()) is not None:
                        tool, arguments, answer = call
                        try:
                            answer.set_result(_checked(tool, await session.call_tool(tool, arguments)))
                        except Exception as exc:  # noqa: BLE001 - handed to the caller
                            answer.set_exception(exc)
            except Exception as exc:  # noqa: BLE001 - the server could not start, or went away
                said = _last_line(self.folder / "server.log")
                error = ConnectionError(
                    f"the MCP server failed: {exc}" + (f" (it said: {said})" if said else "")
                )
                if not ready.done():
                    ready.set_exception(error)
                while not calls.empty():
                    pending = calls.get_nowait()
                    if pending is not None and not pending[2].done():
                        pending[2].set_exception(error)

    async def _session(self, stack: AsyncExitStack, log: Any) -> Any:
        """The server started from `command`, its memory file in this store's folder, initialised."""
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        argv = shlex.split(self.settings.command)
        parameters = StdioServerParameters(
            command=argv[0],
            args=argv[1:],
            env={**os.environ, "MEMORY_FILE_PATH": str(self.folder / "memory.jsonl")},
            cwd=str(self.folder),
        )
        read, write = await stack.enter_async_context(stdio_client(parameters, errlog=log))
        session = await stack.enter_async_context(ClientSession(read, write))
        initialised = await asyncio.wait_for(session.initialize(), 120)
        info = getattr(initialised, "serverInfo", None) or getattr(initialised, "server_info", None)
        if info is not None:
            self.server_version = f"{getattr(info, 'name', '?')} {getattr(info, 'version', '?')}"
        return session


def _checked(tool: str, result: Any) -> Any:
    if getattr(result, "is_error", getattr(result, "isError", False)):
        raise RuntimeError(f"{tool}: {' '.join(_texts(result))[:300]}")
    return result


def _entities(result: Any) -> list[GraphEntity] | None:
    """A knowledge-graph result's entities (none found: an empty list); None for a result of
    another shape, whose texts are the hits."""
    structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    if isinstance(structured, dict) and isinstance(structured.get("entities"), list):
        return list(structured["entities"])
    for text in _texts(result):
        try:
            loaded = json.loads(text)
        except ValueError:
            continue
        entities = loaded.get("entities") if isinstance(loaded, dict) else loaded
        if isinstance(entities, list) and all(isinstance(e, dict) and "name" in e for e in entities):
            return entities
    return None


def _texts(result: Any) -> list[str]:
    return [str(part.text) for part in getattr(result, "content", []) or [] if getattr(part, "text", None)]


def _stamped(message: Message) -> str:
    return f"[{message.timestamp:%Y-%m-%d %H:%M}] {message.text}"


def _text_argument(tool: Any) -> str:
    """The one required string argument of a tool that takes a text."""
    schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {}
    properties = schema.get("properties", {})
    required = [
        name for name in schema.get("required", []) if properties.get(name, {}).get("type") == "string"
    ]
    if len(required) != 1:
        raise LookupError(f"tool {tool.name} does not take one text (its arguments: {', '.join(properties)})")
    return str(required[0])


def _content_words(query: str) -> list[str]:
    return list(dict.fromkeys(word for word in terms(query) if len(word) > 2))


def _order(name: str, fallback: int) -> int:
    """An entity's place in the conversation, from its name (NAMESPACE/N)."""
    number = name.rsplit("/", 1)[-1]
    return int(number) if number.isdigit() else fallback


def _last_line(path: Path) -> str:
    lines = (
        [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
        if path.exists()
        else []
    )
    return lines[-1][:200] if lines else ""


def _make(settings: McpSettings, options: AgentOptions, model: AgentSpec) -> McpStore:
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise usage_error(
            "--agent mcp:…: the mcp package is not installed; pip install 'pytest-memorybench[mcp]'"
        ) from None
    if shutil.which(shlex.split(settings.command)[0]) is None:
        raise usage_error(
            f"--agent mcp:…: {shlex.split(settings.command)[0]!r} is not on PATH; install it (the reference"
            " server runs with npx, from Node.js) or give mcp(command=...)"
        )
    return McpStore(settings)


MCP = BuiltinStore(McpSettings, _make, agent="stores.mcp_agent:McpAgent")
