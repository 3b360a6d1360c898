"""The command-line options, read once and checked, so every later layer gets valid settings."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typing_extensions import TypedDict

from pytest_memorybench.agents.spec import (
    DEFAULT_STORE_K,
    LLM_PROVIDERS,
    AgentOptions,
    AgentSpec,
    parse_agent_spec,
)
from pytest_memorybench.core.data_paths import data_paths
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.names import suggest
from pytest_memorybench.core.spans import Span, parse_span
from pytest_memorybench.judges.spec import JudgeSpec, PanelSettings, parse_judge_spec
from pytest_memorybench.models.limits import RateLimits
from pytest_memorybench.models.prices import Price
from pytest_memorybench.runner.folder import MAX_CONVERSATIONS, MAX_SHARDS, read_manifest
from pytest_memorybench.runner.gate_settings import GateSettings
from pytest_memorybench.runner.resumed import AUTO, RunCommand, as_resumed
from pytest_memorybench.scoring.profiles import PROFILES, Profile

if TYPE_CHECKING:
    from pytest_memorybench.agents.mechanisms.embedders import EmbedderSpec

DEFAULT_SUITES = ("ltm",)
MAX_TIMEOUT = 86_400.0
MAX_CONCURRENCY = 256
MAX_RATE = 1e9  # requests or tokens a minute: anything above is no limit at all


_SHARD = re.compile(r"^\s*(\d{1,4})\s*/\s*(\d{1,4})\s*$")


@dataclass(frozen=True)
class Shard:
    """`--mb-shard I/N`: this run is the I-th of N parts."""

    index: int  # from 1
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = _SHARD.match(text)
        if match is None or not 1 <= int(match[1]) <= int(match[2]) <= MAX_SHARDS:
            raise usage_error(
                f"--mb-shard {text!r}: expected I/N with 1 <= I <= N <= {MAX_SHARDS}, e.g. --mb-shard 2/3 for"
                " the second of three parts"
            )
        return cls(int(match[1]), int(match[2]))


@dataclass(frozen=True)
class Settings:
    """The command line read once and checked, for every later layer."""

    agent: AgentSpec | None
    judge: JudgeSpec
    span: Span | None  # None: each suite's own default
    suites: tuple[str, ...]
    seed: int
    profile: Profile
    threshold: float | None
    output: Path | None
    agent_options: AgentOptions
    conversations: int = 1
    concurrency: int | None = (
        None  # conversation groups one process drives at once; None: auto (agents.concurrency)
    )
    resume: Path | None = None  # continue this run folder
    replay: Path | None = None  # re-score this run folder without an agent
    definitions: Path | None = None  # reuse this run folder's definitions
    rescore: Path | None = None  # score the published GoodAI results in this folder, without an agent
    shard: Shard | None = None  # run only this part of the run (--mb-shard I/N)
    merge: tuple[Path, ...] = ()  # the shards' run folders to report as one run (--mb-merge)
    estimate: int | None = None  # reply tokens assumed when only estimating the bill (--mb-estimate)
    data: dict[str, str] = field(default_factory=dict)  # scenario short name → data path
    data_given: tuple[str, ...] = ()  # the names of `data` this command gives (not an earlier run's)
    revisions: dict[str, str] = field(default_factory=dict)  # data name → the revision given (PATH@REV)
    allow_drift: bool = False  # --mb-allow-drift: continue, join or re-score a run whose sources changed
    gate: GateSettings = field(default_factory=lambda: GateSettings())
    max_cost: float | None = None  # USD the run may spend on agent and judge calls
    prices: dict[str, Price] = field(default_factory=dict)  # model → price, beyond the built-in table
    sample: int | None = None  # about this many items per suite, stratified (--mb-sample N)
    no_context: bool = False  # ask the probe questions with no context delivered (--mb-no-context)
    panel: PanelSettings = field(default_factory=PanelSettings)  # jury, repeats, band
    answer_deadline: float | None = None  # seconds an answer may take to count (--mb-answer-deadline)
    command: RunCommand = field(default_factory=RunCommand)  # what run.json keeps for a resume

    @property
    def previous_run(self) -> Path | None:
        """The run folder whose log and definitions this run continues or re-scores."""
        return self.resume or self.replay

    @classmethod
    def from_options(cls, option: Any, *, paths_given: bool = False) -> Settings:
        """Settings from pytest's parsed options.

        With paths on the command line (the user's own memory tests), built-in suites run only
        when `--mb-suite` asks for them; with no paths, the default suite runs.
        """
        # --mb-resume DIR: what its run was given, where this command says nothing
        option = as_resumed(option)
        estimate = (
            getattr(option, "mb_estimate_reply", None) if getattr(option, "mb_estimate", False) else None
        )
        if estimate is not None and estimate < 1:
            raise usage_error(f"--mb-estimate-reply {estimate} must be a positive number of tokens")
        # An estimate calls no judge (the local one stands in for it, billed as it would bill), and asks
        # for no key.
        judge = parse_judge_spec(option.mb_judge)

        threshold = option.mb_threshold
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            raise usage_error(f"--mb-threshold {threshold:g} is outside [0, 1]")
        conversations = option.mb_conversations
        if not 1 <= conversations <= MAX_CONVERSATIONS:
            raise usage_error(f"--mb-conversations {conversations} must be from 1 to {MAX_CONVERSATIONS}")
        concurrency = _concurrency(getattr(option, "mb_concurrency", AUTO))
        earlier = _EarlierRuns.from_options(option)
        # a run continued or re-scored keeps the profile it ran under, unless told another
        manifest = read_manifest(earlier.planned_in) if earlier.planned_in else None
        planned = manifest.profile if manifest else None
        profile = option.mb_profile or planned or _default_profile(option)
        if profile not in PROFILES:
            hint = suggest(profile, PROFILES, where=f"profiles: {', '.join(PROFILES)}")
            raise usage_error(f"--mb-profile {profile!r} is not a scoring profile; {hint}")
        suites, data, data_given, revisions = _as_planned(option, earlier.planned_in, paths_given)
        agent = parse_agent_spec(option.mb_agent) if option.mb_agent is not None else None
        return cls(
            agent=agent,
            judge=judge,
            span=parse_span(option.mb_span) if option.mb_span is not None else None,
            suites=suites,
            seed=option.mb_seed,
            profile=profile,
            threshold=threshold,
            output=Path(option.mb_output) if option.mb_output else None,
            agent_options=_agent_options(option, agent, adaptive=concurrency is None),
            conversations=conversations,
            concurrency=concurrency,
            resume=earlier.resume,
            replay=earlier.replay,
            definitions=_run_folder(option.mb_definitions, "--mb-definitions", need="definitions"),
            rescore=earlier.rescore,
            shard=earlier.shard,
            merge=earlier.merge,
            estimate=estimate,
            data=data,
            data_given=data_given,
            revisions=revisions,
            allow_drift=bool(getattr(option, "mb_allow_drift", False)),
            gate=GateSettings.from_options(option),
            max_cost=_max_cost(getattr(option, "mb_max_cost", None)),
            prices=_prices(getattr(option, "mb_price", None) or []),
            sample=_sample(getattr(option, "mb_sample", None)),
            no_context=bool(getattr(option, "mb_no_context", False))
            or bool(manifest and manifest.no_context),
            panel=PanelSettings.from_options(
                getattr(option, "mb_jury", None),
                getattr(option, "mb_judge_repeats", None),
                bool(getattr(option, "mb_judge_band", False)),
                option.mb_judge,
            ),
            command=RunCommand.of(option),
            answer_deadline=_answer_deadline(getattr(option, "mb_answer_deadline", None)),
        )


@dataclass(frozen=True)
class _EarlierRuns:
    """What a run takes from runs before it: one to resume or replay, published results to re-score,
    its part of a sharded run, or the shards to merge (which exclude each other where they clash)."""

    resume: Path | None
    replay: Path | None
    rescore: Path | None
    shard: Shard | None
    merge: tuple[Path, ...]

    @property
    def planned_in(self) -> Path | None:
        """The run folder whose plan (suites, data) this run keeps."""
        return self.resume or self.replay or (self.merge[0] if self.merge else None)

    @classmethod
    def from_options(cls, option: Any) -> _EarlierRuns:
        resume = _run_folder(option.mb_resume, "--mb-resume")
        replay = _run_folder(option.mb_replay, "--mb-replay")
        if resume and replay:
            raise usage_error(
                "--mb-resume and --mb-replay exclude each other: continue a run, or re-score it"
            )
        rescore = _existing_path(getattr(option, "mb_rescore", None), "--mb-rescore")
        if rescore and (resume or replay):
            flag = "--mb-resume" if resume else "--mb-replay"
            raise usage_error(
                f"--mb-rescore and {flag} exclude each other: re-score published results, or a run of yours"
            )
        shard = Shard.parse(option.mb_shard) if getattr(option, "mb_shard", None) is not None else None
        merge = tuple(
            _a_run_folder(folder, "--mb-merge") for folder in getattr(option, "mb_merge", None) or ()
        )
        given = {"--mb-shard": shard, "--mb-resume": resume, "--mb-replay": replay, "--mb-rescore": rescore}
        clashing = [flag for flag, value in {**given, "--agent": option.mb_agent}.items() if value]
        if merge and clashing:
            raise usage_error(
                f"--mb-merge reports the shards' results and runs nothing; drop {', '.join(clashing)}"
            )
        return cls(resume, replay, rescore, shard, merge)


def _agent_options(option: Any, agent: AgentSpec | None, *, adaptive: bool) -> AgentOptions:
    """`--mb-context`, `--mb-timeout`, `--mb-thinking`, the provider's limits and a memory system's parts."""
    context = option.mb_context
    if context is not None and context <= 0:
        raise usage_error(f"--mb-context {context} must be a positive number of tokens")
    timeout = option.mb_timeout
    if not 0 < timeout <= MAX_TIMEOUT:
        raise usage_error(
            f"--mb-timeout {timeout:g} must be a number of seconds from 0 to {MAX_TIMEOUT:g} (a day)"
        )
    thinking = getattr(option, "mb_thinking", None)
    if thinking is not None and thinking < 1024:
        raise usage_error(
            f"--mb-thinking {thinking} must be at least 1024 tokens (Anthropic's smallest thinking budget)"
        )
    if thinking is not None and (agent is None or agent.model.kind != "anthropic"):
        raise usage_error(
            "--mb-thinking sets Anthropic's extended thinking budget and needs --agent anthropic:MODEL; "
            "OpenAI's reasoning models (o3, o4-mini, gpt-5…) reason without it"
        )
    return AgentOptions(
        context_tokens=context,
        timeout=timeout,
        thinking_tokens=thinking,
        limits=_rate_limits(option, adaptive),
        **_memory_options(option, agent),
    )


class _MemoryOptions(TypedDict):
    """The options of `AgentOptions` a memory system or a store takes."""

    memory_model: AgentSpec | None
    embedder: EmbedderSpec
    k: int
    memory_tokens: int | None


def _memory_options(option: Any, agent: AgentSpec | None) -> _MemoryOptions:
    """`--mb-memory-model` and `--mb-embedder`, which only a memory system (MECHANISM:MODEL) uses
    (a store, `--mb-embedder` and `--mb-k`)."""
    from pytest_memorybench.agents.mechanisms.embedders import parse_embedder

    worker_text = getattr(option, "mb_memory_model", None)
    embedder = parse_embedder(getattr(option, "mb_embedder", None) or "lexical")
    kind = agent.kind if agent is not None else None
    if (worker_text is not None and kind != "memory") or (
        embedder.kind != "lexical" and kind not in ("memory", "store")
    ):
        flag = "--mb-memory-model" if worker_text is not None else "--mb-embedder"
        raise usage_error(
            f"{flag} sets up a memory system; give one with --agent MECHANISM:MODEL (e.g. --agent"
            " rag:openai:gpt-4o-mini)"
        )
    k = getattr(option, "mb_k", None)
    if k is not None and (kind != "store" or k < 1):
        raise usage_error(
            f"--mb-k {k}: the hits each answer of a memory store gets, 1 or more, with --agent STORE:MODEL"
            " (e.g. --agent bm25:openai:gpt-4o-mini)"
        )
    memory_tokens = getattr(option, "mb_context_tokens", None)
    if memory_tokens is not None and (kind not in ("store", "memory") or memory_tokens < 1):
        raise usage_error(
            f"--mb-context-tokens {memory_tokens}: the tokens of memory each answer is given, 1 or more,"
            " with --agent STORE:MODEL or MECHANISM:MODEL (e.g. --agent bm25:openai:gpt-4o-mini)"
        )
    worker = None
    if worker_text is not None:
        worker = parse_agent_spec(worker_text)
        if worker.kind not in LLM_PROVIDERS:
            raise usage_error(
                f"--mb-memory-model {worker_text!r}: give a model: openai:MODEL, anthropic:MODEL,"
                " openai:MODEL@URL or a URL"
            )
    return _MemoryOptions(
        memory_model=worker, embedder=embedder, k=k or DEFAULT_STORE_K, memory_tokens=memory_tokens
    )


def _default_profile(option: Any) -> str:
    """`paper`, or `official` when re-scoring another harness's verdicts (a LoCoMo pipeline's, AMB's,
    memorybench's, LongMemEval's): they are an LLM judge's, and token F1 set against them would
    measure the difference of two rules."""
    rescore = getattr(option, "mb_rescore", None)
    if rescore is not None:
        from pytest_memorybench.rescore.formats import official_by_default  # reads the file

        if official_by_default(Path(rescore)):
            return "official"
    return "paper"


def _concurrency(value: Any) -> int | None:
    """`--mb-concurrency`: a number of conversations, or None for auto."""
    text = str(value).strip().lower()
    if text == AUTO:
        return None
    try:
        concurrency = int(text)
    except ValueError:
        concurrency = 0
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise usage_error(
            f"--mb-concurrency {value} must be auto or from 1 to {MAX_CONCURRENCY} conversations at once"
        )
    return concurrency


def _rate_limits(option: Any, adaptive: bool) -> RateLimits:
    in_flight = getattr(option, "mb_max_requests", None)
    if in_flight is not None and not 1 <= in_flight <= MAX_CONCURRENCY:
        raise usage_error(
            f"--mb-max-requests {in_flight} must be from 1 to {MAX_CONCURRENCY} requests in flight"
        )
    rates = {}
    for flag, name, what in (("--mb-rpm", "mb_rpm", "requests"), ("--mb-tpm", "mb_tpm", "tokens")):
        value = getattr(option, name, None)
        if value is not None and not 1 <= value <= MAX_RATE:
            raise usage_error(f"{flag} {value:g} must be from 1 to {MAX_RATE:g} {what} a minute")
        rates[name] = value
    return RateLimits(in_flight, rates["mb_rpm"], rates["mb_tpm"], adaptive)


def _answer_deadline(value: float | None) -> float | None:
    if value is not None and not 0 < value <= MAX_TIMEOUT:
        raise usage_error(
            f"--mb-answer-deadline {value:g} must be a number of seconds above 0 and at most"
            f" {MAX_TIMEOUT:g} (a day), e.g. --mb-answer-deadline 5 for DialSim's longest limit"
        )
    return value


def _max_cost(value: float | None) -> float | None:
    if value is not None and not 0 < value < math.inf:
        raise usage_error(f"--mb-max-cost {value:g} must be a positive number of US dollars")
    return value


def _prices(values: list[str]) -> dict[str, Price]:
    """`MODEL=INPUT,OUTPUT` in USD per million tokens, as the price table lists them."""
    prices = {}
    for value in values:
        model, sep, numbers = value.partition("=")
        parts = numbers.split(",")
        try:
            if not sep or not model or len(parts) != 2:
                raise ValueError
            price = Price(float(parts[0]), float(parts[1]))
            if not (0 <= price.input_per_million < math.inf and 0 <= price.output_per_million < math.inf):
                raise ValueError
        except ValueError:
            raise usage_error(
                f"--mb-price {value!r}: expected MODEL=INPUT,OUTPUT in USD per million tokens, "
                "e.g. --mb-price my-model=0.50,1.50"
            ) from None
        prices[model] = price
    return prices


def _sample(value: int | None) -> int | None:
    if value is not None and value < 1:
        raise usage_error(f"--mb-sample {value} must be a positive number of items")
    return value


def _as_planned(
    option: Any, previous: Path | None, paths_given: bool
) -> tuple[tuple[str, ...], dict[str, str], tuple[str, ...], dict[str, str]]:
    """The suites and data files to run: the options', or else, continuing or re-scoring a run
    (`--mb-resume`, `--mb-replay`, `--mb-merge`), the ones that run was planned with; the names of
    the data files the options give (the plan checks that a selected suite reads each: an earlier
    run's were checked when it started); and the revisions given of the data (`NAME=PATH@REVISION`)."""
    suites = tuple(option.mb_suite or (() if paths_given else DEFAULT_SUITES))
    data, revisions = data_paths(option.mb_data or [])
    given = tuple(data)
    if previous is None:
        return suites, data, given, revisions
    manifest = read_manifest(previous)
    if not option.mb_suite and not paths_given and manifest.suites:
        suites = manifest.suites
    for name, path in manifest.data.items():
        if name not in data:
            if not Path(path).exists():
                raise usage_error(
                    f"the run in {previous} read {name} from {path}, which is gone; give --mb-data"
                    f" {name}=PATH"
                )
            data[name] = path
            if name in manifest.revisions:
                revisions[name] = manifest.revisions[name]
    return suites, data, given, revisions


def _existing_path(value: str | None, flag: str) -> Path | None:
    """A folder (GoodAI's results) or a file (a LoCoMo pipeline's eval_results.json)."""
    if value is None:
        return None
    path = Path(value)
    if not path.exists():
        raise usage_error(f"{flag} {value}: no such file or folder")
    return path.resolve()


def _run_folder(value: str | None, flag: str, need: str = "run.json") -> Path | None:
    """A previous run folder, checked to hold what `flag` reads from it; None when not given."""
    return None if value is None else _a_run_folder(value, flag, need)


def _a_run_folder(value: str, flag: str, need: str = "run.json") -> Path:
    """A previous run folder, checked to hold what `flag` reads from it."""
    folder = Path(value)
    if not (folder / need).exists():
        raise usage_error(f"{flag} {value}: not a pytest-memorybench run folder (no {need} in it)")
    return folder.resolve()
