"""The typed records every layer exchanges: messages, test definitions, scores, outcomes.

Definitions and outcomes are plain dataclasses that round-trip through JSON, because they are
written to the run folder and must reload byte-identically to replay or re-score a run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pytest_memorybench.core.json_values import JsonObject

Role = Literal["user", "assistant", "system"]


@dataclass(frozen=True)
class Message:
    """One turn of the conversation as the agent sees it.

    `timestamp` is the benchmark's simulated clock, not the wall clock: scenarios such as Jokes
    move it forward by hours, and agents that care about time must read it from here.
    """

    text: str
    timestamp: datetime
    role: Role = "user"
    id: int | None = (
        None  # the source's own id for it (BEAM's chat ids, a book's chapter): what evidence names
    )
    # The session of the benchmark's history it belongs to (LoCoMo's and LongMemEval's sessions,
    # BEAM's chats): a store ingests a session at a time, dated by it, never a batch across two.
    session: str | None = None
    # Who said it, where the benchmark names its speakers (LoCoMo's two people, whose text starts
    # "Name: "): products that attach facts to people take the name (Zep's message `name`).
    speaker: str | None = None

    def labelled(self) -> str:
        """Its text with one speaker label, for products that take a transcript as one text
        (Graphiti's episodes, Hindsight's items): as it is where the benchmark's speaker opens it
        already (LoCoMo's "Caroline: …"), else after the speaker's name where one is named, else
        after its role.  "user: Caroline: …" would invite a spurious "user" entity."""
        if self.speaker and self.text.startswith(f"{self.speaker}: "):
            return self.text
        return f"{self.speaker or self.role}: {self.text}"


@dataclass(frozen=True)
class Score:
    """A scorer's verdict: a value in [0, 1] and the reasons a human needs to trust it."""

    value: float
    reasons: tuple[str, ...] = ()
    # Figures a family's summary aggregates beyond the value (BEAM's tau_norm and F1, nugget
    # verdicts); JSON-ready, and not part of equality: two verdicts are the same by value and reasons.
    details: JsonObject = field(default_factory=dict, compare=False)
    # How the score depends on its judge, when a panel judged it (`judges/panel.py`): each view's
    # score, unanimity; results.json's item `judging`.
    judging: JsonObject | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.value <= 1.0:
            raise ValueError(f"score {self.value} is outside [0, 1]")
        object.__setattr__(self, "reasons", tuple(self.reasons))


# The largest wait after a line: tokens as the largest span, seconds of ten years, a whole span.
WAIT_LIMITS = {"tokens": 10_000_000, "time": 315_360_000, "percentage_finished": 100}


@dataclass(frozen=True)
class ScriptLine:
    """A line the benchmark says, and what the scheduler must wait for after it.

    `wait` uses the GoodAI keys (`tokens`, `time` in seconds, `percentage_finished` of the span)
    so that published definition files load unchanged.
    """

    text: str
    is_question: bool = False
    wait: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Lines come from files too (GoodAI's, a run folder's): a wait the run cannot keep fails
        here, as the file's problem, not as an endless filler or a clock overflow later."""
        if not isinstance(self.text, str):
            raise TypeError(f"a script line must be text, got {type(self.text).__name__}")
        for key, value in self.wait.items():
            limit = WAIT_LIMITS.get(key)
            if limit is None:
                raise ValueError(f"unknown wait {key!r} (known: {', '.join(WAIT_LIMITS)})")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= limit:
                raise ValueError(f"wait {key} {value!r} is not a number from 0 to {limit:,}")


@dataclass(frozen=True)
class TestDefinition:
    """Everything needed to run and score one test, independent of span and agent.

    `ideal_answers` holds, for each question line in order, the reply a perfect agent gives (the
    oracle agent says exactly this); `expected` is whatever the scenario's scorer compares with.
    """

    __test__ = False  # not a pytest test class, despite the name

    suite: str
    scenario: str
    repetition: int
    seed: int
    script: tuple[ScriptLine, ...]
    ideal_answers: tuple[str, ...]
    expected: Any
    skills: tuple[str, ...] = ()
    params: JsonObject = field(default_factory=dict)
    reset_message: str | None = None
    skip_reason: str | None = None  # e.g. the data it needs was not given: the item is skipped
    # Probe families (one context, many questions; see contract/probes.py):
    probe_id: str | None = None  # the item's name, e.g. `conv3::knowledge_update-1`
    context: str | None = None  # the shared context the question is about: its conversation group
    category: str | None = None  # the summary row within the scenario: ability, question type
    markers: tuple[str, ...] = ()  # pytest markers beyond the skills (`chronological`, `bin0`)

    @property
    def test_id(self) -> str:
        """The readable id used in node ids and file names, e.g. `colours[rep1]`."""
        return self.probe_id or f"{self.scenario.rsplit('.', 1)[-1]}[rep{self.repetition}]"

    @property
    def questions(self) -> list[str]:
        return [line.text for line in self.script if line.is_question]

    def to_json(self) -> str:
        """The definition as a run folder keeps it.  Made once per definition (a frozen record): a
        plan's fingerprint, its drift check and its folder each read it, and LoCoMo has 1,986."""
        made = self.__dict__.get("_json")
        if made is None:
            made = json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
            self.__dict__["_json"] = made
        return made

    def content_hash(self) -> str:
        """The test as the agent meets it, whatever suite it runs in: two runs' items are the same test
        (`--mb-compare` pairs them) when these agree."""
        data = dataclasses.asdict(self)
        data.pop("suite")
        return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TestDefinition:
        data = dict(data)
        data["script"] = tuple(ScriptLine(**line) for line in data["script"])
        data["ideal_answers"] = tuple(data["ideal_answers"])
        data["skills"] = tuple(data.get("skills", ()))
        data["markers"] = tuple(data.get("markers", ()))
        return cls(**data)


@dataclass
class Usage:
    """What the agent cost: tokens in and out, seconds spent waiting for it, and US dollars."""

    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    cost_usd: float = 0.0
    calls: int = 0

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens - other.input_tokens,
            self.output_tokens - other.output_tokens,
            self.seconds - other.seconds,
            self.cost_usd - other.cost_usd,
            self.calls - other.calls,
        )

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.seconds += other.seconds
        self.cost_usd += other.cost_usd
        self.calls += other.calls

    def logged(self) -> dict[str, int | float]:
        """As the event log keeps it with each answer, for a resumed run to count again."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "seconds": round(self.seconds, 6),
            "cost_usd": self.cost_usd,
            "calls": self.calls,
        }

    @classmethod
    def from_logged(cls, value: object) -> Usage | None:
        """A logged usage read back; None for anything else (an older log, an edited line): that
        answer's spending is then not counted, which is no reason to ask the agent again."""
        if not isinstance(value, dict):
            return None
        fields = ("input_tokens", "output_tokens", "seconds", "cost_usd", "calls")
        numbers = [value.get(name) for name in fields]
        if not all(
            isinstance(number, (int, float)) and not isinstance(number, bool) and 0 <= number < math.inf
            for number in numbers
        ):
            return None
        tokens_in, tokens_out, seconds, cost, calls = numbers
        return cls(int(tokens_in), int(tokens_out), float(seconds), float(cost), int(calls))  # type: ignore[arg-type]


@dataclass
class Turn:
    """One exchange in a test's transcript, kept for failure messages and reports."""

    message: str
    reply: str
    timestamp: str
    is_question: bool = False


@dataclass
class TestOutcome:
    """The result of running one TestDefinition: what was asked, answered, and how it scored."""

    __test__ = False

    definition: TestDefinition
    responses: list[str]
    score: Score
    transcript: list[Turn]
    span_tokens: int
    usage: Usage
    error: str | None = (
        None  # set: the test has no score (the agent, its provider or the judge failed, or a cut)
    )
    span_target: int | None = None  # None: isolated
    details: JsonObject = field(default_factory=dict)  # family extras: retrieved ids, timings, curves
    error_kind: str | None = None  # whose failure: "agent", "provider", "judge", "interrupted"
    asked: tuple[str, ...] = ()  # the questions as asked, when known without a transcript (a shard's record)
    # how long the agent took to answer: its slowest answer's reply, seconds; None when not measured
    # (published results re-scored, a log from before it was kept)
    answer_seconds: float | None = None

    @property
    def questions(self) -> list[str]:
        """The questions as they were asked: a scenario may write one at ask time (Jokes' "… 3 hours
        ago?" in place of its script's placeholder); else as the definition holds them."""
        asked = list(self.asked) or [turn.message for turn in self.transcript if turn.is_question]
        return asked if len(asked) == len(self.definition.questions) else self.definition.questions

    @property
    def overrun(self) -> bool:
        """The test's needles spread over more conversation than its span (GoodAI flags this)."""
        return self.span_target is not None and self.span_tokens > self.span_target
