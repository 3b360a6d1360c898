"""What precision at k and the evidence share add to a run: LoCoMo's whole file with `recall`.

    python tests/bench/bench_precision.py [--locomo PATH] [--repeat 5]

The run is a fresh `python -m pytest` process, timed wall to wall, with a plugin
(`precision_timer.py`) that keeps what each evidence measure was given: the questions' evidence and
the memories `retrieve` returned.  The bench then times, on exactly those inputs, the measure as
it was before precision (recall alone: `recall_only` below, main's rule) and as it is now (recall,
precision, evidence share), best of `--repeat`, and the means the summary takes.  The difference
over the run's wall time is what the bookkeeping adds; the issue's bound is 5 %.  Timing the two
in one process on the same inputs keeps a busy machine's noise out of a difference of a few
tenths of a second in a run of tens of seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pytest_memorybench.agents.evidence_match import Memory, paragraphs, share  # noqa: E402
from pytest_memorybench.conversation import evidence  # noqa: E402
from pytest_memorybench.core.text import fold  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "reference" / "locomo" / "locomo10.json"
if not LOCOMO.is_file():
    LOCOMO = Path("/work/shared/reference/locomo/locomo10.json")


def recall_only(pieces: Sequence[str], memories: Sequence[str]) -> float:
    """Evidence recall as it was measured before precision: each piece's share of paragraphs found."""
    held = [Memory.of(text) for text in memories]
    shares: dict[str, float] = {}
    for piece in pieces:
        key, parts = fold(piece), paragraphs(piece)
        if key and key not in shares and parts:
            shares[key] = share(parts, held)
    return sum(shares.values()) / len(shares) if shares else 0.0


def best(seconds: Sequence[float]) -> float:
    return min(seconds)


def timed(function, calls, repeat: int) -> float:  # noqa: ANN001
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        for pieces, memories, groups in calls:
            function(pieces, memories, groups)
        runs.append(time.perf_counter() - started)
    return best(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sample", help="--mb-sample N instead of the whole file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        inputs = Path(folder) / "inputs.json"
        environment = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "bench")]),
            "MB_PRECISION_INPUTS": str(inputs),
        }
        command = [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"),
            *("-p", "precision_timer", "--memorybench", "--agent=recall", f"--mb-output={folder}/run"),
            *("--mb-suite=locomo", f"--mb-data=locomo={args.locomo}"),
            *(["--mb-sample", args.sample] if args.sample else []),
        ]
        started = time.perf_counter()
        subprocess.run(command, cwd=folder, env=environment, capture_output=True, check=False)
        wall = time.perf_counter() - started
        calls = json.loads(inputs.read_text())
        items = json.loads((Path(folder) / "run" / "results.json").read_text())["items"]
    before = timed(lambda pieces, memories, groups: recall_only(pieces, memories), calls, args.repeat)
    now = timed(evidence._recall, calls, args.repeat)
    records = [{"score": 1.0, "details": {"evidence": evidence._recall(*call)}} for call in calls]
    started = time.perf_counter()
    evidence.mean_recall(records)
    means = time.perf_counter() - started
    added = now - before + means
    which = f"sample {args.sample}" if args.sample else "whole file"
    print(f"LoCoMo ({which}), agent recall: {len(items)} items,")
    print(f"  {len(calls)} measures, run {wall:.1f} s wall")
    print(
        f"  recall alone {before * 1000:.0f} ms, with precision and share {now * 1000:.0f} ms,"
        f" means {means * 1000:.1f} ms"
    )
    print(f"  added {added * 1000:.0f} ms = {added / wall:.2%} of the run")


if __name__ == "__main__":
    main()
