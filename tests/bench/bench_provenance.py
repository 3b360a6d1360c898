"""What provenance costs a LoCoMo whole-file run: each step it adds, timed on the real file and folder.

    python tests/bench/bench_provenance.py [--locomo PATH] [--repeat N]

A run hashes its data file once (`core/digests.py`, streamed), hashes the definitions it generates
(`plan.Plan.generated`; each definition's JSON is made once and shared with the plan's fingerprint
and the folder's definition files, which made their own before), records its prompts, judge,
products, platform and commit (`runner/provenance.py`), and at its end lists every file of its
folder with its sha256 (`runner/checksums.py`).  The steps are timed in this process (the best of
`--repeat`); the folder is that of one real run of `recall` on the whole file, made first.  The
last line is what the steps add to a run; `--mb-verify`'s file check, which reads the folder
again, is shown beside it.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.core.digests import digest
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.judges.spec import parse_judge_spec
from pytest_memorybench.runner.checksums import check_files, write_checksums
from pytest_memorybench.runner.provenance import Provenance, read_sources
from pytest_memorybench.runner.settings import Settings
from pytest_memorybench.suite import load_suite

ROOT = Path(__file__).resolve().parents[2]
LOCOMO = ROOT.parent / "shared" / "reference" / "locomo" / "locomo10.json"
if not LOCOMO.is_file():  # a worktree of the repository sits one folder deeper
    LOCOMO = ROOT.parent.parent / "shared" / "reference" / "locomo" / "locomo10.json"


def best(step: Callable[[], object], repeat: int) -> float:
    """The fastest of `repeat` runs of `step`, in seconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return min(times)


def run_folder(locomo: Path, into: Path) -> Path:
    """A real LoCoMo run folder: `recall` on the whole file."""
    command = [
        *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"),
        *("--memorybench", "--agent=recall", "--mb-suite=locomo", f"--mb-data=locomo={locomo}"),
        f"--mb-output={into}",
    ]
    subprocess.run(command, cwd=into.parent, capture_output=True, check=False)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not args.locomo.is_file():
        sys.exit(f"no LoCoMo file at {args.locomo}: give --locomo PATH")
    settings = Settings(
        agent=parse_agent_spec("recall"),
        judge=parse_judge_spec("local"),
        span=None,
        suites=("locomo",),
        seed=0,
        profile="paper",
        threshold=None,
        output=None,
        agent_options=AgentOptions(),
        data={"locomo": str(args.locomo)},
    )
    suite = load_suite("locomo")
    definitions = suite.generate(0, data=settings.data, span=suite.span).definitions
    made = [json_of(definition) for definition in definitions]  # uncached: what making each costs

    def definitions_hash() -> str:
        hashed = hashlib.sha256()
        for text in made:
            hashed.update(text.encode())
        return hashed.hexdigest()

    steps = {
        f"sha256 of {args.locomo.name} ({args.locomo.stat().st_size / 1e6:.1f} MB)": best(
            lambda: digest(args.locomo), args.repeat
        ),
        f"sha256 of the {len(definitions):,} definitions' JSON": best(definitions_hash, args.repeat),
        "prompts, judge, products, platform, commit": best(
            lambda: Provenance.of(settings, "", read_sources(settings)), args.repeat
        )
        - best(lambda: read_sources(settings), args.repeat),
    }
    making = best(lambda: [json_of(definition) for definition in definitions], 1)
    with tempfile.TemporaryDirectory() as scratch:
        folder = run_folder(args.locomo, Path(scratch) / "run")
        files = sum(1 for path in folder.rglob("*") if path.is_file())
        size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
        steps[f"manifest.json: {files:,} files, {size / 1e6:.1f} MB"] = best(
            lambda: write_checksums(folder, "bench"), args.repeat
        )
        checked = best(lambda: check_files(folder), args.repeat)
    width = max(len(name) for name in steps) + 2
    for name, seconds in steps.items():
        print(f"{name:<{width}}{seconds * 1000:>9.1f} ms")
    print(f"{'added to the run':<{width}}{sum(steps.values()) * 1000:>9.1f} ms")
    print(
        f"(each definition's JSON, made once and shared with the fingerprint and the folder: "
        f"{making * 1000:.0f} ms; --mb-verify's file check: {checked * 1000:.0f} ms)"
    )


def json_of(definition: TestDefinition) -> str:
    """A definition's JSON made afresh (its own `to_json` keeps the first it made)."""
    return json.dumps(dataclasses.asdict(definition), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    main()
