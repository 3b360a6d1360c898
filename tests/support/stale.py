"""An agent stuck on the first value it heard, for the whole runs of the stale-fact rate."""

from __future__ import annotations

STUCK_AGENT = '''
import re

class Stuck:
    """Keeps the first value of `VALUES` it is told and gives it whenever asked."""

    def __init__(self):
        self.first = None

    def reply(self, message):
        found = VALUES.search(message.text)
        if found and self.first is None:
            self.first = found.group(0)
        return ANSWER.format(self.first) if message.text.endswith("?") else "Noted."

    def reset(self):
        self.first = None
'''


def stuck_agent(values: str, answer: str, imports: str = "") -> str:
    """The source of a module `stuck` whose `Stuck` agent keeps the first match of `values` (the
    regex as a Python expression, which `imports` may need) and answers every question with `answer`
    (`{}`: that value).  A test writes it with
    `pytester.makepyfile(stuck=...)` and runs `--agent=stuck:Stuck`."""
    return f"{imports}\n{STUCK_AGENT}\nVALUES = re.compile({values})\nANSWER = {answer!r}\n"
