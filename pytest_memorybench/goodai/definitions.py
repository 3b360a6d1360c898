"""The published GoodAI test definitions as a suite: `--mb-suite goodai-definitions=PATH`.

GoodAI saved every generated test of their runs (`definitions/<Dataset>/<id>.def.json`, with the
run's `config.yml` beside them); running those files through our engine and scorers reproduces the
exact content of the paper's Benchmark 3.  Each scenario module converts its own files
(`from_goodai`); the memory span, incompatibilities and dataset order come from the config.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence
from typing import Any

import yaml

from pytest_memorybench.errors import UsageError
from pytest_memorybench.records import TestDefinition
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.spans import Span

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
}
CONFIG_NAMES = {name.split(".", 1)[1]: name for name in DATASETS.values()}


@dataclass(frozen=True)
class GoodAIDefinitions:
    """What a GoodAI definitions folder holds, as our definitions."""

    span: Span
    incompatible: tuple[tuple[str, ...], ...]
    definitions: tuple[TestDefinition, ...]


def read_config(folder: Path) -> tuple[Span, tuple[tuple[str, ...], ...]]:
    """The run's memory span and incompatible scenario groups, from `config.yml` beside the files."""
    if not (folder / "config.yml").is_file():
        raise UsageError(f"{PREFIX}{folder}: no config.yml there; give the 'definitions' folder of a GoodAI run")
    config = yaml.safe_load((folder / "config.yml").read_text(encoding="utf-8")) or {}
    span = int(config.get("datasets", {}).get("args", {}).get("memory_span", 0))
    groups = config.get("config", {}).get("incompatibilities", []) or []
    incompatible = tuple(
        tuple(CONFIG_NAMES[name] for name in group if name in CONFIG_NAMES) for group in groups
    )
    return Span(span or None), tuple(g for g in incompatible if len(g) > 1)


def definition_files(folder: Path) -> dict[str, list[Path]]:
    """Each known dataset's definition files, in example order (its repetitions are numbered so)."""
    files = {
        dataset: sorted((folder / dataset).glob("*.def.json"), key=_example_order) for dataset in DATASETS
    }
    return {dataset: paths for dataset, paths in files.items() if paths}


def load_goodai_definitions(folder: Path, suite: str = "goodai") -> GoodAIDefinitions:
    span, incompatible = read_config(folder)
    files = definition_files(folder)
    definitions = [
        convert(path, dataset, suite, repetition, examples=dataset_examples(paths))
        for dataset, paths in files.items()
        for repetition, path in enumerate(paths, 1)
    ]
    if not definitions:
        raise UsageError(f"{PREFIX}{folder}: no <Dataset>/<id>.def.json files found")
    return GoodAIDefinitions(span, incompatible, tuple(definitions))


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
        raise UsageError(f"{path}: scenario {scenario.name} cannot read GoodAI definitions")
    return convert_file(raw, example_id, suite, repetition)


def dataset_examples(paths: Sequence[Path]) -> list[Any]:
    """The expected responses of each definition file, in order (unreadable files left out)."""
    examples = []
    for path in paths:
        try:
            examples.append(_read_json(path).get("expected_responses"))
        except UsageError:
            continue
    return examples


def _read_json(path: Path) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise UsageError(f"{path}: not a GoodAI definition file ({exc})") from None
    if not isinstance(raw, dict):
        raise UsageError(f"{path}: not a GoodAI definition file (a JSON object was expected)")
    return raw


def _example_order(path: Path) -> tuple[int, str]:
    stem = path.name.removesuffix(".def.json")
    return (int(stem), stem) if stem.isdigit() else (1 << 30, stem)
