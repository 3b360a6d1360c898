"""The schema of results.json, `memorybench.results/1`, as typed records.

results.json stays plain JSON, written once and read by many (compare, the gate, snapshots,
shards' merge, the tests), so its records are `TypedDict`s: the writer and every reader are type
checked against one definition, and the same definition validates a file (`validate`) and is
published as a JSON Schema (`json_schema`, docs/results.schema.json).  A part a scenario or a
store defines for itself (an item's `details`, a scenario's `metrics`, a store's figures) is a
mapping here; its own module says what it holds.

The version is the schema's suffix: a change that renames or removes a field, or changes what
one means, is a new version; a field added is not (readers take what they know).
"""

from __future__ import annotations

from typing import Any, Literal, cast

from typing_extensions import NotRequired, TypedDict

from pytest_memorybench.core.schemas import RecordSchema

SCHEMA = "memorybench.results/1"
SCHEMA_PREFIX = "memorybench.results/"

Interval = list[float]  # a 95 % bootstrap interval: [low, high]


class UsageRecord(TypedDict):
    """What the agent (or a memory phase) spent."""

    input_tokens: int
    output_tokens: int
    seconds: float
    cost_usd: float
    calls: int


class ItemRecord(TypedDict):
    """One item (a test) and its outcome; `score` is None when it errored (no measure of memory)."""

    nodeid: str
    suite: str
    scenario: str
    test_id: str
    definition: str  # the definition's content hash
    category: NotRequired[str]
    score: float | None
    threshold: float
    passed: bool
    reasons: list[str]
    span_tokens: int
    span_target: int | None
    span_overrun: bool
    conversation: str
    skills: list[str]
    questions: list[str]
    expected: list[Any]
    responses: list[str]
    error: str | None
    error_kind: str | None
    usage: UsageRecord
    details: NotRequired[dict[str, Any]]  # the scenario's own figures (scenarios/*)
    judging: NotRequired[dict[str, Any]]  # each judge view's score, under a panel (judges/panel.py)


class ConversationRecord(TypedDict):
    """One conversation group: what it cost beyond its tests (`conversation.scheduler.ConversationStats`)."""

    group: str
    span: int | None
    tokens: int
    filler_messages: int
    saved_filler_messages: int
    filler_tokens: int
    clock_jumps: int
    overhead_usage: UsageRecord
    repetitions: int
    error: str | None
    error_kind: str | None
    reply_timing: dict[str, Any] | None  # core.timings
    memory_usage: dict[str, UsageRecord] | None
    store: dict[str, Any] | None  # agents.stores.figures
    write_timing: NotRequired[dict[str, Any] | None]  # a probe context's deliveries (core.timings)
    span_ratio: float | None


class StatsRecord(TypedDict):
    """A mean over the items that scored, the strict mean over every item (an error as 0), the
    mean's interval, and how many scored or errored."""

    mean: float | None
    mean_strict: float | None
    ci95: Interval | None
    n: int
    errors: int


class SuiteRecord(StatsRecord):
    """A suite's stats, with how its score depends on the judge when a panel judged it, and where
    its answers were lost when the agent said what it retrieved."""

    judging: NotRequired[dict[str, Any]]  # results/judge_robustness.py
    losses: NotRequired[dict[str, Any]]  # results/losses.py


class CeilingRecord(TypedDict):
    """The most a category's mean can honestly be, where the benchmark's gold is known to be partly
    wrong (LoCoMo's audit: `scenarios/locomo/ceiling.py`), and whether this run's mean is above it:
    then the judge is too lenient or the run saw the answers."""

    maximum: float
    wrong: int  # gold answers the audit finds wrong …
    of: int  # … among this many questions
    source: str  # "audit": the audit the run read, item by item; "published counts": its counts
    exceeded: bool


class CategoryRecord(StatsRecord):
    """A category's stats, where its answers were lost, and its ceiling where one is known."""

    losses: NotRequired[dict[str, Any]]  # results/losses.py
    ceiling: NotRequired[CeilingRecord]  # results/ceilings.py


class ScenarioRecord(StatsRecord):
    """A scenario's stats, with its categories', its evidence recall and its own metrics."""

    categories: NotRequired[dict[str, CategoryRecord]]
    evidence_recall: NotRequired[dict[str, Any]]
    losses: NotRequired[dict[str, Any]]  # results/losses.py
    metrics: NotRequired[dict[str, Any]]  # the scenario's `summarize(records)`


class LatencyRecord(TypedDict):
    """The run's reply latency, pooled from its conversations' timings (seconds)."""

    replies: int
    p50: float
    p95: float


class TotalsRecord(TypedDict):
    """The run's score, errors, latency and what the agent, its memory and the judge spent."""

    score: float
    max: int
    mean: float | None
    mean_strict: float | None  # over every item, an error counting 0
    ci95: Interval | None
    passed: int
    errors: int
    latency: LatencyRecord | None
    errors_by_kind: dict[str, int]
    agent_tokens_in: int
    agent_tokens_out: int
    agent_calls: int
    agent_seconds: float
    cost_usd: float
    judge_calls: int
    judge_cache_hits: int
    judge_unparseable: int
    judge_tokens_in: int
    judge_tokens_out: int
    judge_cost_usd: float
    memory: dict[str, dict[str, float]] | None
    store: dict[str, Any] | None
    evidence_recall: dict[str, Any] | None
    judging: NotRequired[dict[str, Any]]  # results/judge_robustness.py: stability, jury, band
    losses: NotRequired[dict[str, Any]]  # results/losses.py: where answers were lost


class PartialRecord(TypedDict):
    """What stopped a run before every selected test ended."""

    reason: str
    tests_with_results: int
    tests_selected: int


class ConcurrencyRecord(TypedDict):
    """How many requests at once: a fixed number, or what each provider's measured limit did."""

    mode: Literal["fixed", "auto"]
    conversations: NotRequired[int]
    providers: NotRequired[list[dict[str, Any]]]  # models.concurrency.AdaptiveLimit.record


class DataRecord(TypedDict):
    """A data file or folder the run read (`--mb-data`): its sha256 (a folder's: `core/digests.py`),
    bytes, files, and the revision the user gave (`NAME=PATH@REVISION`)."""

    path: str
    sha256: str
    bytes: int
    files: int
    folder: bool
    revision: str | None


class PlannedJudgeRecord(TypedDict):
    """The judge as the run planned it: its name, the options that make it again, and the version
    of each LLM prompt (for an LLM juror) and of the local judge's rules (for a local one)."""

    name: str
    judge: str
    jury: list[str]
    repeats: int
    band: bool
    prompts: dict[str, str]
    local_version: str | None


class PlatformRecord(TypedDict):
    """The Python and the operating system the run ran on."""

    python: str
    implementation: str
    os: str
    machine: str


class PackageRecord(TypedDict):
    """This package's version, and its git commit when it ran from a checkout."""

    version: str
    commit: str | None


class ProvenanceRecord(TypedDict):
    """What the run ran on (runner/provenance.py): enough for someone else to run it again and check."""

    data: dict[str, DataRecord]
    definitions: str  # sha256 of the definitions its code, data and seed made
    answer_prompts: dict[str, str]  # name -> hash of each prompt the agent answers with
    judge: PlannedJudgeRecord
    products: dict[str, str | None]  # distribution -> installed version (a store's SDK, the model's)
    servers: dict[str, str]  # store -> the version its service said it runs
    models: dict[str, list[str]]  # "provider:model" asked -> the models the responses named
    platform: PlatformRecord
    package: PackageRecord
    drift: list[str]  # what changed since the run it continues or joins, let through (--mb-allow-drift)


class RunRecord(TypedDict):
    """What ran: agent, judge, spans, seed, profile, suites, when, and where it came from."""

    id: str
    agent: str | None
    embedder: str | None
    judge: str
    span: dict[str, str]
    seed: int
    profile: str
    suites: list[str]
    started: str
    finished: str
    package_version: str
    token_counter: str
    conversations_per_suite: int
    resumed: bool
    partial: PartialRecord | None
    replayed_from: str | None
    rescored_from: NotRequired[str]
    rescore_skipped: NotRequired[list[str]]
    no_context: NotRequired[bool]  # --mb-no-context: the questions were asked with nothing delivered
    judge_prompt_hashes: dict[str, str]
    judge_identity: dict[str, Any]  # judges.identity
    judge_panel: NotRequired[dict[str, Any]]  # jurors, repeats, band and each juror's judging
    concurrency: ConcurrencyRecord
    provenance: ProvenanceRecord


class ResultsRecord(TypedDict):
    """results.json."""

    schema: str
    run: RunRecord
    totals: TotalsRecord
    conversations: list[ConversationRecord]
    suites: dict[str, SuiteRecord]
    scenarios: dict[str, ScenarioRecord]
    items: list[ItemRecord]
    gate: NotRequired[dict[str, Any]]  # reports.gate.GateResult.to_json


_RECORDS = (
    UsageRecord,
    ItemRecord,
    ConversationRecord,
    StatsRecord,
    CeilingRecord,
    CategoryRecord,
    ScenarioRecord,
    LatencyRecord,
    TotalsRecord,
    PartialRecord,
    ConcurrencyRecord,
    DataRecord,
    PlannedJudgeRecord,
    PlatformRecord,
    PackageRecord,
    ProvenanceRecord,
    RunRecord,
    ResultsRecord,
)


RESULTS = RecordSchema(SCHEMA, "results.json", _RECORDS, lambda: ResultsRecord)


def validate(results: object) -> ResultsRecord:
    """`results` checked against the schema, every field and no other: what a run writes must be
    exactly what readers are typed against.  Raises `ValueError` naming the first wrong field."""
    RESULTS.check(results)
    return cast(ResultsRecord, results)  # as written: pydantic's copy would turn a count 3 into 3.0


def json_schema() -> dict[str, Any]:
    """The JSON Schema of results.json, as the docs publish it."""
    return RESULTS.published()
