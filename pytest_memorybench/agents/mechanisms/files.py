"""`files:MODEL`: the grep agent, the plain baseline every memory product must beat.

Nothing is summarised, embedded or extracted: each session of the conversation is kept as a file
of dated lines ("[2023-05-08 13:56] user: …"), a message a line, and the answering model gets three
tools over them, as an agent with a shell would use `ls`, `grep -i` and `sed -n`:

  list_sessions()                      every file: its name, lines and first and last date
  grep(pattern, session?)              the lines matching a regular expression, case-insensitive,
                                       as "session:line: text", at most `matches` of them
  read(session, start?, end?)          a session's lines from `start` to `end` (1-based, at most
                                       `lines` of them)

It calls them as it chooses, within `calls` tool calls a question (the budget: then it must
answer from what it found), and every call is a read of its memory.  Writing a line costs nothing.
A session is the benchmark's (`Message.session`: LoCoMo's and LongMemEval's sessions, BEAM's
chats), else the calendar day of the simulated clock.

`retrieve(query, k)` is one grep of the question's longest words (what the agent's first call
usually is), for evidence recall; `context()` is every line its tools returned while it answered:
what it had when it answered.  The tools go as tool calls, or as JSON in the prompt where the server
takes no tools (`function_calls.py`), as for MemGPT.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.agents.lexical import terms
from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem
from pytest_memorybench.agents.mechanisms.function_calls import Caller
from pytest_memorybench.agents.mechanisms.settings import positive
from pytest_memorybench.models.llm import ToolFunction, Turn

ANSWER = """You are a helpful assistant. Your memory of earlier conversations is a folder of text files,
one per session, each line a dated message. Before you answer a message that may rest on something
said earlier, look it up with your tools: list the sessions, grep them (regular expressions, case
does not matter) and read the lines around what you find. Then answer the user's message. Answer
directly when it needs no memory."""
LAST_CALL = "You have used your lookups: answer the user's message now, from what you found."

FUNCTIONS: list[ToolFunction] = [
    {
        "name": "list_sessions",
        "description": "List the session files: name, number of lines, first and last date.",
        "parameters": {"type": "object", "properties": {}},
    },
    {
        "name": "grep",
        "description": "Lines matching a regular expression, case-insensitive, as session:line: text.",
        "parameters": {
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "a regular expression"},
                "session": {"type": "string", "description": "one session's name; all when left out"},
            },
            "required": ["pattern"],
        },
    },
    {
        "name": "read",
        "description": "A session's lines from start to end (1-based, inclusive).",
        "parameters": {
            "type": "object",
            "properties": {
                "session": {"type": "string"},
                "start": {"type": "integer"},
                "end": {"type": "integer"},
            },
            "required": ["session"],
        },
    },
]


@dataclass(frozen=True)
class FilesSettings:
    """The budget: tool calls a question, grep matches a call, lines a read."""

    calls: int = 6
    matches: int = 20
    lines: int = 40

    def __post_init__(self) -> None:
        positive(calls=self.calls, matches=self.matches, lines=self.lines)


class Files(MemorySystem):
    """`files`: sessions as files of dated lines, and the tools to search them."""

    name = "files"
    settings_type = FilesSettings

    def start(self) -> None:
        self.sessions: dict[str, list[str]] = {}
        self.caller = Caller(FUNCTIONS)

    async def write(self, entries: Sequence[Entry]) -> None:
        for entry in entries:
            self.sessions.setdefault(_session_of(entry), []).append(" ".join(entry.line.split()))

    async def answer(self, entry: Entry) -> str:
        turns: list[Turn] = [entry.turn]
        shown: list[str] = []
        for _ in range(self.settings.calls):
            step = await self.caller.step(self.model, ANSWER, turns)
            self.model.charge("read", step.spent)
            if step.function is None:
                self.last_context = shown
                return step.text
            result = self._run(step.function, step.arguments)
            shown.extend(result.splitlines())
            called = json.dumps(step.arguments, ensure_ascii=False)
            turns = [
                *turns,
                {"role": "assistant", "content": f"[called {step.function}({called})]"},
                {"role": "user", "content": f"[{step.function} returned: {result}]"},
            ]
        self.last_context = shown
        completion, spent = await self.model.step(f"{ANSWER}\n\n{LAST_CALL}", turns)
        self.model.charge("read", spent)
        return completion.text

    async def stored(self) -> list[str]:
        """What it holds, for what it wrote (`conversation/written.py`): every line of every session file."""
        return [line for lines in self.sessions.values() for line in lines]

    async def search(self, query: str, k: int) -> list[str]:
        words = sorted(set(terms(query)), key=len, reverse=True)[:3]
        if not words:
            return []
        found = self._grep("|".join(re.escape(word) for word in words), None, k)
        return [line.split(": ", 1)[1] if ": " in line else line for line in found]

    # -- the tools -------------------------------------------------------------------------------

    def _run(self, function: str, arguments: Any) -> str:
        """A tool's result as the model reads it; a bad call is its error, so the model can go on."""
        if not isinstance(arguments, dict):
            return "error: the arguments must be a JSON object"
        try:
            if function == "list_sessions":
                return self._list() or "(no sessions yet)"
            if function == "grep":
                session = arguments.get("session") or None
                found = self._grep(str(arguments["pattern"]), session, self.settings.matches)
                return "\n".join(found) or "(no match)"
            if function == "read":
                return self._read(str(arguments["session"]), arguments.get("start"), arguments.get("end"))
        except KeyError as missing:
            return f"error: {function} needs {missing}"
        except re.error as exc:
            return f"error: not a regular expression: {exc}"
        return f"error: no tool {function!r}; use list_sessions, grep or read"

    def _list(self) -> str:
        return "\n".join(
            f"{name}: {len(lines)} lines, {_date(lines[0])} to {_date(lines[-1])}"
            for name, lines in self.sessions.items()
        )

    def _grep(self, pattern: str, session: str | None, limit: int) -> list[str]:
        if session is not None and session not in self.sessions:
            raise KeyError(f"a session of list_sessions' (no {session!r})")
        compiled = re.compile(pattern, re.IGNORECASE)
        found = []
        for name, lines in self.sessions.items():
            if session is not None and name != session:
                continue
            found += [
                f"{name}:{number}: {line}" for number, line in enumerate(lines, 1) if compiled.search(line)
            ]
        return found[:limit]

    def _read(self, session: str, start: Any, end: Any) -> str:
        if session not in self.sessions:
            raise KeyError(f"a session of list_sessions' (no {session!r})")
        lines = self.sessions[session]
        first = max(int(start or 1), 1)
        last = min(int(end or first + self.settings.lines - 1), first + self.settings.lines - 1, len(lines))
        return (
            "\n".join(f"{number}: {lines[number - 1]}" for number in range(first, last + 1))
            or "(no such lines)"
        )


def _session_of(entry: Entry) -> str:
    if entry.session:
        return entry.session
    return f"{entry.time:%Y-%m-%d}" if entry.time else "undated"


def _date(line: str) -> str:
    return line[1:11] if line.startswith("[") else "undated"
