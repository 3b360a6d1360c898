"""A custom agent for pytest-memorybench, small enough to read in a minute.

Run it from the repository root:

    pytest --memorybench --agent=examples.custom_agent:make_agent --span=isolated

It keeps the user's statements and answers a question with the newest statement sharing a word
with it: good enough for Colours, and a starting point for wiring in a real memory system.  Only
`reply` is required; `reset` lets isolated runs start each test with an empty memory.
"""

from __future__ import annotations

import re

from pytest_memorybench import Message

WORD = re.compile(r"[a-z]+")
IGNORED = {"what", "is", "my", "the", "a", "an", "i", "you", "me", "do", "of"}


class NewestMatchAgent:
    def __init__(self) -> None:
        self.statements: list[str] = []

    def reply(self, message: Message) -> str:
        if "?" not in message.text:
            self.statements.append(message.text)
            return "Got it."
        asked = set(WORD.findall(message.text.lower())) - IGNORED
        for statement in reversed(self.statements):
            if asked & set(WORD.findall(statement.lower())):
                return statement
        return "I don't know."

    def reset(self) -> None:
        self.statements.clear()


def make_agent() -> NewestMatchAgent:
    return NewestMatchAgent()
