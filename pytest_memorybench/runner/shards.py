"""A run split across machines: `--mb-shard I/N` runs one part, `--mb-merge` puts the parts together.

A CI matrix is the distributed engine users already have.  Every shard plans the whole run (same
seed and options, byte-identical definitions), keeps the whole conversations dealt to it (balanced
by planned size, never split), and records the plan's fingerprint in its `run.json`.  Merging
checks that the folders are the N shards of one plan, each once, and finished, then lets a normal
session report the whole: results.json, report.html, JUnit XML, the table and the gates.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.readers import read_json, reading, require
from pytest_memorybench.core.records import Score, TestDefinition, TestOutcome, Usage
from pytest_memorybench.core.spans import Span
from pytest_memorybench.judges.identity import identity_of
from pytest_memorybench.results.file import read_results
from pytest_memorybench.results.schema import ConversationRecord, ItemRecord, ResultsRecord
from pytest_memorybench.runner.folder import MANIFEST
from pytest_memorybench.runner.plan import PlannedTest, planned_size
from pytest_memorybench.runner.settings import Shard
from pytest_memorybench.scoring.profiles import Profile, profile_named


def deal(groups: dict[str, list[PlannedTest]], count: int) -> dict[str, int]:
    """Conversation group → shard (from 1): the longest first, each onto the lightest shard so far.

    Deterministic in the plan alone (ties go to the lower shard, groups of equal size by name), so
    every machine deals the same.
    """
    loads = [0] * count
    dealt = {}
    for size, group in sorted(
        ((planned_size(tests), group) for group, tests in groups.items()), key=lambda p: (-p[0], p[1])
    ):
        lightest = min(range(count), key=lambda index: (loads[index], index))
        loads[lightest] += max(size, 1)
        dealt[group] = lightest + 1
    return dealt


def fingerprint(tests: Iterable[PlannedTest], spans: dict[str, Span]) -> str:
    """sha256 of what makes a plan: every test's key, group, threshold and definition, and the spans."""
    digest = hashlib.sha256(json.dumps({name: str(span) for name, span in sorted(spans.items())}).encode())
    for test in sorted(tests, key=lambda test: test.key):
        digest.update(f"\n{test.key}\t{test.group}\t{test.threshold!r}\n".encode())
        digest.update(test.definition.to_json().encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class ShardFolder:
    """One shard's finished run folder, as the merge reads it."""

    folder: Path
    shard: Shard
    fingerprint: str
    results: ResultsRecord

    def judge_stats(self) -> dict[str, Any]:
        """Its judging, in the shape `run.judge_stats()` has."""
        run, totals = self.results["run"], self.results["totals"]
        identity = identity_of(run)
        return {
            "name": run["judge"],
            "prompt_hashes": dict(run.get("judge_prompt_hashes") or {}),
            "calls": totals["judge_calls"],
            "cache_hits": totals["judge_cache_hits"],
            "unparseable": totals["judge_unparseable"],
            "input_tokens": totals["judge_tokens_in"],
            "output_tokens": totals["judge_tokens_out"],
            "cost_usd": totals["judge_cost_usd"],
            "model": identity["model"],
            "output_form": identity["output_form"],
            "version": identity["local_version"],
        }


@dataclass
class Merged:
    """The shards of one plan, checked; their items, conversations and judging, together."""

    shards: list[ShardFolder]
    records: dict[str, ItemRecord] = field(default_factory=dict)  # by node id

    def __post_init__(self) -> None:
        for shard in self.shards:
            self.records.update((record["nodeid"], record) for record in shard.results["items"])

    @property
    def fingerprint(self) -> str:
        return self.shards[0].fingerprint

    @property
    def agent(self) -> str:
        return str(self.shards[0].results["run"]["agent"])

    @property
    def profile(self) -> Profile:
        return profile_named(str(self.shards[0].results["run"]["profile"]))

    @property
    def seed(self) -> int:
        return int(self.shards[0].results["run"]["seed"])

    def conversations(self) -> list[ConversationRecord]:
        return [
            conversation for shard in self.shards for conversation in shard.results.get("conversations", [])
        ]

    def judge_stats(self) -> list[dict[str, Any]]:
        return [shard.judge_stats() for shard in self.shards]


def recorded_outcome(definition: TestDefinition, record: ItemRecord) -> TestOutcome:
    """A test's outcome as a shard's results.json recorded it (what the merged run reports)."""
    return TestOutcome(
        definition,
        list(record["responses"]),
        Score(
            record["score"] or 0.0,
            tuple(record["reasons"]),
            judging=cast("JsonObject | None", record.get("judging")),  # core keeps it as JSON
        ),
        [],
        record["span_tokens"],
        Usage(**record["usage"]),
        error=record["error"],
        span_target=record["span_target"],
        details=record.get("details") or {},
        error_kind=record.get("error_kind"),
        asked=tuple(record["questions"]),
        answer_seconds=record.get("answer_seconds"),
    )


def read_shards(folders: Iterable[Path]) -> Merged:
    """The shard folders given to `--mb-merge`, or one line saying which is wrong and what to do."""
    shards = [_read_shard(Path(folder)) for folder in folders]
    first = shards[0]
    for shard in shards[1:]:
        if shard.fingerprint != first.fingerprint or shard.shard.count != first.shard.count:
            raise usage_error(
                f"--mb-merge: {shard.folder} (shard {shard.shard}) belongs to another plan than"
                f" {first.folder} (shard {first.shard}): run every shard with the same suites, span, seed and"
                " options"
            )
        for what in ("agent", "profile", "judge", "answer_deadline"):
            if shard.results["run"].get(what) != first.results["run"].get(what):
                raise usage_error(
                    f"--mb-merge: {shard.folder} ran with {what} {shard.results['run'].get(what)!r},"
                    f" {first.folder} with {first.results['run'].get(what)!r}: merge the shards of one run"
                )
    seen: dict[int, Path] = {}
    for shard in shards:
        if shard.shard.index in seen:
            raise usage_error(
                f"--mb-merge: shard {shard.shard} is given twice ({seen[shard.shard.index]} and"
                f" {shard.folder}); give each once"
            )
        seen[shard.shard.index] = shard.folder
    missing = [str(index) for index in range(1, first.shard.count + 1) if index not in seen]
    if missing:
        raise usage_error(
            f"--mb-merge: shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of {first.shard.count} "
            f"{'are' if len(missing) > 1 else 'is'} missing; give every shard's run folder"
        )
    return Merged(sorted(shards, key=lambda shard: shard.shard.index))


def _read_shard(folder: Path) -> ShardFolder:
    manifest, results = folder / MANIFEST, folder / "results.json"
    if not manifest.is_file():
        raise usage_error(f"--mb-merge {folder}: not a pytest-memorybench run folder (no {MANIFEST} in it)")
    with reading(str(manifest), "give the run folders that --mb-shard runs wrote"):
        raw = read_json(manifest)
        require(isinstance(raw, dict), "not a run manifest (a JSON object was expected)")
        sharding = raw.get("shard")
        if sharding is None:
            raise usage_error(
                f"--mb-merge {folder}: this run was not a shard (it ran without --mb-shard); merge shard"
                " folders only"
            )
        require(
            isinstance(sharding, dict) and isinstance(sharding.get("fingerprint"), str),
            "'shard' has no fingerprint",
        )
        shard = Shard.parse(f"{sharding.get('index')}/{sharding.get('count')}")
    if not results.is_file():
        raise usage_error(
            f"--mb-merge {folder}: shard {shard} has no results.json: it did not finish; --mb-resume={folder}"
            " finishes it"
        )
    with reading(str(results), "give the run folders that --mb-shard runs wrote"):
        data = read_results(results)
        require(isinstance(data.get("items"), list), "not a results.json (no items)")
        require(
            isinstance(data.get("run"), dict) and isinstance(data.get("totals"), dict),
            "not a results.json (no run or totals)",
        )
    partial = data["run"].get("partial")
    if partial:
        raise usage_error(
            f"--mb-merge {folder}: shard {shard} stopped early ({partial.get('reason', 'interrupted')}); "
            f"--mb-resume={folder} finishes it"
        )
    return ShardFolder(folder.resolve(), shard, sharding["fingerprint"], data)
