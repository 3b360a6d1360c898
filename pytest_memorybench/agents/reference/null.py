"""The floor: an agent that remembers nothing and always abstains."""

from __future__ import annotations

from pytest_memorybench.core.records import Message

ABSTENTION = "I don't know."


class NullAgent:
    """`--agent null`: abstains whatever it is asked."""

    async def reply(self, message: Message) -> str:
        return ABSTENTION
