"""A run's answers in the layouts the benchmarks' own evaluation scripts read: `--mb-export FORMAT`.

A module per format, each writing under `<run folder>/exports/<format>/` what its benchmark's
script reads: `longmemeval` (`hypotheses.jsonl` for `evaluate_qa.py`), `locomo` (the pipelines'
`eval_results.json`), `memoryagentbench` (its runner's `<source>_…_results.json`, a folder per
competency) and `beam` (`<size>/<chat>/answers.json` for `run_evaluation.py`).  `answers` holds
what they share: the planned questions of a scenario paired with the items that answered them.
Written from results.json's items and the run's definitions, at session end, also for a replay.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.reports.exports.answers import Planned
from pytest_memorybench.results.schema import ResultsRecord

EXPORTS = "exports"  # the run folder's folder of them
# A module each (imported when asked for: a run that exports nothing imports no benchmark family),
# whose `export(planned, folder)` writes its files and says (what it wrote or None, what went in).
FORMATS = ("longmemeval", "locomo", "memoryagentbench", "beam")


def export_formats(values: Iterable[str] | None) -> tuple[str, ...]:
    """`--mb-export` values (repeatable, or comma-separated), checked: the formats to write, each once."""
    formats: list[str] = []
    for value in values or ():
        for name in (part.strip().lower() for part in value.split(",")):
            if name not in FORMATS:
                raise usage_error(
                    f"--mb-export {value!r}: {name!r} is not a format; give one of {', '.join(FORMATS)}"
                )
            if name not in formats:
                formats.append(name)
    return tuple(formats)


def write_exports(
    formats: Sequence[str],
    results: ResultsRecord,
    definitions: Sequence[tuple[str, TestDefinition]],
    folder: Path,
    shown: Callable[[Path], str] = str,
) -> list[str]:
    """Each format's files under `folder/exports/<format>/`, and a line for each saying where
    (`shown` writes a path for the terminal) and what went in."""
    planned = Planned(results, definitions)
    lines = []
    for name in formats:
        export: Callable[[Planned, Path], tuple[Path | None, str]] = importlib.import_module(
            f"{__name__}.{name}"
        ).export
        path, said = export(planned, folder / EXPORTS / name)
        lines.append(
            f"export {name}: {shown(path)} ({said})" if path is not None else f"export {name}: {said}"
        )
    return lines


__all__ = ["EXPORTS", "FORMATS", "export_formats", "write_exports"]
