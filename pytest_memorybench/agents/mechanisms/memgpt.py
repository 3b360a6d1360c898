"""`memgpt`: MemGPT (Packer et al. 2023) — the model manages its own memory with function calls.

In context: the system prompt with the core memory (a `persona` and a `human` block, each at most
`core_chars` characters), the recursive summary of what was evicted, and the FIFO queue of recent
messages, function calls and their results.  The queue manager (§2.2) watches the prompt's tokens
(system prompt and queue) whenever a message enters the queue: past `warn_share` (70 %) of the
prompt budget it puts a memory-pressure warning into the queue, once until the next flush, so the
model can save what matters before it leaves; past `flush_share` (100 %) it flushes: the oldest
messages, until they add up to `evict_share` (50 %) of the budget, leave the queue, the model
folds them into the summary, and they stay in the conversation history (the paper's "recall
storage", function calls and results included), where `conversation_search` finds the user's and
the assistant's messages (as Letta's does: a search that found earlier results would quote itself).
Archival memory is a store the model writes with `archival_memory_insert` and reads with
`archival_memory_search`; `core_memory_append` and `core_memory_replace` edit the core blocks; `send_message`
replies to the user.

Each user message starts a loop of at most `steps` model calls: every call may call one function,
whose result the next call sees, until `send_message` (or a plain text reply) answers.  Functions
are offered as tools (OpenAI tool calls, Anthropic tool use); a server that refuses tools is asked
to reply with a JSON object `{"function": NAME, "arguments": {...}}` instead, as is any server when
`calls=json`.  A call whose function is unknown or whose arguments are not an object gets an error
result, as MemGPT's own loop returns one to the model; a text that is no call is the reply.  A
call is charged as a write when it edits memory (core or archival) and as a read otherwise.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem, exchange_text
from pytest_memorybench.agents.mechanisms.function_calls import Caller
from pytest_memorybench.agents.mechanisms.prompt import tokens
from pytest_memorybench.agents.mechanisms.settings import one_of, positive, require
from pytest_memorybench.models.llm import MESSAGE_OVERHEAD, ToolFunction

SYSTEM = """You are a helpful assistant with a memory you manage yourself through functions.
Your core memory is always shown below; edit it with core_memory_append and core_memory_replace
when you learn something important about the user or yourself. Older messages leave your context:
search them with conversation_search. Store facts for the long term with archival_memory_insert and
find them with archival_memory_search. Reply to the user with send_message.

## Core memory
<persona>
{persona}
</persona>
<human>
{human}
</human>

## Summary of earlier conversation
{summary}"""

EVICT = """Summary of the conversation so far:
{summary}

Messages leaving your context:
{messages}

Write the new summary of the conversation so far, keeping names, numbers, dates and instructions."""

FUNCTIONS: list[ToolFunction] = [
    {
        "name": "send_message",
        "description": "Send a message to the user.",
        "parameters": {
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        },
    },
    {
        "name": "core_memory_append",
        "description": "Append text to a core memory block (persona or human).",
        "parameters": {
            "type": "object",
            "properties": {
                "block": {"type": "string", "enum": ["persona", "human"]},
                "content": {"type": "string"},
            },
            "required": ["block", "content"],
        },
    },
    {
        "name": "core_memory_replace",
        "description": "Replace text in a core memory block (persona or human).",
        "parameters": {
            "type": "object",
            "properties": {
                "block": {"type": "string", "enum": ["persona", "human"]},
                "old": {"type": "string"},
                "new": {"type": "string"},
            },
            "required": ["block", "old", "new"],
        },
    },
    {
        "name": "archival_memory_insert",
        "description": "Store a fact in long-term archival memory.",
        "parameters": {
            "type": "object",
            "properties": {"content": {"type": "string"}},
            "required": ["content"],
        },
    },
    {
        "name": "archival_memory_search",
        "description": "Search long-term archival memory.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
    {
        "name": "conversation_search",
        "description": "Search earlier messages of the conversation.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
]
WRITES = ("core_memory_append", "core_memory_replace", "archival_memory_insert")
WARNING = (
    "[system] Memory pressure: your context is {share:.0%} full. The oldest messages will soon leave it"
    " (conversation_search still finds them). Save what you must keep with core_memory_append or"
    " archival_memory_insert now."
)
PERSONA = "I am a helpful assistant who remembers what the user tells me."


@dataclass(frozen=True)
class MemGPTSettings:
    """MemGPT's parameters: function calls per message, core block size, the shares of the prompt budget at
    which the queue manager warns, flushes and how much it evicts, search results, and tools or JSON calls.
    """

    steps: int = 5
    core_chars: int = 2_000
    warn_share: float = 0.7
    flush_share: float = 1.0
    evict_share: float = 0.5
    search_k: int = 5
    calls: str = "tools"

    def __post_init__(self) -> None:
        positive(steps=self.steps, core_chars=self.core_chars, search_k=self.search_k)
        require(
            0 < self.warn_share < self.flush_share <= 1,
            f"warn_share ({self.warn_share:g}) must be above 0 and below flush_share ({self.flush_share:g}),"
            " which is at most 1",
        )
        require(0 < self.evict_share < 1, f"evict_share must be between 0 and 1, got {self.evict_share:g}")
        one_of("calls", self.calls, ("tools", "json"))


class MemGPT(MemorySystem):
    """`memgpt`: the model edits its own core, archival and conversation memory through function calls."""

    name = "memgpt"
    settings_type = MemGPTSettings
    answer_changes_memory = True  # its function calls edit memory

    def start(self) -> None:
        self.core = {"persona": PERSONA, "human": ""}
        self.summary = ""
        self.queue: list[Entry] = []
        self.history_lines: list[str] = []  # recall storage: every message, calls and results too
        self.history_index = self.new_index()  # over the user's and the assistant's messages only
        self.said_lines: list[str] = []  # what that index holds, by id
        self.archive: list[str] = []
        self.archive_index = self.new_index()
        self.evictions = 0
        self.warnings = 0
        self.warned = False  # since the last flush
        self.function_turns: list[Entry] = []  # this answer's calls and results, queued with its exchange
        self.caller = Caller(FUNCTIONS, by_json=self.settings.calls == "json")

    # -- write: the queue, the conversation history and the queue manager ------------------------------------

    async def write(self, entries: Sequence[Entry]) -> None:
        calls, self.function_turns = self.function_turns, []
        if calls and entries and entries[0].role == "user":
            entries = [entries[0], *calls, *entries[1:]]
        self.queue.extend(entries)
        self.history_lines += [entry.line for entry in entries]
        said = [entry.line for entry in entries if not any(entry is call for call in calls)]
        await self.history_index.add(said, "write")
        self.said_lines += said
        await self.manage_queue()

    def prompt_tokens(self, *incoming: Entry) -> int:
        """The prompt's tokens: system prompt, queue and the `incoming` messages."""
        return tokens(self.caller.system(self.system())) + sum(
            _cost(entry) for entry in [*self.queue, *incoming]
        )

    async def manage_queue(self, *incoming: Entry) -> None:
        """The queue manager: flush past `flush_share` of the budget, warn once past `warn_share`."""
        used = self.prompt_tokens(*incoming) / self.prompt_budget
        if used > self.settings.flush_share and len(self.queue) > 1:
            await self.evict()
        elif used > self.settings.warn_share and not self.warned:
            moment = [*self.queue, *incoming][-1].time if self.queue or incoming else None
            self.queue.append(Entry(len(self.log), "system", WARNING.format(share=used), moment))
            self.warned = True
            self.warnings += 1

    async def evict(self) -> None:
        """Flush: the oldest messages up to `evict_share` of the budget leave, folded into the summary."""
        target, freed, count = self.settings.evict_share * self.prompt_budget, 0, 0
        while count < len(self.queue) - 1 and freed < target:
            freed += _cost(self.queue[count])
            count += 1
        leaving, self.queue = self.queue[:count], self.queue[count:]
        prompt = EVICT.format(summary=self.summary or "(none)", messages=exchange_text(leaving))
        self.summary = (await self.model.work(prompt, "write")).strip()
        self.evictions += 1
        self.warned = False

    # -- read: the function-calling loop ----------------------------------------------------------

    def system(self) -> str:
        """The system prompt: the core memory blocks and the summary (the caller lists the functions
        when they are called as JSON)."""
        core = self.core
        return SYSTEM.format(persona=core["persona"], human=core["human"], summary=self.summary or "(none)")

    async def answer(self, entry: Entry) -> str:
        self.function_turns = []
        await self.manage_queue(entry)
        text = ""
        for _ in range(self.settings.steps):
            queued = [e.turn for e in self.queue]
            called = [e.turn for e in self.function_turns]
            self.last_context = [self.core["persona"], self.core["human"], self.summary]
            self.last_context += [turn["content"] for turn in [*queued, *called]]
            step = await self.caller.step(self.model, self.system(), [*queued, entry.turn, *called])
            name, arguments, text, spent = step.function, step.arguments, step.text, step.spent
            if name is None:
                self.model.charge("read", spent)
                return text
            self.model.charge("write" if name in WRITES else "read", spent)
            if (
                name == "send_message"
                and isinstance(arguments, dict)
                and isinstance(arguments.get("message"), str)
            ):
                return str(arguments["message"])
            result = await self.call(name, arguments)
            call = f"[called {name}({json.dumps(arguments, ensure_ascii=False)})]"
            self.function_turns += [
                Entry(entry.index, "assistant", call, entry.time),
                Entry(entry.index, "function", f"[{name} returned: {result}]", entry.time),
            ]
        return text

    async def call(self, name: str, arguments: Any) -> str:
        if not isinstance(arguments, dict):
            return "error: the arguments must be a JSON object"
        block = str(arguments.get("block"))
        if name in ("core_memory_append", "core_memory_replace") and block not in self.core:
            return "error: block must be persona or human"
        if name == "core_memory_append":
            grown = f"{self.core[block]}\n{arguments.get('content', '')}".strip()
            if len(grown) > self.settings.core_chars:
                return (
                    f"error: the {block} block would pass {self.settings.core_chars} characters; replace"
                    " something instead"
                )
            self.core[block] = grown
            return "OK"
        if name == "core_memory_replace":
            old, new = str(arguments.get("old", "")), str(arguments.get("new", ""))
            if not old or old not in self.core[block]:
                return f"error: {old!r} is not in the {block} block"
            self.core[block] = self.core[block].replace(old, new)[: self.settings.core_chars]
            return "OK"
        if name == "archival_memory_insert":
            content = str(arguments.get("content", "")).strip()
            if content:
                self.archive.append(content)
                await self.archive_index.add([content], "write")
            return "OK"
        if name == "archival_memory_search":
            found = [
                self.archive[i]
                for i in await self.archive_index.search(
                    str(arguments.get("query", "")), self.settings.search_k
                )
            ]
            return json.dumps(found, ensure_ascii=False) if found else "no results"
        if name == "conversation_search":
            found = [
                self.said_lines[i]
                for i in await self.history_index.search(
                    str(arguments.get("query", "")), self.settings.search_k
                )
            ]
            return json.dumps(found, ensure_ascii=False) if found else "no results"
        return f"error: no function {name!r}; use one of {', '.join(f['name'] for f in FUNCTIONS)}"

    async def stored(self) -> list[str]:
        """What it holds, for what it wrote (`conversation/written.py`): its archive, the conversation
        history `conversation_search` finds (recall storage), the core blocks and the summary."""
        return [
            *self.archive,
            *self.said_lines,
            *(block for block in self.core.values() if block),
            *([self.summary] if self.summary else []),
        ]

    async def search(self, query: str, k: int) -> list[str]:
        """The best `k` of conversation history and archive, taken from each by turns."""
        lines = [self.said_lines[i] for i in await self.history_index.search(query, k)]
        stored = [self.archive[i] for i in await self.archive_index.search(query, k)]
        merged = [text for pair in itertools.zip_longest(lines, stored) for text in pair if text is not None]
        return merged[:k]


def _cost(entry: Entry) -> int:
    return tokens(entry.text) + MESSAGE_OVERHEAD
