"""What a run is, settled once before anything is driven: `open_run()` and its `RunContext`.

The options, what an earlier run folder says (resume, replay, merge), the published results a
re-score reads, the plan of tests and conversation groups, this shard's part, and where it all goes.
Everything after (the drivers, the outcome book, the pytest face, the reports) reads the context;
nothing writes into it.  Only pytest's selection narrows later, inside `selection`.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_memorybench.contract.probes import ProbeContext
from pytest_memorybench.conversation.log_reader import ConversationLog, iter_events, read_conversations
from pytest_memorybench.conversation.probe_log import ProbeLog, read_probe_log
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.files import write_atomically
from pytest_memorybench.core.load_report import LoadReport
from pytest_memorybench.core.readers import read_json
from pytest_memorybench.core.spans import Span
from pytest_memorybench.runner import drift
from pytest_memorybench.runner.folder import MANIFEST, Manifest, read_manifest, update_manifest, write_plan
from pytest_memorybench.runner.plan import PlannedTest, check_consistent, make_plan
from pytest_memorybench.runner.provenance import Provenance, read_sources
from pytest_memorybench.runner.selection import Selection
from pytest_memorybench.runner.settings import Settings, Shard
from pytest_memorybench.runner.shards import Merged, deal, fingerprint, read_shards
from pytest_memorybench.suite import Suite, check_data_names, load_suite, suite_source

if TYPE_CHECKING:  # what a re-score and the results need: imported when they are
    from pytest_memorybench.rescore.published import PublishedRun
    from pytest_memorybench.results.build import RunFacts


def new_run_id(now: datetime | None = None) -> str:
    """A run id: the UTC time and four random hex digits."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(2)}"


@dataclass(frozen=True)
class RunContext:
    """One run's settled facts: its settings, plan, folder and sources.  Frozen: read, never set."""

    settings: Settings
    run_id: str
    output: Path
    started: datetime
    clock_start: datetime  # the simulated clock's start: a resumed run keeps the first one's
    conversation_count: int
    suites: tuple[Suite, ...]
    spans: dict[str, Span]
    tests: dict[str, PlannedTest]
    contexts: dict[str, ProbeContext]  # probe contexts, by conversation group
    loaded: dict[str, LoadReport]  # by suite: what its published data held, became and could not be used for
    fingerprint: str
    shard: Shard | None
    selection: Selection
    logged: dict[str, ConversationLog]  # an earlier run's conversations (resume, replay)
    logged_probes: ProbeLog  # an earlier run's probe answers, and what its deliveries cost
    # the conversations the run this one resumes began, and what it spent on each (USD)
    resumed_groups: dict[str, float]
    merged: Merged | None = None
    published: PublishedRun | None = None
    worker: str | None = None  # the xdist worker's id; None on the controller or the only process
    judge_cache: Path | None = None
    # what the run runs on (data digests, definitions, prompts, judge, versions); the controller's alone
    provenance: Provenance | None = None
    notes: tuple[str, ...] = ()  # for the header: an earlier run with nothing to check drift against

    @property
    def interleaved_spans(self) -> dict[str, Span]:
        """The spans that mean something: suites whose tests are woven into a conversation."""
        return {suite.name: self.spans[suite.name] for suite in self.suites if suite.uses_span}

    @property
    def agentless(self) -> str | None:
        """What stands in for the agent when none is called: a run replayed, or published results."""
        if self.settings.replay is not None:
            return f"replaying {self.settings.replay}"
        if self.settings.rescore is not None:
            return f"re-scoring the published results in {self.settings.rescore}"
        if self.merged is not None:
            return f"merging {len(self.merged.shards)} shards"
        return None

    @property
    def shard_share(self) -> str:
        """How much of the plan this shard runs, for the header: "2 of 5 conversations"."""
        groups, shard_groups = self.selection.by_group, self.selection.shard_groups or ()
        return f"{len(shard_groups)} of {len(groups)} conversation{'s' if len(groups) != 1 else ''}"

    def spent_before(self, driven: Callable[[str], bool]) -> float:
        """What the run this one resumes spent (USD): on every conversation it began, or in an xdist
        worker, where each counts its own, on those it has `driven` again."""
        return sum(usd for group, usd in self.resumed_groups.items() if self.worker is None or driven(group))

    def selected_count(self) -> int:
        """The selected tests that will be driven (not those skipped before they start): the progress's
        total."""
        return sum(not self.tests[key].definition.skip_reason for key in self.selection.keys)

    def facts(self, agent: str | None, token_counter: str) -> RunFacts:
        """What ran, for results.json."""
        from pytest_memorybench.results.build import RunFacts

        settings = self.settings
        embedder = settings.agent_options.embedder
        return RunFacts(
            id=self.run_id,
            agent=agent,
            embedder=embedder.display
            if embedder is not None and settings.agent is not None and settings.agent.kind == "memory"
            else None,
            span={name: str(span) for name, span in self.interleaved_spans.items()},
            seed=settings.seed,
            profile=settings.profile,
            no_context=settings.no_context,
            answer_deadline=self.answer_deadline,
            suites=[suite.name for suite in self.suites],
            started=self.started,
            token_counter=token_counter,
            conversations_per_suite=self.conversation_count,
            resumed=settings.resume is not None,
            replayed_from=str(settings.replay) if settings.replay else None,
            fixed_concurrency=settings.concurrency,
            rescored_from=str(self.published.folder) if self.published is not None else None,
            rescore_skipped=tuple(self.published.problems) if self.published is not None else (),
            provenance=self.recorded_provenance(),
        )

    @property
    def answer_deadline(self) -> float | None:
        """The deadline the answers were held to: this run's, or for a merge the shards' (their items
        were scored under it)."""
        if self.merged is not None:
            return self.merged.shards[0].results["run"].get("answer_deadline")
        return self.settings.answer_deadline

    def recorded_provenance(self) -> dict[str, Any]:
        """The provenance results.json starts from: this run's, or for a merge the shards' own (what
        they ran on, the models that answered them), with what this command let through."""
        assert self.provenance is not None, "only the controller records provenance"
        own = self.provenance.to_json()
        if self.merged is None:
            return own
        first = read_manifest(self.merged.shards[0].folder).provenance
        if first is None:
            return own
        # (its shards recorded provenance in run.json, so in results.json too)
        answered = [shard.results["run"]["provenance"] for shard in self.merged.shards]
        models: dict[str, list[str]] = {}
        for record in answered:
            for asked, names in record["models"].items():
                models[asked] = sorted({*models.get(asked, []), *names})
        servers = {name: version for record in answered for name, version in record["servers"].items()}
        return {**first, "drift": own["drift"], "models": models, "servers": servers}

    def write_plan(self) -> None:
        """Save the manifest and every definition; a resumed run keeps the folder's own, adding what
        changed since its start when `--mb-allow-drift` let it through, and the options it went on
        with (the next resume starts from them)."""
        if self.settings.resume:
            if self.provenance is not None and self.provenance.drift:
                self._record_drift()
            update_manifest(self.output, options=self.settings.command.options)
            return
        write_plan(self.output, (test.definition for test in self.tests.values()), self.manifest())

    def _record_drift(self) -> None:
        """run.json's `provenance.drift`, with what this resume let through added (its first
        provenance stays: it is what the run started on)."""
        assert self.provenance is not None
        path = self.output / MANIFEST
        raw = read_json(path)
        recorded = raw.get("provenance")
        if isinstance(recorded, dict):
            recorded["drift"] = [*(recorded.get("drift") or []), *self.provenance.drift]
            write_atomically(path, json.dumps(raw, indent=2) + "\n")

    def record_selection(self, keys: Iterable[str]) -> None:
        """Save which tests pytest selected (`-k`, `-m`, paths), so a resume runs the same ones without
        being told; a resume keeps the run's own."""
        if not self.settings.resume and self.settings.estimate is None:  # (an estimate keeps no folder)
            update_manifest(self.output, selected=sorted(set(keys) & set(self.tests)))

    def manifest(self) -> dict[str, Any]:
        """run.json: what a resume, a replay, a shard's merge and the reports read back."""
        settings = self.settings
        shard = self.shard
        return {
            "id": self.run_id,
            "clock_start": self.clock_start.isoformat(),
            "spans": {name: str(span) for name, span in self.spans.items()},
            "suites": None if self.published else [suite_source(name) for name in settings.suites],
            "data": settings.data,
            "conversations": self.conversation_count,
            "seed": settings.seed,
            "sample": settings.sample,
            "profile": settings.profile,
            "no_context": settings.no_context,
            "replayed_from": str(settings.replay) if settings.replay else None,
            "rescored_from": str(settings.rescore) if settings.rescore else None,
            "fingerprint": self.fingerprint,
            "shard": {"index": shard.index, "count": shard.count, "fingerprint": self.fingerprint}
            if shard
            else None,
            "merged_from": [str(folder.folder) for folder in self.merged.shards] if self.merged else None,
            "provenance": self.provenance.to_json() if self.provenance is not None else None,
            "options": settings.command.options,
        }


def open_run(
    settings: Settings,
    run_id: str,
    output: Path,
    *,
    worker: str | None = None,
    judge_cache: Path | None = None,
) -> RunContext:
    """Settle a run: read what its sources say, check they agree with the options, and plan it."""
    merged = read_shards(settings.merge) if settings.merge else None
    if merged is not None:  # the shards' seed and profile, whatever this command says
        settings = dataclasses.replace(settings, seed=merged.seed, profile=merged.profile)
    previous = settings.previous_run
    source = previous or (merged.shards[0].folder if merged else None)  # the run folder planned before
    manifest = read_manifest(source) if source else None
    started = datetime.now(timezone.utc)
    conversation_count = manifest.conversations if manifest else settings.conversations
    published = None
    if settings.rescore is not None:
        from pytest_memorybench.rescore.formats import read_published_results

        published = read_published_results(settings.rescore, settings.data, settings.seed)
    suites = tuple(published.suites) if published else tuple(load_suite(name) for name in settings.suites)
    check_data_names(settings.data_given, suites, rescored=published is not None)
    logged_spans = manifest.spans if manifest else {}
    spans = {suite.name: logged_spans.get(suite.name) or settings.span or suite.span for suite in suites}
    if manifest:
        check_consistent(settings, manifest, spans, conversation_count)
    # the controller checks and records what the run runs on (its workers need not), before the plan
    # reads an earlier run's definitions: a plan that changed would read as definitions gone missing
    checked = _Provenance(settings, manifest, merged, source) if worker is None else None
    plan = make_plan(
        list(suites), spans, settings, conversation_count,
        definitions_from=source or settings.definitions, each_alone=published is not None,
        before_reading=checked if checked is not None else _unchecked,
    )  # fmt: skip
    by_group = plan.by_group()
    plan_fingerprint = fingerprint(plan.tests.values(), spans)
    if merged is not None and merged.fingerprint != plan_fingerprint:
        raise usage_error(
            "--mb-merge: the shards ran another plan than this command makes: give it the --mb-suite"
            " options the shards ran with"
        )
    shard = _shard(settings, manifest, merged)
    dealt = deal(by_group, shard.count) if shard else {}
    resumed = settings.resume is not None  # counts what the log says was spent (a replay calls nobody)
    logged = read_conversations(previous, spending=resumed) if previous else {}
    selection = Selection(
        plan.tests,
        by_group,
        logged,
        shard_groups={group for group, index in dealt.items() if index == shard.index} if shard else None,
        merged_keys=merged.records if merged is not None else None,
        resumed_keys=manifest.selected if settings.resume and manifest else None,
    )
    probes = read_probe_log(iter_events(previous), spending=resumed) if previous else ProbeLog()
    return RunContext(
        settings=settings,
        run_id=manifest.id if settings.resume and manifest else run_id,
        output=previous if settings.resume and previous else output,
        started=started,
        clock_start=manifest.clock_start if manifest else started,
        conversation_count=conversation_count,
        suites=suites,
        spans=spans,
        tests=plan.tests,
        contexts=plan.contexts,
        loaded=plan.loaded,
        fingerprint=plan_fingerprint,
        shard=shard,
        selection=selection,
        logged=logged,
        logged_probes=probes,
        resumed_groups=_recovered(plan.tests, logged, probes) if resumed else {},
        merged=merged,
        published=published,
        worker=worker,
        judge_cache=judge_cache,
        provenance=checked.provenance if checked else None,
        notes=checked.notes if checked else (),
    )


def _unchecked(generated: str) -> None:
    """An xdist worker's plan: its controller checked what the run runs on."""


@dataclass
class _Provenance:
    """The run's provenance, made once the plan's definitions are generated, and checked against the
    run this one continues, re-scores or joins (`drift.py`): raises a usage error if it changed."""

    settings: Settings
    manifest: Manifest | None
    merged: Merged | None
    source: Path | None
    provenance: Provenance | None = None
    notes: tuple[str, ...] = ()

    def __call__(self, generated: str) -> None:
        settings = self.settings
        made = Provenance.of(settings, generated, read_sources(settings))
        checked = self._check(made.to_json(), settings.seed, settings.allow_drift)
        self.provenance, self.notes = dataclasses.replace(made, drift=checked.changes), checked.notes

    def _check(self, current: dict[str, Any], seed: int, allow: bool) -> drift.DriftCheck:
        if self.merged is not None:
            folders = [shard.folder for shard in self.merged.shards]
            return drift.check_shards(folders, current, seed=seed, allow=allow)
        if self.manifest is None or self.source is None:
            return drift.DriftCheck()
        if self.settings.resume:
            return drift.check("--mb-resume", self.source, self.manifest, current, seed=seed, allow=allow)
        return drift.check(
            "--mb-replay", self.source, self.manifest, current, seed=seed, allow=allow,
            parts=drift.REPLAYED, rejudging=True,
        )  # fmt: skip


def _recovered(
    tests: dict[str, PlannedTest], logged: dict[str, ConversationLog], probes: ProbeLog
) -> dict[str, float]:
    """The conversations a resume takes over, and what their logged exchanges, answers and
    deliveries cost: paid for already, so the budget (`--mb-max-cost`) counts it and never skips
    them."""
    spent: dict[str, float] = {}
    for group, log in logged.items():
        spent[group] = sum(exchange.usage.cost_usd for exchange in log.exchanges if exchange.usage)
    for key, answers in probes.answers.items():
        if key in tests:
            group = tests[key].group
            spent[group] = spent.get(group, 0.0) + sum(a.usage.cost_usd for a in answers.values() if a.usage)
    for group, usage in probes.delivered.items():
        spent[group] = spent.get(group, 0.0) + usage.cost_usd
    return spent


def _shard(settings: Settings, manifest: Manifest | None, merged: Merged | None) -> Shard | None:
    """The part of the run this process runs: `--mb-shard`, or the one a resumed shard ran."""
    logged = Shard(*manifest.shard) if manifest is not None and manifest.shard and merged is None else None
    given = settings.shard
    if given is not None and logged is not None and given != logged:
        flag = "--mb-resume" if settings.resume else "--mb-replay"
        raise usage_error(
            f"--mb-shard {given} conflicts with the run given to {flag} (shard {logged}); drop --mb-shard"
        )
    return given or logged
