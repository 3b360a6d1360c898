"""The schema of events.jsonl, `memorybench.events/1`: one typed record per kind of event.

Every line of a run's event log is one of these, with the `seq` the log numbers it by (per file)
and the conversation `group` it belongs to.  Resume, replay, the report's transcripts and the
terminal's progress read them back; the same records validate a log (`validate_event`) and are
published as a JSON Schema (docs/events.schema.json).  Readers take the fields they know and pass
over the rest, so a field added keeps the version; a field renamed, removed or meaning something
else is `memorybench.events/2`.
"""

from __future__ import annotations

import functools
import operator
from typing import Annotated, Any, Literal

from typing_extensions import NotRequired, TypedDict

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.schemas import RecordSchema

EVENTS_SCHEMA = "memorybench.events/1"

Time = str  # the simulated clock, ISO 8601 with its offset
FillerReference = list[int]  # (first trivia index, items): the seed regenerates the text


class Spent(TypedDict):
    """What one reply, answer, observed filler or delivered batch cost (`core.records.Usage`): a
    resumed run counts it again for what it takes from the log instead of asking."""

    input_tokens: int
    output_tokens: int
    seconds: float
    cost_usd: float
    calls: int


class LogBegin(TypedDict):
    """A writer's part of the log begins (a session, an xdist worker, a resume): what it follows."""

    seq: int
    kind: Literal["log_begin"]
    schema: str


class _Event(TypedDict):
    seq: int
    group: str


class ConversationBegin(_Event):
    """A conversation starts: its tests, span, how filler reaches the agent, its clock."""

    kind: Literal["conversation_begin"]
    tests: list[str]
    span: int | None
    saving_mode: bool
    filler: str  # the trivia source, for a reader to regenerate filler text
    clock: Time


class ConversationEnd(_Event):
    """A conversation ended: its tokens and how much conversation its span cost."""

    kind: Literal["conversation_end"]
    tokens: int
    span_ratio: float | None


class MessageSent(_Event):
    """What the harness said: a test's line or filler (by reference)."""

    kind: Literal["message"]
    i: int  # the exchange's number in its conversation
    source: str  # "test", "filler", "intro", ...
    test: str | None
    text: NotRequired[str]
    filler: NotRequired[FillerReference]
    is_question: bool
    time: NotRequired[Time]  # none in a re-scored published result: it has no simulated clock


class ReplyHeard(_Event):
    """What the agent answered, and the conversation's tokens after it."""

    kind: Literal["reply"]
    i: int
    source: str
    test: str | None
    text: str
    time: NotRequired[Time]  # none in a re-scored published result, nor its tokens
    tokens: NotRequired[int]
    evidence: NotRequired[dict[str, Any]]  # conversation.evidence: recall of the test's evidence
    cut_from: NotRequired[int]  # the reply's length before it was bounded
    usage: NotRequired[Spent]  # what the agent's reply cost (none in a replayed or re-scored one)


class FillerObserved(_Event):
    """Filler handed over through `observe`, without a reply (saving mode)."""

    kind: Literal["observed"]
    i: int
    source: str
    filler: FillerReference
    time: Time
    tokens: int
    usage: NotRequired[Spent]  # what observing it cost (none when it was replayed)


class Resumed(_Event):
    """A resumed conversation's replay ended: what the live agent was told of it."""

    kind: Literal["resumed"]
    replayed_tokens: int
    told: int


class TestBegin(_Event):
    """A test said its first line, `tokens` into its conversation."""

    kind: Literal["test_begin"]
    test: str
    tokens: int
    time: Time


class TestEnd(_Event):
    """A test ended: with its span (scored), or with the error that left it unscored."""

    kind: Literal["test_end"]
    test: str
    span_tokens: NotRequired[int]
    overrun: NotRequired[bool]
    error: NotRequired[str | None]
    tokens: NotRequired[int]  # the conversation's tokens when it ended


class Scored(_Event):
    """A test's score and the scorer's reasons."""

    kind: Literal["score"]
    test: str
    value: float
    reasons: list[str]


class Waiting(_Event):
    """A test waits: for the conversation to reach `until_tokens`, or the clock `until_time`."""

    kind: Literal["wait"]
    test: str
    until_tokens: int | None
    until_time: Time | None


class ClockJump(_Event):
    """The simulated clock moved forward (nothing else could run)."""

    kind: Literal["clock_jump"]
    seconds: float
    time: Time


class CallbackRegistered(_Event):
    """A test listens to every exchange from now on (prospective memory, triggers)."""

    kind: Literal["callback_registered"]
    test: str


class CallbackDeregistered(_Event):
    """A test stopped listening."""

    kind: Literal["callback_deregistered"]
    test: str


class AgentFailed(_Event):
    """The agent (or its provider) failed after its retries: the conversation ends here."""

    kind: Literal["agent_error"]
    error: str
    time: NotRequired[Time]


class JudgeCalled(_Event):
    """A judge's verdict on a reply (or the error that kept it from giving one)."""

    kind: Literal["judge_call"]
    task: str
    scorer: str
    fingerprint: str
    cached: bool
    verdict: dict[str, Any] | None
    error: str | None
    # Under a panel (repeats, a jury, the band): what each voice decided, rubric → juror → repeat.
    votes: NotRequired[dict[str, list[list[Any]]]]


class ProbeBegin(_Event):
    """A probe context starts: its tests, and those a resumed run already answered."""

    kind: Literal["probe_begin"]
    context: str
    tests: list[str]
    replayed: list[str]


class ContextDelivered(_Event):
    """A batch of a probe context reached the agent: turns and tokens so far."""

    kind: Literal["context_delivered"]
    turns: int
    tokens: int
    observed: bool
    usage: NotRequired[Spent]  # what taking in this batch cost the agent


class ProbeEnd(_Event):
    """A probe context ended."""

    kind: Literal["probe_end"]
    context: str
    tokens: int
    turns: int


class ProbeAnswered(_Event):
    """One answer to a probe (`probe_log.LoggedAnswer`): asked after `at` context turns."""

    kind: Literal["probe_answer"]
    test: str
    ask: int
    text: str
    at: int
    tokens: int
    retrieved: list[str] | None
    seconds: float
    retrieve_seconds: float | None
    evidence: dict[str, Any] | None
    usage: NotRequired[Spent]  # what the answer cost (older logs: not recorded)
    # A scenario that answers back (sdebench's failing tests): [what it said, the reply] pairs
    follow_ups: NotRequired[list[list[str]] | None]
    reply_seconds: NotRequired[float | None]  # the reply alone: the answer's latency (older logs: none)


class Written(_Event):
    """What the memory held at the conversation's end, matched against its questions' evidence
    (`conversation/written.py`): each test's stored recall and the write figures; a replay reads
    them back."""

    kind: Literal["written"]
    stored: dict[str, dict[str, Any]]
    figures: dict[str, Any]


KINDS: tuple[type, ...] = (
    LogBegin,
    ConversationBegin,
    ConversationEnd,
    MessageSent,
    ReplyHeard,
    FillerObserved,
    Resumed,
    TestBegin,
    TestEnd,
    Scored,
    Waiting,
    ClockJump,
    CallbackRegistered,
    CallbackDeregistered,
    AgentFailed,
    JudgeCalled,
    ProbeBegin,
    ContextDelivered,
    ProbeEnd,
    ProbeAnswered,
    Written,
)


def _one_event() -> Any:
    """Any event, told apart by its `kind`."""
    from pydantic import Field

    return Annotated[functools.reduce(operator.or_, KINDS), Field(discriminator="kind")]


EVENTS = RecordSchema(EVENTS_SCHEMA, "an event", KINDS, _one_event)


def validate_event(event: object) -> None:
    """`event` checked against its kind's record, every field and no other; ValueError naming the
    first wrong field otherwise."""
    EVENTS.check(event)


def events_json_schema() -> JsonObject:
    """The JSON Schema of one line of events.jsonl, as the docs publish it."""
    return EVENTS.published()
