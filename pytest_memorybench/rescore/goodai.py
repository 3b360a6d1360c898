"""Re-scoring GoodAI's published results with our scorers: `pytest --memorybench --mb-rescore PATH`.

PATH is one agent's `results/<agent>` folder or a whole `data/tests/<benchmark>` folder (its
`definitions/` beside `results/`).  Each stored result becomes an item: its definition converted as
`--mb-suite goodai-definitions=` converts it, its stored replies scored by the scenario (the profile
and judge of the run), and the stored automatic verdict kept beside ours in results.json
(`details.published`), for the agreement table and the report's list of disagreements.

One agent's results form the suite `goodai`, whose node ids are those of a `goodai-definitions=`
run of the same folder, so `--mb-baseline` on it compares a new agent with the published one test
by test; several agents' results form one suite each, named after the agent.

A scenario whose stored replies are not simply the replies to its questions defines
`rescore_goodai(definition, stored, context)` (`published.rescore` calls it): Prospective Memory
reads every reply after its instruction from the stored log, Restaurant replays the stored scene.
Files that cannot be used
(no definition, an unknown dataset, a broken file) are listed, one line each, and the rest is scored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import UsageError, usage_error
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.rescore.goodai_results import ResultFileError, StoredResult, read_result
from pytest_memorybench.rescore.published import PublishedRun
from pytest_memorybench.scenarios.ltm.goodai_definitions import (
    DATASETS,
    convert,
    definition_files,
    expected_by_file,
    read_config,
)
from pytest_memorybench.suite import loaded_suite

SINGLE_AGENT_SUITE = "goodai"


def read_published(path: Path) -> PublishedRun:
    """The results under `path`, paired with their definitions; UsageError when there are none."""
    folder = path.resolve()
    if (folder / "results").is_dir() and (folder / "definitions").is_dir():
        definitions, agents = (
            folder / "definitions",
            sorted(p for p in (folder / "results").iterdir() if p.is_dir()),
        )
    elif folder.parent.name == "results" and (folder.parent.parent / "definitions").is_dir():
        definitions, agents = folder.parent.parent / "definitions", [folder]
    else:
        raise usage_error(
            f"--mb-rescore {path}: not a GoodAI results folder; give data/tests/<benchmark> (with"
            " definitions/ and results/ in it) or one agent's data/tests/<benchmark>/results/<agent>"
        )
    span, _ = read_config(definitions)
    files = definition_files(definitions)
    stored_results = {agent: _read_agent(agent) for agent in agents}
    defined = {dataset: expected_by_file(paths) for dataset, paths in files.items()}  # each file read once
    examples = {dataset: list(by_file.values()) for dataset, by_file in defined.items()}
    for readings in stored_results.values():  # the keyword lists each result was scored with, too
        for stored in readings:
            if isinstance(stored, StoredResult) and stored.expected:
                examples.setdefault(stored.dataset, []).append(stored.expected)
    against_definitions = _rescored_against_definitions(stored_results.values(), files, defined)
    suites, results, problems = [], {}, []
    for agent in agents:
        name = SINGLE_AGENT_SUITE if len(agents) == 1 else suite_name(agent.name)
        loaded: list[TestDefinition] = []
        for stored in stored_results[agent]:
            if isinstance(stored, str):
                problems.append(stored)
                continue
            try:
                definition = _definition(
                    stored,
                    files.get(stored.dataset, []),
                    name,
                    examples.get(stored.dataset, []),
                    stored.dataset in against_definitions,
                )
            except (ResultFileError, UsageError) as exc:
                problems.append(str(exc))
                continue
            key = f"{name}::{definition.test_id}"
            if key in results:
                problems.append(
                    f"{stored.path}: a second result of {stored.dataset} example {stored.example_id}; skipped"
                )
                continue
            results[key] = stored
            loaded.append(definition)
        if loaded:
            suites.append(
                loaded_suite(name, agent, span, loaded, f"GoodAI's published results of {agent.name}")
            )
    if not results:
        detail = f" ({problems[0]})" if problems else ""
        raise usage_error(f"--mb-rescore {path}: no result there could be re-scored{detail}")
    return PublishedRun(folder, tuple(suites), results, tuple(problems))


def _read_agent(agent: Path) -> list[StoredResult | str]:
    """An agent's stored results, and a line for each file or folder that cannot be used."""
    readings: list[StoredResult | str] = []
    for dataset_folder in sorted(p for p in agent.iterdir() if p.is_dir()):
        dataset = dataset_folder.name
        if dataset not in DATASETS:
            readings.append(
                f"{dataset_folder}: no scenario reads the GoodAI dataset {dataset!r}; its results are skipped"
            )
            continue
        for result_path in sorted(dataset_folder.glob("*.json")):
            try:
                readings.append(read_result(result_path, agent.name, dataset))
            except ResultFileError as exc:
                readings.append(str(exc))
    return readings


def _definition(
    stored: StoredResult, files: list[Path], suite: str, examples: list[Any], against_definition: bool
) -> TestDefinition:
    path = _definition_file(stored, files)
    if path is None:
        raise ResultFileError(
            f"{stored.path}: no definition {stored.dataset}/{stored.example_id}.def.json beside the results;"
            " skipped"
        )
    expected = None if against_definition else stored.expected or None
    return convert(path, stored.dataset, suite, files.index(path) + 1, expected=expected, examples=examples)


def _definition_file(stored: StoredResult, files: list[Path]) -> Path | None:
    return next((p for p in files if p.name == f"{stored.example_id}.def.json"), None)


def _rescored_against_definitions(
    readings: Iterable[list[StoredResult | str]],
    files: dict[str, list[Path]],
    defined: dict[str, dict[Path, Any]],
) -> set[str]:
    """The datasets whose stored verdicts were computed with the definitions' expected responses.

    A result is normally scored with the `expected_responses` stored beside it.  But GoodAI
    re-evaluated older results against later definitions (Spy Meeting's keyword lists grew: "port",
    "warehouse" became "port", "warehouse", "seaport", "docks") and left the older lists in the files.
    The verdicts tell which: where more of them quote a list only the definitions have than a list
    only the result files have, the whole folder's verdicts of that dataset come from the definitions.
    """
    evidence: dict[str, int] = {}
    for stored in (s for results in readings for s in results if isinstance(s, StoredResult)):
        path = _definition_file(stored, files.get(stored.dataset, []))
        expected = defined.get(stored.dataset, {}).get(path) if path is not None else None
        if (
            not isinstance(expected, list)
            or not isinstance(stored.expected, list)
            or expected == stored.expected
        ):
            continue
        evidence[stored.dataset] = (
            evidence.get(stored.dataset, 0)
            + sum(stored.quotes(value) for value in expected if value not in stored.expected)
            - sum(stored.quotes(value) for value in stored.expected if value not in expected)
        )
    return {dataset for dataset, weight in evidence.items() if weight > 0}


def suite_name(agent_folder: str) -> str:
    """ "LLMChatSession - gpt-4o - 128000" → "LLMChatSession-gpt-4o-128000": a node-id friendly name."""
    return re.sub(r"[^\w.+]+", "-", agent_folder.replace("-", " ")).strip("-") or "agent"
