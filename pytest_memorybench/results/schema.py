"""The schema of results.json, `memorybench.results/1`, as typed records.

results.json stays plain JSON, written once and read by many (compare, the gate, snapshots,
shards' merge, the tests), so its records are `TypedDict`s: the writer and every reader are type
checked against one definition, and the same definition validates a file (`validate`) and is
published as a JSON Schema (`json_schema`, docs/results.schema.json).  A part a scenario or a
store defines for itself (an item's `details`, a scenario's `metrics`, a store's figures) is a
`ScenarioFigures` here, open on purpose: its own module says what it holds.

The version is the schema's suffix: a change that renames or removes a field, or changes what
one means, is a new version; a field added is not (readers take what they know).
"""

from __future__ import annotations

from typing import Any, Literal, cast

from typing_extensions import NotRequired, TypedDict

from pytest_memorybench.core.schemas import RecordSchema
from pytest_memorybench.judges.identity import JudgeIdentityRecord

VERSION = 1
SCHEMA_PREFIX = "memorybench.results/"
SCHEMA = f"{SCHEMA_PREFIX}{VERSION}"

Interval = list[float]  # a 95 % bootstrap interval: [low, high]

ScenarioFigures = dict[str, Any]
"""What a scenario reports in its own terms: an item's `details` (its evidence, the parts of its
answer) and a scenario's `metrics` (what its `summarize(records)` returns: recall@k, a capacity
curve).  Open on purpose: some forty scenarios each define their own, results.json carries them
as JSON, and a reader that knows one (`losses.py` the evidence) reads it by name.  The one part
the harness itself reads, an item's evidence recall, is `EvidenceRecord`."""


class TimingRecord(TypedDict):
    """Timings of a context's calls (seconds), kept as percentiles so contexts pool (`core.timings`)."""

    calls: int
    mean: float
    p95: float
    percentiles: list[float]


class RecallRecord(TypedDict):
    """The mean evidence recall over the items that measured one (`conversation.evidence.mean_recall`)."""

    k: int
    mean: float
    questions: int
    over_k: int
    context_mean: NotRequired[float]
    context_questions: NotRequired[int]
    # how much of what was returned is evidence (conversation.precision.precision_means)
    precision_mean: NotRequired[float]
    precision_questions: NotRequired[int]
    share_mean: NotRequired[float]
    share_questions: NotRequired[int]
    context_precision_mean: NotRequired[float]
    context_precision_questions: NotRequired[int]
    context_share_mean: NotRequired[float]
    context_share_questions: NotRequired[int]


class StaleRecord(TypedDict):
    """The stale-fact rate over the questions whose answer replaced a value (`results.stale.stale_rate`)."""

    questions: int
    asserted: int  # answers asserting a superseded value, negation-aware
    asserted_rate: float
    reached_questions: int  # those where the agent showed what its answer was given
    reached: int  # a superseded value was in it
    reached_rate: float | None


class StoreShareRecord(TypedDict):
    """What a memory store did in one conversation (`agents.stores.figures.StoreFigures.since`)."""

    store: str
    k: int
    profile: NotRequired[str]  # runs before store profiles were on equal terms
    messages: int
    ingest_seconds: float
    search: TimingRecord | None
    returned_max: int
    over_k: int
    empty: int
    context_tokens: int
    answers: int
    native_answers: int
    ingest_tokens: NotRequired[int]
    stored: NotRequired[int | None]
    duplicates: NotRequired[int | None]
    server: NotRequired[str | None]


class StoreRecord(TypedDict):
    """A store's figures pooled over the run (`agents.stores.figures.pooled`)."""

    store: str
    k: int
    profile: str
    messages: int
    ingest_seconds: float
    ingest_ms_per_message: float | None
    searches: int
    search_p50_ms: float | None
    search_p95_ms: float | None
    returned_max: int
    over_k: int
    empty: int
    answers: int
    context_tokens_per_answer: float | None
    native_answers: int
    ingest_tokens: int
    stored: int | None
    duplicates: int | None
    server: str | None


class ItemJudgingRecord(TypedDict):
    """How a judge panel decided one item (`judges.panel.PanelItem.record`): its tasks, how many were
    unanimous, the single verdicts against their majority, and the item's score under each view."""

    tasks: int
    unanimous: int
    votes: int
    dissent: int
    repeat_dissent: NotRequired[dict[str, list[int]]]  # juror -> [its calls against its majority, calls]
    band: NotRequired[dict[str, float]]  # rubric -> score
    jurors: NotRequired[dict[str, float]]  # juror -> score
    repeats: NotRequired[dict[str, list[float]]]  # juror -> the score under each of its calls


class JurorPairRecord(TypedDict):
    """Two jurors and the share of items they scored alike."""

    jurors: list[str]
    agreement: float | None


class JuryRecord(TypedDict):
    """Each juror's score, Fleiss' kappa and every pair's agreement (`results/judge_robustness.py`)."""

    scores: dict[str, float]
    items: int
    fleiss_kappa: float | None
    pairwise: list[JurorPairRecord]


class RepeatSpreadRecord(TypedDict):
    """A juror asked more than once: the run's score under each call, their mean and sd, and the
    share of its calls against its own majority."""

    scores: list[float]
    mean: float
    sd: float
    dissent: float | None


class JudgingRecord(TypedDict):
    """How a run's (or a suite's) score depends on its judge (`results/judge_robustness.py`)."""

    items: int
    tasks: int
    unanimous: float | None
    dissent: float | None
    band: NotRequired[dict[str, float]]
    jury: NotRequired[JuryRecord]
    repeats: NotRequired[dict[str, RepeatSpreadRecord]]


class WriteLossRecord(TypedDict):
    """The items not retrieved, split by what the memory held at the end (`results/losses.py`):
    never stored, stored but not found, unknown (the memory cannot list); shares of the items with
    labelled evidence."""

    counts: dict[str, int]
    shares: dict[str, float]


class LossesRecord(TypedDict):
    """Where answers were lost, by class (`results/losses.py`)."""

    items: int
    labelled: int
    counts: dict[str, int]
    shares: dict[str, float]
    reasoning_loss: NotRequired[float]
    not_retrieved: NotRequired[WriteLossRecord]  # split by what the memory wrote


class WrittenShareRecord(TypedDict):
    """What a memory held at one conversation's end, against its questions' evidence
    (`conversation.written.write_figures`)."""

    memories: int
    duplicates: int
    evidence: int
    covered: float
    coverage: float | None
    without_evidence: int


class WrittenRecord(WrittenShareRecord):
    """What the memory held at each conversation's end, pooled over those it could list
    (`conversation.written.pooled_written`)."""

    conversations: int
    unlisted: int  # conversations whose memory could not list what it held
    without_evidence_share: float | None


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
    details: NotRequired[ScenarioFigures]  # the scenario's own figures (scenarios/*)
    judging: NotRequired[ItemJudgingRecord]  # each judge view's score, under a panel (judges/panel.py)
    answer_seconds: NotRequired[float | None]  # its slowest answer's reply; None: not measured


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
    reply_timing: TimingRecord | None
    memory_usage: dict[str, UsageRecord] | None
    store: StoreShareRecord | None
    write_timing: NotRequired[TimingRecord | None]  # a probe context's deliveries
    written: NotRequired[WrittenShareRecord | None]  # what the memory held at the end
    span_ratio: float | None


class StatsRecord(TypedDict):
    """A mean over the items that scored, the strict mean over every item (an error as 0), the
    mean's interval, and how many scored or errored."""

    mean: float | None
    mean_strict: float | None
    ci95: Interval | None
    n: int
    errors: int


class LatencyBudgetRecord(TypedDict):
    """Accuracy under a latency budget (`results/latency_budget.py`): the mean score had each answer
    had to come within each budget, LAFS over 1-200 s item by item and as LongMemEval-V2's one
    operating point, over the scored items whose answer latency is known."""

    items: int
    unmeasured: int  # scored items with no known answer latency, left out
    budgets: list[float]  # seconds
    accuracy: list[float]  # under each budget
    lafs: float
    mean_seconds: float
    lafs_operating_point: float
    deadline: NotRequired[float]  # --mb-answer-deadline
    late: NotRequired[int]  # answers after it, scored 0


class SuiteRecord(StatsRecord):
    """A suite's stats, with how its score depends on the judge when a panel judged it, and where
    its answers were lost when the agent said what it retrieved."""

    judging: NotRequired[JudgingRecord]
    losses: NotRequired[LossesRecord]
    latency_budget: NotRequired[LatencyBudgetRecord]


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

    losses: NotRequired[LossesRecord]
    ceiling: NotRequired[CeilingRecord]  # results/ceilings.py


class ScenarioRecord(StatsRecord):
    """A scenario's stats, with its categories', its evidence recall and its own metrics."""

    categories: NotRequired[dict[str, CategoryRecord]]
    evidence_recall: NotRequired[RecallRecord]
    losses: NotRequired[LossesRecord]
    metrics: NotRequired[ScenarioFigures]  # the scenario's `summarize(records)`
    stale_facts: NotRequired[StaleRecord]  # where the scenario knows superseded values


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
    memory: dict[str, dict[str, float]] | None  # phase -> what it spent (calls, tokens, seconds, cost)
    store: StoreRecord | None
    evidence_recall: RecallRecord | None
    judging: NotRequired[JudgingRecord]  # stability, jury, band
    losses: NotRequired[LossesRecord]  # where answers were lost
    stale_facts: NotRequired[StaleRecord]  # superseded values reached and asserted (results/stale.py)
    written: NotRequired[WrittenRecord]  # what the memory held at each conversation's end
    latency_budget: NotRequired[LatencyBudgetRecord]  # accuracy under latency budgets, LAFS


class PartialRecord(TypedDict):
    """What stopped a run before every selected test ended."""

    reason: str
    tests_with_results: int
    tests_selected: int


LevelChangeRow = list[float | str | None]  # [seconds, level, throughput or None, why]


class ProviderLevelRecord(TypedDict):
    """What auto concurrency did for one provider (`models.concurrency.AdaptiveLimit.record`)."""

    provider: str
    level: int
    settled: bool
    most_in_flight: int
    changes: list[LevelChangeRow]


class ConcurrencyRecord(TypedDict):
    """How many requests at once: a fixed number, or what each provider's measured limit did."""

    mode: Literal["fixed", "auto"]
    conversations: NotRequired[int]
    providers: NotRequired[list[ProviderLevelRecord]]


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


class JudgeStatsRecord(TypedDict):
    """What judging cost a process (`judges.base.JudgeStats`), under the judge's name."""

    name: str
    calls: int
    cache_hits: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    unparseable: int
    prompt_hashes: dict[str, str]
    model: str | None
    output_form: str | None
    version: str | None


class JudgePanelRecord(TypedDict):
    """A judge panel's shape (`judges.panel.JudgePanel.shape`) and each juror's judging."""

    jurors: list[str]
    repeats: int
    band: bool
    juror_stats: list[JudgeStatsRecord]


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
    answer_deadline: NotRequired[float]  # --mb-answer-deadline: later answers scored 0
    judge_prompt_hashes: dict[str, str]
    judge_identity: JudgeIdentityRecord
    judge_panel: NotRequired[JudgePanelRecord]
    concurrency: ConcurrencyRecord
    provenance: ProvenanceRecord


class GateRowRecord(TypedDict):
    """One mean the gate compared with the baseline's (`reports.gate.GateRow`)."""

    label: str
    level: str
    baseline: float | None
    current: float | None
    change: float | None
    ci95: Interval | None
    outside_ci: bool | None
    verdict: str


class GateRecord(TypedDict):
    """The gate's verdict (`reports.gate.GateResult.to_json`)."""

    passed: bool
    on: Literal["mean", "strict"]
    baseline: str | None
    max_drop: float | None
    failures: list[str]
    notes: list[str]
    rows: list[GateRowRecord]


class ResultsRecord(TypedDict):
    """results.json."""

    schema: str
    run: RunRecord
    totals: TotalsRecord
    conversations: list[ConversationRecord]
    suites: dict[str, SuiteRecord]
    scenarios: dict[str, ScenarioRecord]
    items: list[ItemRecord]
    gate: NotRequired[GateRecord]


_RECORDS = (
    TimingRecord,
    RecallRecord,
    StaleRecord,
    StoreShareRecord,
    StoreRecord,
    ItemJudgingRecord,
    JurorPairRecord,
    JuryRecord,
    RepeatSpreadRecord,
    JudgingRecord,
    LossesRecord,
    WriteLossRecord,
    WrittenShareRecord,
    WrittenRecord,
    ProviderLevelRecord,
    JudgeIdentityRecord,
    JudgeStatsRecord,
    JudgePanelRecord,
    GateRowRecord,
    GateRecord,
    UsageRecord,
    ItemRecord,
    ConversationRecord,
    StatsRecord,
    CeilingRecord,
    CategoryRecord,
    ScenarioRecord,
    LatencyRecord,
    LatencyBudgetRecord,
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
