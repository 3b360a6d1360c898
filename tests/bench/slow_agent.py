"""A latency-bound agent for tests/bench/bench_conversation.py (part 4, xdist speed-up).

Every `reply` sleeps SLOW_AGENT_SECONDS (environment, default 2) and answers with the last user
statement it has seen: the last single-line message not ending in "?" (filler tasks are
multi-line; the intro and the questions end in "?"), or "ok" before the first one.  On Colours
that answer is the last colour statement, so a correct run passes every item.  There is no
`observe`, so filler replies cost latency too.

    python3 -m pytest --memorybench --agent tests.bench.slow_agent:make_agent ...
"""

from __future__ import annotations

import asyncio
import os

from pytest_memorybench import Message


class SlowAgent:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.last_statement = "ok"

    async def reply(self, message: Message) -> str:
        text = message.text.strip()
        if "\n" not in text and not text.endswith("?"):
            self.last_statement = text
        await asyncio.sleep(self.seconds)
        return self.last_statement


def make_agent() -> SlowAgent:
    return SlowAgent(float(os.environ.get("SLOW_AGENT_SECONDS", "2")))
