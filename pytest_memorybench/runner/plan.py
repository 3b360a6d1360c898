"""The plan of a run: every test of the selected suites with its conversation group, span and threshold.

The same seed and options make the same plan on every machine and in every xdist worker: the
definitions are generated deterministically (or read back from a run folder), and the groups
follow from them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_memorybench.contract.probes import ProbeContext
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.load_report import LoadReport
from pytest_memorybench.core.records import TestDefinition, TestOutcome
from pytest_memorybench.core.spans import ISOLATED, Span
from pytest_memorybench.runner.folder import Manifest, load_definition
from pytest_memorybench.runner.settings import Settings
from pytest_memorybench.scenarios import SCENARIOS
from pytest_memorybench.scoring.profiles import profiles_of
from pytest_memorybench.suite import Suite


@dataclass(frozen=True)
class PlannedTest:
    """A definition as the run schedules it: its key (the item's node id), group and threshold."""

    key: str
    group: str
    definition: TestDefinition
    threshold: float
    span: Span

    def passes(self, outcome: TestOutcome) -> bool:
        return outcome.error is None and outcome.score.value >= self.threshold


@dataclass
class Plan:
    """The run's tests and probe contexts, and the conversation group of each."""

    tests: dict[str, PlannedTest] = field(default_factory=dict)  # by key, in the suites' order
    contexts: dict[str, ProbeContext] = field(default_factory=dict)  # probe contexts, by conversation group
    loaded: dict[str, LoadReport] = field(default_factory=dict)  # by suite: what its published data held
    # sha256 of the definitions as this code, data and seed make them now, before any are read back
    # from a run folder: what a resumed, replayed or merged run is checked against (runner/drift.py)
    generated: str = ""

    def by_group(self) -> dict[str, list[PlannedTest]]:
        groups: dict[str, list[PlannedTest]] = {}
        for test in self.tests.values():
            groups.setdefault(test.group, []).append(test)
        return groups


def make_plan(
    suites: list[Suite],
    spans: dict[str, Span],
    settings: Settings,
    conversations: int,
    *,
    definitions_from: Path | None = None,
    each_alone: bool = False,
    before_reading: Callable[[str], None] = lambda generated: None,
) -> Plan:
    """Every test of `suites`, grouped into conversations.

    `definitions_from`: a run folder whose definitions replace the generated ones (resume, replay,
    `--mb-definitions`), read only after `before_reading` was told the generated definitions' hash
    (a drift check, which refuses before a changed plan reads as missing definitions); `each_alone`:
    every test is its own conversation whatever the span (a published result is scored on its own).
    """
    plan = Plan()
    digest = hashlib.sha256()
    planned: list[tuple[Suite, list[TestDefinition]]] = []
    for suite in suites:
        generated = suite.generate(settings.seed, data=settings.data, span=spans[suite.name])
        if generated.loaded is not None:
            plan.loaded[suite.name] = generated.loaded
        plan.contexts.update(
            (_context_group(suite.name, id), without_context(context) if settings.no_context else context)
            for id, context in generated.contexts.items()
        )
        definitions = generated.definitions
        if settings.no_context:
            definitions = [
                d
                if d.context is not None or d.skip_reason
                else dataclasses.replace(d, skip_reason=NOT_A_PROBE)
                for d in definitions
            ]
        if settings.sample is not None:
            definitions = stratified_sample(definitions, settings.sample, settings.seed)
        digest.update(f"\n{suite.name}\n".encode())
        for definition in definitions:
            digest.update(definition.to_json().encode())
        planned.append((suite, definitions))
    plan.generated = digest.hexdigest()
    before_reading(plan.generated)
    for suite, definitions in planned:
        if definitions_from is not None:
            definitions = [load_definition(definitions_from, d) for d in definitions]
        span = spans[suite.name]
        _check_profile(suite, settings.profile)
        definitions = [
            dataclasses.replace(d, skip_reason=reason)
            if (reason := _sits_out(suite, d, span, settings.profile))
            else d
            for d in definitions
        ]
        grouping = ISOLATED if each_alone else span
        for key, group, definition in _assign_groups(suite.name, definitions, grouping, conversations):
            threshold = (
                settings.threshold
                if settings.threshold is not None
                else suite.threshold_for(definition.scenario)
            )
            plan.tests[key] = PlannedTest(key, group, definition, threshold, span)
    return plan


NOT_A_PROBE = "--mb-no-context asks only the questions about a context (LoCoMo, LongMemEval, BEAM, …)"


def without_context(context: ProbeContext) -> ProbeContext:
    """A probe context with nothing to deliver: its questions asked of an agent told nothing, so a
    right answer is one the model knew already (MemoryAgentBench #10, contamination)."""
    return dataclasses.replace(context, turns=lambda: iter(()), tokens=0)


def stratified_sample(definitions: list[TestDefinition], size: int, seed: int) -> list[TestDefinition]:
    """About `size` of `definitions`, drawn with `seed` from each (scenario, category) stratum in
    proportion to its share (at least one from each), in their original order.  Skipped items
    (data not given) stay: they cost nothing and say what is missing."""
    strata: dict[tuple[str, str], list[int]] = {}
    for index, definition in enumerate(definitions):
        if not definition.skip_reason:
            strata.setdefault((definition.scenario, definition.category or ""), []).append(index)
    total = sum(len(members) for members in strata.values())
    if size >= total:
        return definitions
    keep = {index for index, definition in enumerate(definitions) if definition.skip_reason}
    for (scenario, category), members in sorted(strata.items()):
        share = max(1, round(size * len(members) / total))
        keep.update(
            random.Random(f"sample|{seed}|{scenario}|{category}").sample(members, min(share, len(members)))
        )
    return [definition for index, definition in enumerate(definitions) if index in keep]


def _check_profile(suite: Suite, profile: str) -> None:
    for entry in suite.entries:
        takes = profiles_of(SCENARIOS.get(entry.scenario))
        if profile not in takes:
            raise usage_error(
                f"--mb-profile {profile}: scenario {entry.scenario} of suite {suite.name} is scored under "
                f"{' or '.join(takes)} only (the audited profile needs a benchmark with an audit: LoCoMo)"
            )


def _sits_out(suite: Suite, definition: TestDefinition, span: Span, profile: str) -> str | None:
    """Why a test is skipped in this run: too long for its span, or left out by the profile (a
    question the LoCoMo audit found unanswerable, under `audited`)."""
    if definition.skip_reason:
        return definition.skip_reason
    reason = suite.too_long_for(definition.scenario, span)
    if (
        reason is None
        and (excluded := getattr(SCENARIOS.get(definition.scenario), "excluded", None)) is not None
    ):
        reason = excluded(definition, profile)
    return reason


def planned_size(tests: list[PlannedTest]) -> int:
    """About how long a conversation will take: its span's filler and the lines its tests send,
    their reset messages among them (a reply each, like a script line: leaving them out ranked LTM's
    trigger-response, five replies, with colours, four)."""
    return sum((test.span.tokens or 0) + 100 * _lines_sent(test.definition) for test in tests)


def _lines_sent(definition: TestDefinition) -> int:
    return len(definition.script) + bool(definition.reset_message)


def _assign_groups(
    suite: str, definitions: list[TestDefinition], span: Span, conversations: int
) -> list[tuple[str, str, TestDefinition]]:
    """(key, conversation group, definition) for each test of a suite.

    Isolated: every test is its own conversation.  Otherwise the suite is one conversation, or K:
    tests are dealt out in (repetition, scenario) order, so each conversation gets a share of every
    scenario and repetitions of one scenario can run side by side in different conversations.
    """
    keyed = [(f"{suite}::{d.test_id}", d) for d in definitions]
    probes = {key: _context_group(suite, d.context) for key, d in keyed if d.context is not None}
    scheduled = [(key, d) for key, d in keyed if key not in probes]
    if span.isolated:
        group_of = {key: key for key, _ in scheduled}
    elif conversations == 1:
        group_of = {key: suite for key, _ in scheduled}
    else:
        order = {name: i for i, name in enumerate(dict.fromkeys(d.scenario for _, d in scheduled))}
        dealt = sorted(scheduled, key=lambda pair: (pair[1].repetition, order[pair[1].scenario]))
        group_of = {key: f"{suite}-c{index % conversations + 1}" for index, (key, _) in enumerate(dealt)}
    group_of.update(probes)
    return [(key, group_of[key], d) for key, d in keyed]


def _context_group(suite: str, context: str) -> str:
    """A probe context is a conversation of its own: its questions share one delivery."""
    return f"{suite}::{context}"


def check_consistent(
    settings: Settings, manifest: Manifest, spans: dict[str, Span], conversations: int
) -> None:
    """A resumed or replayed run keeps its own span and split; say so instead of ignoring a flag."""
    flag = "--mb-resume" if settings.resume else "--mb-replay" if settings.replay else "--mb-merge"
    if settings.span is not None and any(span != settings.span for span in spans.values()):
        used = ", ".join(f"{name}={span}" for name, span in spans.items())
        raise usage_error(
            f"--span {settings.span} conflicts with the run given to {flag} ({used}); drop --span"
        )
    if settings.conversations not in (1, conversations):
        raise usage_error(
            f"--mb-conversations {settings.conversations} conflicts with the run given to {flag} "
            f"({conversations}); drop --mb-conversations"
        )
