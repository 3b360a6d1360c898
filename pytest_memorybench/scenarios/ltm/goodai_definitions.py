"""The published GoodAI test definitions as a suite: `--mb-suite goodai-definitions=PATH`.

GoodAI saved every generated test of their runs (`definitions/<Dataset>/<id>.def.json`, with the
run's `config.yml` beside them); running those files through our engine and scorers reproduces the
exact content of the paper's Benchmark 3.  Each scenario module converts its own files
(`from_goodai`); the memory span, incompatibilities and dataset order come from the config.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import yaml

from pytest_memorybench.core.errors import UsageError, describe_exception, usage_error
from pytest_memorybench.core.load_report import LoadReport, LoadTally
from pytest_memorybench.core.readers import read_json, reading, require
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.core.spans import MAX_SPAN_TOKENS, Span
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.scenarios.ltm.goodai_format import GoodAIDefinitionFile

PREFIX = "goodai-definitions="

# Folder names of the definition files, and config names, → our scenarios.
DATASETS = {
    "Colours": "ltm.colours",
    "NameList": "ltm.name_list",
    "Jokes": "ltm.jokes",
    "Locations Directions": "ltm.locations_directions",
    "Prospective Memory": "ltm.prospective_memory",
    "Shopping": "ltm.shopping",
    "Spy Meeting": "ltm.spy_meeting",
    "Restaurant": "ltm.restaurant",
    "Trigger Response": "ltm.trigger_response",
    "SallyAnne": "ltm.sallyanne",
    "ChapterBreak": "ltm.chapterbreak",
    "Delayed Recall": "ltm.delayed_recall",
    "Instruction Recall": "ltm.instruction_recall",
    "Names": "ltm.names",
    "Locations": "ltm.locations",
    "Key-Value Pairs": "ltm.key_value_pairs",
    "How to Think": "ltm.how_to_think",
    "Conflicting Personal Information": "ltm.conflicting_personal_information",
    "Multi-Session Chat": "ltm.multi_session_chat",
}
CONFIG_NAMES = {
    **{name.split(".", 1)[1]: name for name in DATASETS.values()},
    "kv": "ltm.key_value_pairs",
    "conflicting_personal_info": "ltm.conflicting_personal_information",
    "multisessionchat": "ltm.multi_session_chat",
}


@dataclass(frozen=True)
class GoodAIDefinitions:
    """What a GoodAI definitions folder holds, as our definitions."""

    span: Span
    incompatible: tuple[tuple[str, ...], ...]
    definitions: tuple[TestDefinition, ...]
    report: LoadReport = LoadReport(())  # the files read, and those that could not be (tests skipped)


def read_config(folder: Path) -> tuple[Span, tuple[tuple[str, ...], ...]]:
    """The run's memory span and incompatible scenario groups, from `config.yml` beside the files."""
    if not (folder / "config.yml").is_file():
        raise usage_error(
            f"{PREFIX}{folder}: no config.yml there; give the 'definitions' folder of a GoodAI run"
        )
    with reading(f"{PREFIX}{folder}: config.yml", "give the 'definitions' folder of a GoodAI run"):
        config = yaml.safe_load((folder / "config.yml").read_text(encoding="utf-8")) or {}
        # Benchmarks 1 and 2 have no memory span: their files carry explicit token waits instead.
        span = int(config.get("datasets", {}).get("args", {}).get("memory_span", 0))
        require(0 <= span <= MAX_SPAN_TOKENS, f"memory_span {span:,} is outside 0 to {MAX_SPAN_TOKENS:,}")
        groups = config.get("config", {}).get("incompatibilities", []) or []
        incompatible = tuple(
            tuple(CONFIG_NAMES[name] for name in group if isinstance(name, str) and name in CONFIG_NAMES)
            for group in groups
        )
    return Span(span or None), tuple(g for g in incompatible if len(g) > 1)


def definition_files(folder: Path) -> dict[str, list[Path]]:
    """Each known dataset's definition files, in example order (its repetitions are numbered so)."""
    files = {
        dataset: sorted((folder / dataset).glob("*.def.json"), key=_example_order) for dataset in DATASETS
    }
    return {dataset: paths for dataset, paths in files.items() if paths}


def load_goodai_definitions(folder: Path, suite: str = "goodai") -> GoodAIDefinitions:
    """Every definition file of the folder; one that cannot be read becomes a skipped test saying why,
    and the report counts the files and says which could not be read."""
    span, incompatible = read_config(folder)
    files = definition_files(folder)
    tally = LoadTally()
    for child in sorted(folder.iterdir()):
        if child.is_dir() and child.name not in DATASETS and any(child.glob("*.def.json")):
            tally.note("dataset folders no scenario reads, their definitions skipped", str(child))
    definitions = []
    for dataset, paths in files.items():
        examples = dataset_examples(paths)
        tally.held("definition files", len(paths))
        for repetition, path in enumerate(paths, 1):
            try:
                definitions.append(convert(path, dataset, suite, repetition, examples=examples))
            except UsageError as unreadable:
                tally.note("definition files we cannot read, their tests skipped", str(unreadable))
                definitions.append(_unreadable(path, dataset, suite, repetition, str(unreadable)))
    if not definitions:
        raise usage_error(f"{PREFIX}{folder}: no <Dataset>/<id>.def.json files found")
    if span.isolated:
        span = _waited_span(definitions)
    return GoodAIDefinitions(span, incompatible, tuple(definitions), tally.report())


def _waited_span(definitions: Sequence[TestDefinition]) -> Span:
    """The span of a folder whose config has none (Benchmarks 1 and 2): what its longest test covers.

    Their files say how many tokens to wait after each line instead; a test covers its own lines
    and those waits, and the longest one is what a memory span means here: what the run reports,
    fills, and flags a test for overrunning.
    """
    counter = default_counter()
    longest = max(
        (
            sum(int(line.wait.get("tokens", 0)) + counter.count(line.text) for line in d.script)
            for d in definitions
        ),
        default=0,
    )
    return Span(longest or None)


def _unreadable(path: Path, dataset: str, suite: str, repetition: int, reason: str) -> TestDefinition:
    """A placeholder for a file we cannot read: its item is skipped with the reason, the rest run."""
    example_id = path.name.removesuffix(".def.json")
    return TestDefinition(
        suite=suite, scenario=DATASETS[dataset], repetition=repetition, seed=0, script=(), ideal_answers=(),
        expected=None, params={"goodai_example": example_id}, skip_reason=reason,
    )  # fmt: skip


def convert(
    path: Path, dataset: str, suite: str, repetition: int, expected: Any = None, examples: Sequence[Any] = ()
) -> TestDefinition:
    """One definition file as our definition; `expected` replaces its `expected_responses`.

    A re-score passes the expected responses its result file was scored with: GoodAI changed some
    datasets' keyword lists between runs of the same definitions.  `examples` are the expected
    responses of every example of the dataset in the folder; the converter sees them as
    `raw["_examples"]` (Spy Meeting's confusion penalty compares a reply with the other clues).
    """
    scenario = get_scenario(DATASETS[dataset])
    raw = _read_json(path)
    if expected is not None:
        raw["expected_responses"] = expected
    raw["_examples"] = list(examples)
    example_id = path.name.removesuffix(".def.json")
    convert_file = getattr(scenario, "from_goodai", None)
    if convert_file is None:
        raise usage_error(f"{path}: scenario {scenario.name} cannot read GoodAI definitions")
    try:
        definition: TestDefinition = convert_file(upgrade_format(raw), example_id, suite, repetition)
        if raw["_format"] < 3:
            definition = dataclasses.replace(
                definition, params={**definition.params, "goodai_format": raw["_format"]}
            )
        return definition
    except (
        KeyError,
        ValueError,
        TypeError,
        IndexError,
        AttributeError,
        RecursionError,
        OverflowError,
    ) as exc:
        missing = f"no {exc.args[0]!r} entry" if isinstance(exc, KeyError) else describe_exception(exc)
        raise usage_error(f"{path}: not a {dataset} definition we can read ({missing})") from None


def upgrade_format(raw: dict[str, Any]) -> GoodAIDefinitionFile:
    """A definition of any published format with one `waits` entry per line, as v2 and v3 have.

    v1 (Benchmark 1) lists `token_spacings` and `time_jumps` instead, the tokens and seconds to
    wait after each line; lists of unequal length (Jokes: one more entry, for the question asked at
    the end) are padded with no wait.  `_format` says which it was (1, 2 or 3): the definition keeps
    it as `goodai_format` for the scorers whose rules changed between benchmarks.
    """
    if "waits" in raw:
        waits = raw["waits"] or []
        explicit = bool(waits) and all(
            isinstance(w, dict) and {"tokens", "time", "percentage_finished"} <= set(w) for w in waits
        )
        raw["_format"] = 2 if explicit else 3  # v2 writes all three keys in every wait, v3 only those it uses
        return cast(GoodAIDefinitionFile, raw)
    if "token_spacings" not in raw and "time_jumps" not in raw:
        raise KeyError("waits")
    spacings, jumps = list(raw.get("token_spacings") or []), list(raw.get("time_jumps") or [])
    raw["waits"] = [
        {"tokens": spacings[i] if i < len(spacings) else 0, "time": jumps[i] if i < len(jumps) else 0}
        for i in range(max(len(spacings), len(jumps)))
    ]
    raw["_format"] = 1
    return cast(GoodAIDefinitionFile, raw)


def dataset_examples(paths: Sequence[Path]) -> list[Any]:
    """The expected responses of each definition file, in order (unreadable files left out)."""
    return list(expected_by_file(paths).values())


def expected_by_file(paths: Sequence[Path]) -> dict[Path, Any]:
    """Each readable definition file's expected responses, in order."""
    expected = {}
    for path in paths:
        try:
            expected[path] = _read_json(path).get("expected_responses")
        except UsageError:
            continue
    return expected


def _read_json(path: Path) -> dict[str, Any]:
    with reading(f"{path}: not a GoodAI definition file"):
        raw = read_json(path)
    if not isinstance(raw, dict):
        raise usage_error(f"{path}: not a GoodAI definition file (a JSON object was expected)")
    return raw


def _example_order(path: Path) -> tuple[int, str]:
    stem = path.name.removesuffix(".def.json")
    return (int(stem), stem) if stem.isdigit() else (1 << 30, stem)
