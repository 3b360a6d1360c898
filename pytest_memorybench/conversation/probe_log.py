"""What earlier sessions of a run logged of its probes, read back for `--mb-resume` and `--mb-replay`.

Every answer to a probe is logged (`probe_answer`) before it is scored, with what delivering its
context cost (`context_delivered`) and what the memory held at the end (`written`).  A resumed run
asks only the probes without a logged answer and counts what the logged ones cost as spent; a
replay re-scores from the log without calling the agent, and counts nothing as spent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Usage


@dataclass(frozen=True)
class LoggedAnswer:
    """One logged answer to a probe: the reply given after `at` context turns (`tokens` of them)."""

    text: str
    at: int
    tokens: int
    retrieved: list[str] | None = None
    seconds: float = 0.0  # the whole ask: retrieve (when asked for) and reply
    retrieve_seconds: float | None = None  # the retrieve call alone: MemBench's read time
    evidence: JsonObject | None = None  # evidence recall before the question (conversation.evidence)
    usage: Usage | None = None  # what the answer cost (a resumed run counts it; older logs: unknown)
    # What the scenario said back after the reply, and the agent's next reply, in turn (a scenario
    # with `follow_up`, e.g. sdebench feeding back failing tests); the scorer reads every reply.
    follow_ups: list[list[str]] | None = None
    reply_seconds: float | None = None  # the first reply alone: the answer's latency (older logs: unknown)


@dataclass
class ProbeLog:
    """What earlier sessions of a run logged of its probes: the answers, and what delivering each
    context cost (a context delivered again on resume is paid again; both count)."""

    answers: dict[str, dict[int, LoggedAnswer]] = field(default_factory=dict)  # by test key, ask index
    delivered: dict[str, Usage] = field(default_factory=dict)  # by conversation group
    # what the memory held at the end, by conversation group: each test's stored recall, the figures
    written: dict[str, tuple[JsonObject, JsonObject]] = field(default_factory=dict)


def read_probe_log(events: Iterator[dict[str, Any]], *, spending: bool = True) -> ProbeLog:
    """The logged answers of every probe, by test key and ask index (the last one logged wins), and
    what delivering each context cost.  `spending`: keep what each answer and delivery cost (a
    resume counts it as spent by the run it continues); a replay, which calls no agent, leaves it out."""
    log = ProbeLog()
    fields = {f.name for f in dataclasses.fields(LoggedAnswer)} - {"usage"}
    for event in events:
        kind = event.get("kind")
        usage = Usage.from_logged(event.get("usage")) if spending else None
        if kind == "probe_answer":
            answer = LoggedAnswer(**{k: v for k, v in event.items() if k in fields}, usage=usage)
            log.answers.setdefault(event["test"], {})[event["ask"]] = answer
        elif kind == "context_delivered" and usage is not None and isinstance(event.get("group"), str):
            log.delivered.setdefault(event["group"], Usage()).add(usage)
        elif kind == "written" and isinstance(event.get("group"), str):
            log.written[event["group"]] = (event["stored"], event["figures"])
    return log
